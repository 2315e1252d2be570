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
- ``Connection: close`` on every answer while the process drains (``_drain``): a client
  that keeps its connection open (a pool, a load balancer's upstream) opens its next one
  elsewhere now, rather than sending a request on this one as the socket closes and
  getting a reset. uvicorn closes the connection after such an answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

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
_CLOSE = [(b"connection", b"close")]


def with_security_headers(
    path: str, status: int, headers: Iterable[tuple[bytes, bytes]], *, closing: bool = False
) -> list[tuple[bytes, bytes]]:
    """``headers`` (an answer's own, kept first and in order) and those above after them,
    for an answer of ``status`` to a request for ``path``; ``closing``: the process drains."""
    out = [*headers, *_ALWAYS]
    if path in NO_STORE_PATHS:
        out += _NO_STORE
    if status >= 400 and not any(k == b"vary" for k, _ in out):
        out += _VARY
    if closing and not any(k == b"connection" for k, _ in out):
        out += _CLOSE
    return out


def _never() -> bool:
    return False


class SecurityHeaders:
    """Adds the headers above to every HTTP answer of ``app``; ``draining`` says whether
    the process drains now (``IdService.draining``)."""

    def __init__(self, app: ASGIApp, draining: Callable[[], bool] = _never) -> None:
        self.app = app
        self.draining = draining

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                own = message.get("headers", ())
                message["headers"] = with_security_headers(
                    path, message["status"], own, closing=self.draining()
                )
            await send(message)

        await self.app(scope, receive, send_with_headers)
