"""A WSGI app drawing ids from the process-wide generator, as a user's app would: no hook."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import snowid


def wsgi(environ: dict[str, object], start_response: Callable[..., object]) -> Iterable[bytes]:
    del environ
    body = str(snowid.next_id()).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]
