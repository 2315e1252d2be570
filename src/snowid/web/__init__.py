"""The web page and the HTTP service: ``create_app(settings)`` builds the Starlette app.

``app_factory`` is what ``snowid serve`` hands to uvicorn (``factory=True``), so that
with ``--workers N`` every process builds its own app, generator and lease.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from snowid.errors import SnowIdError
from snowid.i18n import detect_lang, translate
from snowid.web import api, pages
from snowid.web._errors import error_response, snowid_error_response
from snowid.web._lang import negotiate
from snowid.web._service import IdService, default_factory
from snowid.web._settings import Settings

__all__ = ["Settings", "app_factory", "create_app"]

LOGGER = logging.getLogger("snowid.serve")


def create_app(settings: Settings | None = None, *, service: IdService | None = None) -> Starlette:
    """The app; ``service`` defaults to a generator on ``open_lease(settings.lease_url)``."""
    settings = settings or Settings.from_env()
    service = service or IdService(default_factory(settings.lease_url))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        _log_start(settings, await service.start())
        try:
            yield
        finally:
            service.close()

    async def on_snowid_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, SnowIdError)
        return snowid_error_response(exc, negotiate(request))

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        lang = negotiate(request)
        path, method = request.url.path, request.method
        if exc.status_code == 404:
            if not path.startswith("/api/") and "text/html" in request.headers.get("accept", ""):
                return pages.not_found_page(request)
            message = translate("web.error.not_found", lang, method=method, path=path)
            return error_response(404, "not_found", message)
        if exc.status_code == 405:
            message = translate("web.error.method_not_allowed", lang, method=method, path=path)
            return error_response(405, "method_not_allowed", message, dict(exc.headers or {}))
        return error_response(exc.status_code, "http_error", str(exc.detail))

    async def on_crash(request: Request, exc: Exception) -> Response:
        message = translate("web.error.internal", negotiate(request))
        return error_response(500, "internal_error", message)

    static = StaticFiles(packages=[("snowid.web", "static")])
    app = Starlette(
        routes=[
            *api.routes(settings, service),
            *pages.routes(),
            Mount("/static", app=static, name="static"),
        ],
        exception_handlers={
            SnowIdError: on_snowid_error,
            HTTPException: on_http_error,
            Exception: on_crash,
        },
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.settings = settings
    return app


def app_factory() -> Starlette:
    """For ``uvicorn --factory snowid.web:app_factory``: settings from the environment."""
    return create_app(Settings.from_env())


def _log_start(settings: Settings, snapshot: object) -> None:
    from snowid.web._service import Snapshot

    assert isinstance(snapshot, Snapshot)
    lang = detect_lang()
    common = {
        "pid": os.getpid(),
        "host": settings.host,
        "port": settings.port,
        "lease": snapshot.lease_url or "static",
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
