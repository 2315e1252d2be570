"""Building the Starlette app: routes, error handlers, headers, and the process's lifespan."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Match, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from snowid import SYSTEM_CLOCK, Clock
from snowid._exceptions import SnowIdError
from snowid.i18n import detect_lang, translate
from snowid.web import _log_start, api, pages
from snowid.web._auth import TokenFile
from snowid.web._drain import Drain
from snowid.web._errors import error_response, snowid_error_response
from snowid.web._fast_ids import FastIds
from snowid.web._headers import SecurityHeaders
from snowid.web._lang import negotiate
from snowid.web._service import IdService, default_factory
from snowid.web._settings import Settings
from snowid.web._share import MetricsShare

__all__ = ["app_factory", "create_app"]


class _App(Starlette):
    startup_error: SnowIdError | None = None  # set by the lifespan when it refuses to start
    fast_ids: Callable[[ASGIApp], ASGIApp] | None = None  # the raw /api/ids route, if on
    draining: Callable[[], bool] = staticmethod(lambda: False)  # Connection: close while True

    def build_middleware_stack(self) -> ASGIApp:
        # Outside Starlette's own error middleware, so that a 500 gets the headers too.
        stack = SecurityHeaders(super().build_middleware_stack(), self.draining)
        return stack if self.fast_ids is None else self.fast_ids(stack)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await super().__call__(scope, receive, send)
            return

        async def one_line(message: Message) -> None:
            # Starlette reports a failed start with the traceback, which uvicorn logs; a
            # snowid error is the operator's to fix and says all in one line.
            error = self.startup_error
            if message["type"] == "lifespan.startup.failed" and error is not None:
                message = {**message, "message": error.message(detect_lang())}
            await send(message)

        await super().__call__(scope, receive, one_line)


def create_app(
    settings: Settings | None = None,
    *,
    service: IdService | None = None,
    clock: Clock = SYSTEM_CLOCK,
) -> Starlette:
    """The app; ``service`` defaults to a generator on ``open_lease(settings.lease_url)``;
    ``clock`` says what now is to the pages and the decoding API (relative times, the
    "in the future" warning), not to the generator, which has its own.

    Raises AuthTokenFileError when ``settings.auth_token_file`` cannot be used.
    """
    settings = settings or Settings.from_env()
    service = service or IdService(default_factory(settings.lease_url, settings.clock_back))
    tokens = TokenFile(settings.auth_token_file) if settings.auth_token_file else None
    share = MetricsShare(settings.metrics_dir) if settings.metrics_dir else None

    @asynccontextmanager
    async def lifespan(app: _App) -> AsyncIterator[None]:
        try:
            _log_start(settings, await service.start())
            publishing = share.start(service) if share is not None else None
        except SnowIdError as error:
            service.close()  # give the identity back: this process will not serve
            app.startup_error = error
            raise
        # On the first SIGTERM/SIGINT: /readyz 503 at once, the server's stop
        # drain_seconds later; at the end the identity goes back, bounded (_drain).
        reports = settings.metrics_dir if settings.workers > 1 else None
        drain = Drain(service, settings.drain_seconds, reports)
        drain.install()
        try:
            yield
        finally:
            if publishing is not None:
                await publishing.stop()
            await drain.close()

    async def on_snowid_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, SnowIdError)
        return snowid_error_response(exc, negotiate(request))

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        lang = negotiate(request)
        path, method = request.url.path, request.method
        if exc.status_code == 404:
            moved = _without_trailing_slash(request, app.routes)
            if moved is not None:
                return moved
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
    app = _App(
        routes=[
            *api.routes(settings, service, tokens, share, clock=clock),
            *pages.routes(clock),
            Mount("/static", app=static, name="static"),
        ],
        exception_handlers={
            SnowIdError: on_snowid_error,
            HTTPException: on_http_error,
            Exception: on_crash,
        },
        lifespan=lifespan,
    )
    # The usual POST /api/ids answered in front of it all, with the same headers.
    app.fast_ids = partial(FastIds, service=service, tokens=tokens, max_count=settings.max_count)
    app.draining = lambda: service.draining  # every answer says Connection: close meanwhile
    # Starlette's own slash redirect writes the Host header into an absolute Location.
    app.router.redirect_slashes = False
    app.state.service = service
    app.state.settings = settings
    return app


def _without_trailing_slash(request: Request, routes: list[BaseRoute]) -> Response | None:
    """A 307 to the same path without its trailing slashes when a route serves that path.

    The Location is relative (a path and the query), so a forged Host header never becomes
    the target, and a path that would read as another host (``//evil.example``) is not
    redirected at all.
    """
    path = request.scope["path"]
    target = path.rstrip("/")
    if path == target or not target.startswith("/") or target.startswith("//"):
        return None
    moved = {**request.scope, "path": target}
    if all(route.matches(moved)[0] is Match.NONE for route in routes):
        return None
    query = request.scope.get("query_string", b"").decode("latin-1")
    location = request.scope.get("root_path", "") + target + (f"?{query}" if query else "")
    return RedirectResponse(location, status_code=307)


def app_factory() -> Starlette:
    """For ``uvicorn --factory snowid.web:app_factory``: settings from the environment."""
    return create_app(Settings.from_env())
