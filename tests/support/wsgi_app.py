"""A WSGI app for the gunicorn --preload test: the lease and generator are made at import."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from snowid import Generator
from snowid.lease import open_lease

lease = open_lease(os.environ["SNOWID_TEST_LEASE"])
generator = Generator(fence=lease)
if os.environ.get("SNOWID_TEST_PRECLAIM"):
    generator.next_id()  # the master holds an identity before forking its workers


def app(environ: dict[str, object], start_response: Callable[..., object]) -> Iterable[bytes]:
    del environ
    body = f"{generator.next_id()} {os.getpid()} {lease.worker}".encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]


async def asgi_app(scope: dict[str, object], receive: object, send: object) -> None:
    """The same endpoint for uvicorn (which starts its workers by spawn, not fork)."""
    del receive
    if scope["type"] != "http":
        return
    body = f"{await generator.anext_id()} {os.getpid()} {lease.worker}".encode()
    headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})  # type: ignore[operator]
    await send({"type": "http.response.body", "body": body})  # type: ignore[operator]
