"""Black-box: ``snowid serve`` tells anonymous clients nothing about its lease store
(issue 8, item 1).

A real ``snowid serve`` process is started on a free loopback port with a PostgreSQL
lease URL that holds a password (``qz7wk9``) in one of the forms libpq reads; the store
(127.0.0.3 port 1) does not answer, so every id request fails. Anonymous requests to
``POST /api/ids``, ``/readyz``, ``/healthz`` and ``/metrics`` must show neither the
password nor the store's host, user or database; the server log gets the detail, with
the store named but never the password.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.support.web import free_port

PASSWORD = ("qz7", "wk9")
STORE = ("127.0.0.3", "usrqv4", "dbqv5")  # host, user, database
URLS = [
    "postgresql://usrqv4@127.0.0.3:1/dbqv5?password=qz7wk9",
    "postgresql://usrqv4:qz7wk9@127.0.0.3:1/dbqv5",
    "postgresql://usrqv4@127.0.0.3:1/dbqv5?sslmode=disable&sslpassword=qz7wk9",
    "postgres://usrqv4@127.0.0.3:1/dbqv5?connect_timeout=1&password=qz7%26wk9",
]


@contextmanager
def _serve(lease: str, log: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "SNOWID_LANG": "en", "SNOWID_DRAIN_SECONDS": "0"}  # stop at once
    with log.open("w") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "snowid", "serve", "--port", str(port), "--lease", lease],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=env,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                assert proc.poll() is None, log.read_text()
                try:
                    httpx.get(f"{base}/healthz", timeout=1)
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, log.read_text()
                    time.sleep(0.1)
            yield base
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def _assert_anonymous_sees_nothing(response: httpx.Response) -> None:
    said = response.text + "".join(f"{k}: {v}\n" for k, v in response.headers.items())
    for secret in (*PASSWORD, *STORE):
        assert secret not in said, said


@pytest.mark.parametrize("lease", URLS)
def test_an_anonymous_client_learns_nothing_about_the_store(lease: str, tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    with _serve(lease, log) as base:
        issued = httpx.post(f"{base}/api/ids?count=1")
        assert issued.status_code == 503
        error = issued.json()["error"]
        assert error["code"] == "store_unreachable"
        assert "try again" in error["message"]
        _assert_anonymous_sees_nothing(issued)
        vietnamese = httpx.post(f"{base}/api/ids?count=1", headers={"Accept-Language": "vi"})
        assert vietnamese.status_code == 503
        _assert_anonymous_sees_nothing(vietnamese)
        ready = httpx.get(f"{base}/readyz")
        assert ready.status_code == 503
        _assert_anonymous_sees_nothing(ready)
        _assert_anonymous_sees_nothing(httpx.get(f"{base}/healthz"))
        metrics = httpx.get(f"{base}/metrics")
        _assert_anonymous_sees_nothing(metrics)
    text = log.read_text()
    for piece in PASSWORD:
        assert piece not in text, text
    assert "Traceback" not in text, text
    # The operator's log names the store (scheme, host, database) and why it failed.
    assert "127.0.0.3:1/dbqv5" in text, text
    assert "store_unreachable" in text, text


@pytest.mark.slow
def test_a_held_lease_is_named_by_its_kind_only(table: str, tmp_path: Path) -> None:
    """With the identity held (the shared store trusts loopback and ignores the
    password), /metrics and the start log name the lease; never its password."""
    lease = f"postgresql://postgres@127.0.0.1:5432/test?password=qz7wk9&table={table}"
    log = tmp_path / "serve.log"
    with _serve(lease, log) as base:
        assert httpx.post(f"{base}/api/ids?count=1").status_code == 200
        metrics = httpx.get(f"{base}/metrics").text
    info = [line for line in metrics.splitlines() if line.startswith("snowid_identity_info{")]
    assert len(info) == 1
    assert 'lease="postgresql"' in info[0]
    assert "qz7wk9" not in metrics
    assert "5432/test" not in metrics
    text = log.read_text()
    assert "holds datacenter" in text  # the start line names the store, redacted
    assert "postgresql://127.0.0.1:5432/test" in text
    assert "qz7wk9" not in text


def test_an_unusable_lease_url_is_a_generic_503_not_a_400(caplog: pytest.LogCaptureFixture) -> None:
    """A lease URL only reaches the service from its own configuration: a refusal is
    the server's problem (503, generic), and the client never sees the URL."""
    from snowid.web import Settings, create_app

    app = create_app(Settings(lease_url="postgres://usrqv4:qz7/wk9@127.0.0.3:1/dbqv5"))

    async def post() -> httpx.Response:  # no lifespan: the first request builds the lease
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            return await http.post("/api/ids?count=1")

    with caplog.at_level("WARNING", logger="snowid.serve"):
        response = asyncio.run(post())
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "invalid_lease_url"
    _assert_anonymous_sees_nothing(response)
    assert "invalid_lease_url" in caplog.text
    for piece in PASSWORD:
        assert piece not in caplog.text
