"""``snowid serve``: flags and environment, refusals, the start log line, and several
worker processes that never hand out the same id twice."""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from snowid import SnowId
from snowid.cli import main
from snowid.cli._serve import worker_environment
from tests.support.web import free_port

STARTED = re.compile(r"process (\d+) on http://\S+ holds datacenter (\d+), machine (\d+)")


def namespace(**given: object) -> argparse.Namespace:
    defaults = {"host": None, "port": None, "lease": None, "max_count": None}
    return argparse.Namespace(**{**defaults, **given})


def test_flags_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNOWID_HOST", "::1")
    monkeypatch.setenv("SNOWID_PORT", "9000")
    monkeypatch.setenv("SNOWID_LEASE", "static://1/1")
    from_env = worker_environment(namespace(), "en")
    assert (from_env["SNOWID_HOST"], from_env["SNOWID_PORT"]) == ("::1", "9000")
    assert from_env["SNOWID_LEASE"] == "static://1/1"
    flags = worker_environment(namespace(host="0.0.0.0", port="8123", lease="file:"), "vi")
    assert (flags["SNOWID_HOST"], flags["SNOWID_PORT"], flags["SNOWID_LEASE"]) == (
        "0.0.0.0",
        "8123",
        "file:",
    )
    assert flags["SNOWID_LANG"] == "vi"


def test_defaults_without_flags_or_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SNOWID_HOST", "SNOWID_PORT", "SNOWID_LEASE", "SNOWID_MAX_COUNT"):
        monkeypatch.delenv(name, raising=False)
    env = worker_environment(namespace(), "en")
    assert env == {
        "SNOWID_HOST": "127.0.0.1",
        "SNOWID_PORT": "8000",
        "SNOWID_MAX_COUNT": "4096",
        "SNOWID_LANG": "en",
    }


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--workers", "2", "--lease", "static://1/2"], "cannot be shared by 2 worker"),
        (["--workers", "0"], "workers 0 is out of range"),
        (["--port", "http"], "port http is not a whole number"),
        (["--port", "70000"], "port 70000 is out of range"),
        (["--max-count", "0"], "max_count 0 is out of range"),
        (["--lease", "ftp://x"], "cannot be used"),
    ],
)
def test_serve_refuses_bad_settings_before_starting(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--lang", "en", "serve", *argv]) == 1
    assert words in capsys.readouterr().err


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_serve_on_a_busy_port_or_a_bad_host_exits_1_with_a_clear_error(
    lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        assert main(["--lang", lang, "serve", "--port", port, "--lease", "static://1/1"]) == 1
    busy = capsys.readouterr().err
    assert port in busy
    assert ("cannot listen on 127.0.0.1" if lang == "en" else "không thể lắng nghe") in busy
    assert main(["--lang", lang, "serve", "--host", "999.999.1.1", "--lease", "static://1/1"]) == 1
    assert "999.999.1.1" in capsys.readouterr().err


@contextmanager
def running_serve(args: list[str], log: Path) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "SNOWID_LANG": "en"}
    env.pop("SNOWID_LEASE", None)
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "snowid", "serve", "--port", str(port), *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, log.read_text()
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def test_serve_logs_the_identity_it_holds(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    with running_serve(["--lease", "static://4/5"], log) as url:
        ids = httpx.post(f"{url}/api/ids?count=3").json()["ids"]
        assert {SnowId.from_str(i).parts[1:3] for i in ids} == {(4, 5)}
    started = STARTED.findall(log.read_text())
    assert [(dc, m) for _, dc, m in started] == [("4", "5")]


def test_several_workers_never_return_a_duplicate(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    lease = f"file://{tmp_path / 'slots'}?allow_volatile=1"
    with running_serve(["--workers", "3", "--lease", lease], log) as url:
        # wait until every worker has logged its identity
        deadline = time.monotonic() + 30
        while len(STARTED.findall(log.read_text())) < 3:
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)

        def burst(_: int) -> list[str]:
            got: list[str] = []
            for _ in range(25):
                # a fresh connection each time, so the kernel spreads them over the workers
                response = httpx.post(f"{url}/api/ids?count=200", timeout=10)
                assert response.status_code == 200, response.text
                got += response.json()["ids"]
            return got

        with ThreadPoolExecutor(8) as pool:
            batches = list(pool.map(burst, range(8)))
    ids = [i for batch in batches for i in batch]
    assert len(ids) == 8 * 25 * 200
    assert len(set(ids)) == len(ids)
    identities = {(dc, m) for _, dc, m in STARTED.findall(log.read_text())}
    pids = {pid for pid, _, _ in STARTED.findall(log.read_text())}
    assert len(identities) == len(pids) == 3
    served = {SnowId.from_str(i).parts[1:3] for i in ids}
    assert len(served) >= 2  # more than one process answered
    assert served <= {(int(dc), int(m)) for dc, m in identities}
