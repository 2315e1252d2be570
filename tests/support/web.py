"""Running the app on a real loopback port inside a test: ``with serving(app) as url``.

uvicorn runs in a thread with its own event loop; the port is picked by the OS
(bind to port 0 first), so parallel test runs never collide. ``error_of`` checks the
one error shape of the JSON API and returns its code and message.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import uvicorn
from starlette.types import ASGIApp

from snowid import Generator
from snowid.web import IdService
from tests.support.servers import free_port

__all__ = ["fixed_identity_service", "free_port", "serving"]


@contextmanager
def serving(
    app: ASGIApp, host: str = "127.0.0.1", timeout_s: float = 10.0, port: int = 0
) -> Iterator[str]:
    """Serve ``app`` until the block ends; yields its base URL (no trailing slash).
    ``port`` 0: a free one; another: that one (a restart on the port of a served block)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="warning", lifespan="on", access_log=False, server_header=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout_s
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            sock.close()
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout_s)
        sock.close()


def fixed_identity_service(datacenter: int = 1, machine: int = 1) -> IdService:
    """An IdService on a Generator with a fixed identity (no lease): for tests and demos."""

    def build() -> tuple[Generator, None]:
        return Generator(datacenter, machine), None

    return IdService(build)


def error_of(response: httpx.Response) -> dict[str, str]:
    """The ``{"code", "message"}`` of a JSON error answer, after checking its shape: one
    ``error`` object with exactly those two keys, a message, a JSON content type."""
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message"}
    assert body["error"]["message"]
    assert response.headers["content-type"].startswith("application/json")
    return dict(body["error"])
