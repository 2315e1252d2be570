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
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    if name in ("app_factory", "create_app"):
        from snowid.web import _app

        return getattr(_app, name)
    if name in ("STOP_GRACE_S", "failed_workers", "release_failed"):
        from snowid.web import _drain

        return getattr(_drain, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
