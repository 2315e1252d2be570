"""The headers every answer carries, added by a pure ASGI wrapper around the whole app.

Pure ASGI (not Starlette's BaseHTTPMiddleware, which runs each request in an extra task
and costs more than the ``POST /api/ids?count=1`` handler itself): one list
concatenation per response. It wraps the app outside Starlette's error middleware, so
even a 500 gets the headers.

- ``Content-Security-Policy``: the page loads its script, style sheet and icon from this
  site and nothing inline (no ``style=""`` attribute, no inline script), so ``'self'``
  is all it needs; it may not be framed (clickjacking).
- ``Cache-Control: no-store`` where every answer is fresh: new ids, compose with a blank
  timestamp (now), health, readiness and metrics.
- ``Vary: Accept-Language, Cookie`` on every error: each one carries a message in the
  language the request negotiated (the pages set it themselves).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CSP", "NO_STORE_PATHS", "SecurityHeaders"]

CSP = (
    # default-src covers scripts, styles, images, fonts and fetches; the rest is named.
    # Kept short: uvicorn checks every byte of every header of every answer.
    "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self';"
    " frame-ancestors 'none'"
)
NO_STORE_PATHS = frozenset({"/api/ids", "/api/compose", "/healthz", "/readyz", "/metrics"})

_ALWAYS: list[tuple[bytes, bytes]] = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]
_NO_STORE = [(b"cache-control", b"no-store")]
_VARY = [(b"vary", b"Accept-Language, Cookie")]


class SecurityHeaders:
    """Adds the headers above to every HTTP answer of ``app``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        no_store = scope["path"] in NO_STORE_PATHS

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", ()), *_ALWAYS]
                if no_store:
                    headers += _NO_STORE
                if message["status"] >= 400 and not any(k == b"vary" for k, _ in headers):
                    headers += _VARY
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)
