"""Ids from a snowid id service (``snowid serve``), for programs that hold no identity.

``Client`` (threads) and ``AsyncClient`` (asyncio) fetch ids in batches from
``POST /api/ids`` and hand them out one by one; a refill in the background fetches the
next batch while the current one is handed out. Standard library only (``http.client``,
asyncio streams), and imported only by whoever uses it: not by ``import snowid``, not by
the CLI; ``Client`` does not load asyncio either (each is imported on first use). When to
use a client and when a lease of your own: docs/client.md.

::

    from snowid.client import Client

    with Client("http://127.0.0.1:8000", token=None) as ids:
        key = ids.next_id()

Errors (``snowid.errors``): ``ServiceError`` and its kinds for the service's side,
``InvalidServiceUrlError``, ``InvalidTokenError`` and ``OutOfRangeError`` for settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snowid._lazy import lazy_names as _lazy_names

if TYPE_CHECKING:
    from snowid.client._async import AsyncClient
    from snowid.client._sync import Client

__all__ = ["AsyncClient", "Client"]

_LAZY = {"AsyncClient": "snowid.client._async", "Client": "snowid.client._sync"}

# PEP 562 hooks; hidden from mypy, for which an unknown name stays an error.
if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_names(globals(), _LAZY)
