"""The process-wide generator: ``configure``, ``next_id``, ``next_ids``, ``anext_id``.

A layer of its own, above the lease layer and below the integrations: it opens the lease
its URL names (``snowid.configure`` or ``SNOWID_LEASE``) and builds this process's
``Generator`` on it, so it imports both the generator and, on the first id, the lease
layer. Users import these names from ``snowid``.
"""

from __future__ import annotations

from snowid.process._default import (
    CLOCK_BACK_VAR,
    ENV_VAR,
    anext_id,
    close,
    configure,
    next_id,
    next_ids,
    started,
    warm_up,
)

__all__ = [
    "CLOCK_BACK_VAR",
    "ENV_VAR",
    "anext_id",
    "close",
    "configure",
    "next_id",
    "next_ids",
    "started",
    "warm_up",
]
