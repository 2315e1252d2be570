"""``POST /api/ids`` as a raw ASGI route in front of Starlette, for the usual request.

The usual request is ``POST /api/ids`` with no query or only ``count=DIGITS`` in range,
and, when tokens are on, an ``Authorization`` header carrying one of them. ``FastIds``
answers it itself, with no Request, routing or Response objects: the ids, the same body
and the same headers as the Starlette route (``with_security_headers``, the one rule for
them). Every other request goes on to the app it wraps, untouched: another path or
method, any other query (``lang=``, a repeated, malformed or unknown parameter, a count
out of range), any body (a form's fields or a JSON object's members, which that route
refuses), a missing or refused token.
So every error answer is the Starlette app's own.

When the service cannot issue, the raw route does not answer either: it hands the
request on with the error in the scope (``FAILED``), and the Starlette route raises it
first thing, so the 503 (or, for a bug, the 500) comes from the app's one set of error
handlers, without asking the generator a second time.

A new condition on issuing (a check, a refusal) written in the Starlette route must be
made here too, or make this route hand the request on: this route never reaches that one
for the usual request. ``tests/web/test_fast_ids.py`` compares the two answer by answer.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from snowid.web._auth import TokenFile
from snowid.web._headers import with_security_headers
from snowid.web._service import IdService

__all__ = ["FAILED", "PATH", "FastIds", "ids_body", "usual_count"]

PATH = "/api/ids"
FAILED = "snowid.ids_failed"
"""The scope key under which the raw route hands on the service's error."""

_JSON = (b"content-type", b"application/json")


def usual_count(query: bytes) -> int | None:
    """The count of a query that is empty (1) or only ``count=`` and up to 9 ASCII digits;
    None for any other query, which the full reader of the Starlette route takes."""
    if not query:
        return 1
    if query[:6] == b"count=" and query[6:].isdigit() and len(query) < 16:
        return int(query[6:])
    return None


def ids_body(values: list[int]) -> bytes:
    """``{"ids": [...]}`` with each id a decimal string, built by hand (the hot path)."""
    return ('{"ids":["' + '","'.join(map(str, values)) + '"]}').encode()


def ok_headers(length: int) -> list[tuple[bytes, bytes]]:
    """The headers of a 200 from ``/api/ids`` whose body has ``length`` bytes: what a
    Starlette ``Response(body, media_type="application/json")`` sends (content-length,
    content-type) and then the security headers."""
    own = [(b"content-length", str(length).encode()), _JSON]
    return with_security_headers(PATH, 200, own)


class FastIds:
    """Answers the usual ``POST /api/ids`` (see the module); hands anything else to ``app``."""

    def __init__(
        self, app: ASGIApp, service: IdService, tokens: TokenFile | None, max_count: int
    ) -> None:
        self.app = app
        self.service = service
        self.tokens = tokens
        self.max_count = max_count
        # Everything after content-length, computed once from the one rule.
        self._tail = ok_headers(0)[1:]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["path"] != PATH
            or scope["method"] != "POST"
            or scope.get("root_path")
        ):
            await self.app(scope, receive, send)
            return
        count = usual_count(scope["query_string"])
        if count is None or not 1 <= count <= self.max_count:
            await self.app(scope, receive, send)
            return
        authorization: bytes | None = None
        for name, value in scope["headers"]:  # one pass, no decoding: the hot path
            if name in (b"content-type", b"transfer-encoding") or (
                name == b"content-length" and value.strip() != b"0"
            ):  # a body (over HTTP/2, maybe without a length): that route reads it
                await self.app(scope, receive, send)
                return
            if name == b"authorization" and authorization is None:
                authorization = value
        tokens = self.tokens
        if tokens is not None and not tokens.accepts(
            None if authorization is None else authorization.decode("latin-1")
        ):
            await self.app(scope, receive, send)  # the 401 is the Starlette route's
            return
        try:
            values = await self.service.ids(count)
        except Exception as error:  # shown by the app's own handlers
            await self.app({**scope, FAILED: error}, receive, send)
            return
        body = ids_body(values)
        length = (b"content-length", str(len(body)).encode())
        if self.service.draining:  # Connection: close too, as every answer of the drain
            headers = with_security_headers(PATH, 200, [length, _JSON], closing=True)
        else:
            headers = [length, *self._tail]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})
