"""The headers every answer carries, added by a pure ASGI wrapper around the whole app.

Pure ASGI (not Starlette's BaseHTTPMiddleware, which runs each request in an extra task
and costs more than the ``POST /api/ids?count=1`` handler itself): one list
concatenation per response. It wraps the app outside Starlette's error middleware, so
even a 500 gets the headers. ``with_security_headers`` is the one rule: the raw
``/api/ids`` route in front of Starlette (``_fast_ids``) builds its answer's headers with it.

- ``Content-Security-Policy``: the page loads its script, style sheet and icon from this
  site and nothing inline (no ``style=""`` attribute, no inline script), so ``'self'``
  is all it needs; it may not be framed (clickjacking).
- ``Cache-Control: no-store`` where every answer is fresh: new ids, compose with a blank
  timestamp (now), health, readiness and metrics.
- ``Vary: Accept-Language, Cookie`` on every error: each one carries a message in the
  language the request negotiated (the pages set it themselves).
"""

from __future__ import annotations

from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CSP", "NO_STORE_PATHS", "SecurityHeaders", "with_security_headers"]

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


def with_security_headers(
    path: str, status: int, headers: Iterable[tuple[bytes, bytes]]
) -> list[tuple[bytes, bytes]]:
    """``headers`` (an answer's own, kept first and in order) and those above after them,
    for an answer of ``status`` to a request for ``path``."""
    out = [*headers, *_ALWAYS]
    if path in NO_STORE_PATHS:
        out += _NO_STORE
    if status >= 400 and not any(k == b"vary" for k, _ in out):
        out += _VARY
    return out


class SecurityHeaders:
    """Adds the headers above to every HTTP answer of ``app``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                own = message.get("headers", ())
                message["headers"] = with_security_headers(path, message["status"], own)
            await send(message)

        await self.app(scope, receive, send_with_headers)
