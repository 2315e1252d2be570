"""``snowid serve`` never starts half-broken: an unusable metrics directory is one error line
and exit 1; a server process that fails to start makes serve exit non-zero, with any number of
workers; X-Forwarded-* headers are believed only from the proxies named."""

from __future__ import annotations

import asyncio
import os
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest

from snowid import Generator
from snowid.cli import _serve, main
from snowid.errors import MetricsDirError
from snowid.lease import Lease
from snowid.web import IdService, Settings, create_app
from snowid.web._service import default_factory
from tests.support.web import free_port

_WINNER = "SNOWID_TEST_START_WINNER"


async def one_of_two_starts(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An ASGI app of which only the first process to start succeeds; the others refuse."""
    assert scope["type"] == "lifespan"
    await receive()
    try:
        os.close(os.open(os.environ[_WINNER], os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        await send({"type": "lifespan.startup.failed", "message": "refused on purpose"})
        return
    await send({"type": "lifespan.startup.complete"})
    await receive()
    await send({"type": "lifespan.shutdown.complete"})


def _unusable(kind: str, tmp_path: Path) -> str:
    if kind == "file":
        path = tmp_path / "a-file"
        path.write_text("x")
        return str(path)
    return {"devnull": "/dev/null", "proc": "/proc/snowid-no-such-dir"}[kind]


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("kind", ["devnull", "proc", "file"])
@pytest.mark.parametrize("lang", ["en", "vi"])
def test_an_unusable_metrics_dir_is_one_error_line_naming_it_and_exit_1(
    kind: str, workers: str, lang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The regression: a traceback per worker, and exit 0 with --workers 2."""
    directory = _unusable(kind, tmp_path)
    lease = f"file://{tmp_path}/slots"
    argv = ["--lang", lang, "serve", "--workers", workers, "--metrics-dir", directory]
    assert main([*argv, "--port", "0", "--lease", lease]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: " if lang == "en" else "Lỗi: ")
    assert err.count("\n") == 1
    assert directory in err
    assert "Traceback" not in err


def test_a_process_that_cannot_share_metrics_refuses_to_start_in_one_line(
    tmp_path: Path,
) -> None:
    """In a worker (the directory went bad after the check): the startup failure uvicorn logs
    is the error's one line, not a traceback, and the identity is given back at once."""
    settings = Settings(lease_url=f"file://{tmp_path}/slots", metrics_dir="/dev/null")
    leases: list[Lease | None] = []

    def factory() -> tuple[Generator, Lease | None]:
        built = default_factory(settings.lease_url)()
        leases.append(built[1])
        return built

    service = IdService(factory)
    app = create_app(settings, service=service)
    sent: list[MutableMapping[str, Any]] = []
    inbox = [{"type": "lifespan.startup"}]

    async def receive() -> dict[str, Any]:
        return inbox.pop(0)

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    with pytest.raises(MetricsDirError):
        asyncio.run(app({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send))
    assert [m["type"] for m in sent] == ["lifespan.startup.failed"]
    assert sent[0]["message"].startswith("metrics directory /dev/null cannot be used")
    assert "\n" not in sent[0]["message"]
    (lease,) = leases
    assert lease is not None
    assert lease.state == "closed"


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_any_process_failing_to_start_is_a_failed_run(
    workers: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With two workers one starts and one refuses: uvicorn stops the other and returns as if
    all went well; ``_run`` says it failed. One worker that starts is a success."""
    import uvicorn

    monkeypatch.setenv(_WINNER, str(tmp_path / "winner"))
    config = uvicorn.Config(
        "tests.web.test_serve_start:one_of_two_starts",
        port=free_port(),
        workers=workers,
        lifespan="on",
        log_level="warning",
        timeout_worker_healthcheck=1,
    )
    if workers == 1:  # it wins, then serves until told to stop
        server_started: list[bool] = []

        def stop_at_once(self: uvicorn.Server, sockets: object = None) -> None:
            self.started = True
            server_started.append(True)

        monkeypatch.setattr(uvicorn.Server, "run", stop_at_once)
        assert _serve._run(config) is True
        assert server_started == [True]
        return
    assert _serve._run(config) is False


def test_serve_exits_1_when_a_process_failed_to_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(os, "environ", dict(os.environ))  # serve exports SNOWID_* variables
    monkeypatch.setattr(_serve, "_run", lambda config: False)
    lease = f"file://{tmp_path}/slots"
    assert main(["--lang", "en", "serve", "--port", "0", "--workers", "2", "--lease", lease]) == 1
    err = capsys.readouterr().err
    assert err == (
        "Error: snowid serve stopped: a server process (of 2) failed to start;"
        " its error is logged above\n"
    )


@pytest.mark.parametrize(
    ("argv", "proxy_headers", "allowed"),
    [
        ([], False, None),
        (["--forwarded-allow-ips", "10.0.0.5,10.1.0.0/16"], True, "10.0.0.5,10.1.0.0/16"),
        (["--forwarded-allow-ips", "*"], True, "*"),
    ],
)
def test_forwarded_headers_are_believed_only_from_the_proxies_named(
    argv: list[str],
    proxy_headers: bool,
    allowed: str | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """uvicorn's default believes X-Forwarded-Proto/-For from 127.0.0.1, any local process."""
    monkeypatch.setattr(os, "environ", dict(os.environ))
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    import uvicorn

    seen: list[uvicorn.Config] = []

    def run(config: uvicorn.Config) -> bool:
        seen.append(config)
        return True

    monkeypatch.setattr(_serve, "_run", run)
    lease = f"file://{tmp_path}/slots"
    assert main(["serve", "--port", "0", "--lease", lease, *argv]) == 0
    (config,) = seen
    assert config.proxy_headers is proxy_headers
    if allowed is not None:
        assert config.forwarded_allow_ips == allowed
