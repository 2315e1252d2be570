"""The web page and the HTTP service: ``create_app(settings)`` builds the Starlette app.

``app_factory`` is what ``snowid serve`` hands to uvicorn (``factory=True``), so that
with ``--workers N`` every process builds its own app, generator and lease.

``Settings`` and ``IdService`` load without Starlette; ``create_app`` and ``app_factory``
load it on first use, so that the CLI can read its settings without paying for the app.
``release_failed`` and ``failed_workers`` (whether this process's, or which workers',
identity failed to go back at the stop, see ``_drain``) and ``STOP_GRACE_S`` load on first
use too.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from snowid._lazy import lazy_names as _lazy_names
from snowid.i18n import detect_lang, translate
from snowid.lease import redact
from snowid.web._service import IdService
from snowid.web._settings import Settings, preflight

if TYPE_CHECKING:
    from snowid.web._app import app_factory, create_app
    from snowid.web._drain import STOP_GRACE_S, failed_workers, release_failed

__all__ = [
    "STOP_GRACE_S",
    "IdService",
    "Settings",
    "app_factory",
    "create_app",
    "failed_workers",
    "preflight",
    "release_failed",
]

LOGGER = logging.getLogger("snowid.serve")


# name -> the module that defines it, imported when the name is first read
_LAZY = {
    "STOP_GRACE_S": "snowid.web._drain",
    "app_factory": "snowid.web._app",
    "create_app": "snowid.web._app",
    "failed_workers": "snowid.web._drain",
    "release_failed": "snowid.web._drain",
}

# PEP 562 hooks; hidden from mypy, for which an unknown name stays an error.
if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_names(globals(), _LAZY)


def _log_start(settings: Settings, snapshot: object) -> None:
    from snowid.web._service import Snapshot

    assert isinstance(snapshot, Snapshot)
    lang = detect_lang()
    common = {
        "pid": os.getpid(),
        "host": settings.host,
        "port": settings.port,
        "lease": redact(snapshot.lease_url) or "static",  # never a password
    }
    if snapshot.datacenter is not None:
        LOGGER.info(
            translate(
                "web.serve.started",
                lang,
                datacenter=snapshot.datacenter,
                machine=snapshot.machine,
                ceiling=snapshot.ceiling_ms,
                **common,
            )
        )
    else:
        LOGGER.info(
            translate("web.serve.no_identity", lang, reason=snapshot.last_error or "-", **common)
        )
