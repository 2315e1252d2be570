"""``snowid serve``: flags and environment, refusals, the start log line, and several
worker processes that never hand out the same id twice."""

from __future__ import annotations

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
from tests.support.web import free_port

STARTED = re.compile(r"process (\d+) on http://\S+ holds datacenter (\d+), machine (\d+)")
LISTENING = re.compile(r"process \d+ on (http://\S+) holds")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--workers", "2", "--lease", "static://1/2"], "cannot be shared by 2 worker"),
        (["--workers", "0"], "workers 0 is out of range"),
        (["--port", "http"], "port http is not a whole number"),
        (["--port", "70000"], "port 70000 is out of range"),
        (["--max-count", "0"], "max_count 0 is out of range"),
        (["--lease", "ftp://x"], "cannot be used"),
        # issue 25 §3: a number of seconds, not "a whole number" (3.0 and 2.5 are read)
        (["--drain-seconds", "soon"], "drain_seconds soon is not a number of seconds"),
        (["--drain-seconds", "1e3"], "drain_seconds 1e3 is not a number of seconds"),
        (["--drain-seconds", "3601"], "drain_seconds 3601 is out of range 0..600"),
        (["--drain-seconds", "-0.5"], "drain_seconds -0.5 is out of range 0..600"),
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


@pytest.mark.parametrize("lang", ["en", "vi"])
@pytest.mark.parametrize("host", ["a" * 64, "a..b", "." + "b" * 70 + ".example"])
def test_serve_on_an_impossible_host_name_is_a_one_line_error(
    host: str, lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The regression: a 64-character label made getaddrinfo raise UnicodeError, a traceback."""
    assert main(["--lang", lang, "serve", "--host", host, "--lease", "static://1/1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: " if lang == "en" else "Lỗi: ")
    assert err.count("\n") == 1
    assert ("1 to 63 characters" if lang == "en" else "1 đến 63 ký tự") in err


# Harness margins: how long `snowid serve` may take to start its processes, or to stop,
# on a busy 2-core machine before a test gives up on it (30 s ran out with both cores taken).
START_S = 60.0


def wait_started(log: Path, processes: int, seconds: float = START_S) -> None:
    """Wait until ``processes`` server processes have logged the identity they hold."""
    deadline = time.monotonic() + seconds
    while len(STARTED.findall(log.read_text())) < processes:
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)


@contextmanager
def running_serve(args: list[str], log: Path, port: int | None = None) -> Iterator[str]:
    """``snowid serve`` in a child process until the block ends; yields its base URL.

    ``port`` 0 asks for any free port: the URL is then read from the start log."""
    port = free_port() if port is None else port
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNOWID_")}
    env["SNOWID_LANG"] = "en"
    env["SNOWID_DRAIN_SECONDS"] = "0"  # stop at once: the drain has its own tests (test_drain)
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "snowid", "serve", "--port", str(port), *args],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    url = f"http://127.0.0.1:{port}"
    found = None
    try:
        deadline = time.monotonic() + START_S
        while True:
            assert process.poll() is None, log.read_text()
            if port == 0:
                found = LISTENING.search(log.read_text())
                url = found.group(1) if found else url
            try:
                known = port != 0 or found is not None
                if known and httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(START_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@pytest.mark.slow
def test_serve_logs_the_identity_it_holds(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    with running_serve(["--lease", "static://4/5"], log) as url:
        ids = httpx.post(f"{url}/api/ids?count=3").json()["ids"]
        assert {SnowId.from_str(i).parts[1:3] for i in ids} == {(4, 5)}
        health = httpx.get(f"{url}/healthz")
        assert "server" not in health.headers  # not "uvicorn"
        # a static identity is reported as such, not as a held lease
        assert health.json()["lease"] == "static"
        metrics = httpx.get(f"{url}/metrics").text
        assert re.search(r'snowid_lease_state\{pid="\d+",state="static"\} 1', metrics)
        assert re.search(r'snowid_lease_state\{pid="\d+",state="held"\} 0', metrics)
    started = STARTED.findall(log.read_text())
    assert [(dc, m) for _, dc, m in started] == [("4", "5")]


@pytest.mark.slow
def test_port_0_takes_a_free_port_and_the_start_log_names_it(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    with running_serve(["--lease", "static://4/6"], log, port=0) as url:
        port = int(url.rsplit(":", 1)[1])
        assert port != 0
        assert httpx.get(f"{url}/readyz").json()["machine"] == 6
    assert ":0 " not in log.read_text()


def metrics_by_pid(text: str, name: str) -> dict[str, float]:
    found = re.findall(rf'^{name}\{{pid="(\d+)"\}} (\S+)$', text, re.M)
    return {pid: float(value) for pid, value in found}


@pytest.mark.slow
def test_several_workers_never_return_a_duplicate(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    lease = f"file://{tmp_path / 'slots'}?allow_volatile=1"
    with running_serve(["--workers", "3", "--lease", lease], log) as url:
        wait_started(log, 3)  # every worker has logged its identity

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

        # /metrics: whichever process answers, every process is there, told apart by pid
        pids = {pid for pid, _, _ in STARTED.findall(log.read_text())}
        deadline = time.monotonic() + 30
        while True:
            text = httpx.get(f"{url}/metrics", timeout=10).text  # a fresh connection each time
            issued = metrics_by_pid(text, "snowid_ids_issued_total")
            if set(issued) == pids and sum(issued.values()) >= 8 * 25 * 200:
                break
            assert time.monotonic() < deadline, text
            time.sleep(0.2)
        for _ in range(6):
            text = httpx.get(f"{url}/metrics", timeout=10).text
            assert set(metrics_by_pid(text, "snowid_ready")) == pids, text
            workers = re.findall(r'^snowid_identity_info\{pid="(\d+)",worker="(\d+)"', text, re.M)
            assert {pid for pid, _ in workers} == pids
            assert len({worker for _, worker in workers}) == 3
            for family in ("snowid_ids_issued_total", "snowid_ready"):
                assert text.count(f"# TYPE {family} ") == 1  # one family, a sample per pid
    ids = [i for batch in batches for i in batch]
    assert len(ids) == 8 * 25 * 200
    assert len(set(ids)) == len(ids)
    identities = {(dc, m) for _, dc, m in STARTED.findall(log.read_text())}
    pids = {pid for pid, _, _ in STARTED.findall(log.read_text())}
    assert len(identities) == len(pids) == 3
    served = {SnowId.from_str(i).parts[1:3] for i in ids}
    assert len(served) >= 2  # more than one process answered
    assert served <= {(int(dc), int(m)) for dc, m in identities}
