"""The graceful drain of ``snowid serve`` (``snowid.web._drain``, ``snowid.cli._serve``).

Fast tests drive the drain with real signals raised in this process, only once its handler
is in place, in front of a recording handler that stands for uvicorn's: readiness goes off
at the signal, the server's handler runs only after the drain, repeated signals do what the
module says, the release goes through ``generate.stop_now`` (replaced here by a recorder: the
real one would give back every lease of the test process) and a release that does not
finish in time is reported. The slow test runs a real ``snowid serve`` through a SIGTERM
under an HTTP load.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

import httpx
import pytest
import uvicorn

from snowid import SnowId
from snowid.cli._serve import _server_class, _supervisor_class
from snowid.errors import StoreUnreachableError
from snowid.web import IdService, Settings, _drain, create_app
from snowid.web._drain import Drain, failed_workers, release_failed
from tests.support.web import fixed_identity_service, free_port, serving

Signal = tuple[int, float]


@contextlib.contextmanager
def server_handlers() -> Iterator[list[Signal]]:
    """SIGTERM and SIGINT go to a recorder (as uvicorn's handler would take them) for the
    block; the handlers of the test process are put back afterwards."""
    got: list[Signal] = []

    def record(signum: int, frame: FrameType | None) -> None:
        got.append((signum, time.monotonic()))

    saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        for signum in saved:
            signal.signal(signum, record)
        yield got
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


@pytest.fixture
def releases(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """When the drain called ``stop_now`` (the recorder stands in for it)."""
    called: list[float] = []
    monkeypatch.setattr(_drain, "stop_now", lambda: called.append(time.monotonic()))
    return called


def raise_when_ours(drain: Drain, signum: int) -> None:
    """Raise ``signum`` in this process, only when the drain's handler takes it."""
    assert signal.getsignal(signum) == drain._on_signal
    signal.raise_signal(signum)


async def wait_until(done: Callable[[], bool], timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)


def test_sigterm_turns_readiness_off_at_once_and_reaches_the_server_after_the_drain(
    releases: list[float],
) -> None:
    service = fixed_identity_service()
    drain = Drain(service, 0.3)

    async def scenario() -> None:
        assert drain.install()
        await service.ids(1)
        assert service.snapshot().ready
        sent = time.monotonic()
        raise_when_ours(drain, signal.SIGTERM)
        assert service.draining  # before the event loop ran anything
        assert not service.snapshot().ready
        await asyncio.sleep(0.1)
        assert got == []  # the server has not been told yet: it keeps serving
        assert len(await service.ids(3)) == 3
        await wait_until(lambda: bool(got))
        assert got[0][0] == signal.SIGTERM
        assert got[0][1] - sent >= 0.3  # not before the drain's end
        assert len(releases) == 1
        assert releases[0] <= got[0][1]  # the identity goes back as the server stops
        assert await drain.close()

    with server_handlers() as got:
        asyncio.run(scenario())
        assert signal.getsignal(signal.SIGTERM) != drain._on_signal  # handed back at close
    assert len(got) == 1  # the server was told once
    assert len(releases) == 1
    assert service.snapshot().lease_state == "unclaimed"  # closed


def test_a_second_sigint_ends_the_drain_a_third_goes_to_the_server_and_sigterm_is_ignored(
    releases: list[float],
) -> None:
    service = fixed_identity_service()
    drain = Drain(service, 60)

    async def scenario() -> None:
        assert drain.install()
        raise_when_ours(drain, signal.SIGTERM)
        raise_when_ours(drain, signal.SIGTERM)  # systemd's and the --workers parent's
        await asyncio.sleep(0.1)
        assert got == []
        sent = time.monotonic()
        raise_when_ours(drain, signal.SIGINT)  # Ctrl-C: enough waiting
        await wait_until(lambda: bool(got))
        assert [s for s, _ in got] == [signal.SIGTERM]  # the stop of the first signal
        assert got[0][1] - sent < 30  # long before the 60 s drain
        raise_when_ours(drain, signal.SIGINT)  # once more: uvicorn forces the exit
        assert [s for s, _ in got] == [signal.SIGTERM, signal.SIGINT]
        await drain.close()

    with server_handlers() as got:
        asyncio.run(scenario())
    assert len(releases) == 1


def test_without_a_stop_signal_the_lifespan_end_closes_the_lease_but_releases_nothing_else(
    releases: list[float],
) -> None:
    """A lifespan that ends without SIGTERM/SIGINT (a test client, an app reloaded) does not
    give back every lease of the process: stop_now is for a process that stops."""
    service = fixed_identity_service()

    async def scenario() -> bool:
        await service.ids(1)
        return await Drain(service, 5).close()

    assert asyncio.run(scenario())
    assert releases == []
    assert service.snapshot().lease_state == "unclaimed"


def test_no_drain_off_the_main_thread_or_without_a_handler_of_the_program() -> None:
    drain = Drain(fixed_identity_service(), 5)
    result: list[bool] = []
    thread = threading.Thread(target=lambda: result.append(asyncio.run(_install(drain))))
    thread.start()
    thread.join(10)
    assert result == [False]
    saved = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        assert not asyncio.run(_install(drain))
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


async def _install(drain: Drain) -> bool:
    return drain.install()


def test_a_release_that_does_not_finish_in_time_is_logged_and_reported(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    store_answers = threading.Event()
    monkeypatch.setattr(_drain, "stop_now", lambda: store_answers.wait(10))
    monkeypatch.setattr(_drain, "RELEASE_WAIT_S", 0.2)
    monkeypatch.setattr(_drain, "_failed_in", [])
    drain = Drain(fixed_identity_service(), 0)

    async def scenario() -> bool:
        drain.install()
        raise_when_ours(drain, signal.SIGTERM)
        await wait_until(lambda: bool(got))
        started = time.monotonic()
        closed = await drain.close()
        assert time.monotonic() - started < 5  # bounded, not the 10 s the store takes
        return closed

    try:
        with server_handlers() as got, caplog.at_level(logging.ERROR, "snowid.serve"):
            assert not asyncio.run(scenario())
    finally:
        store_answers.set()
    assert release_failed()
    assert f"process {os.getpid()} did not give its identity back within 0.2 s" in caplog.text


def test_a_release_the_store_refused_is_logged_and_reported_to_the_workers_parent(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """The store did not take the identity back (``Lease.release_error``): the worker says
    why, and leaves a report in the metrics directory that the parent finds by pid."""
    monkeypatch.setattr(_drain, "_failed_in", [])
    service = fixed_identity_service()
    refused = StoreUnreachableError(store="postgresql://db.example/ids", reason="timeout")

    def close() -> None:
        service.release_error = refused

    monkeypatch.setattr(service, "close", close)
    with caplog.at_level(logging.ERROR, "snowid.serve"):
        assert not asyncio.run(Drain(service, 0, str(tmp_path)).close())
    assert release_failed()
    assert "did not give its identity back (the lease store postgresql://db.example" in caplog.text
    (tmp_path / f"{os.getpid()}.json").write_text("{}")  # a metrics snapshot: not a report
    assert failed_workers(str(tmp_path)) == [os.getpid()]
    assert [p.name for p in tmp_path.iterdir()] == [f"{os.getpid()}.json"]  # read once
    assert failed_workers(str(tmp_path)) == []
    assert failed_workers(None) == []


def test_a_failed_release_makes_the_single_server_exit_1_not_by_the_signal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """uvicorn raises the signals it caught again when it is done; after a failed release
    ``snowid serve``'s server does not, so that ``_serve`` can exit 1."""
    config = uvicorn.Config("snowid.web:app_factory", factory=True)
    for failed in (False, True):
        monkeypatch.setattr(_drain, "_failed_in", [os.getpid()] if failed else [])
        server = _server_class()(config)
        with server_handlers() as got:
            with server.capture_signals():
                server.handle_exit(signal.SIGTERM, None)
            assert [s for s, _ in got] == ([] if failed else [signal.SIGTERM])


def test_the_workers_parent_passes_the_stop_signal_on_at_once() -> None:
    """uvicorn's supervisor looks at its signals every 0.5 s; the drain of each worker
    starts when the signal comes."""
    config = uvicorn.Config("snowid.web:app_factory", factory=True, workers=2)
    names = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGTTIN", "SIGTTOU", "SIGUSR1", "SIGUSR2")
    saved = {s: signal.getsignal(s) for s in (getattr(signal, n) for n in names)}
    saved[signal.SIGWINCH] = signal.getsignal(signal.SIGWINCH)
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        supervisor = _supervisor_class()(config, [])

        class Running:
            pid = worker.pid
            exitcode = None

        supervisor.processes = [Running()]  # type: ignore[list-item]
        assert signal.getsignal(signal.SIGTERM) == supervisor._stop_workers
        supervisor._stop_workers(signal.SIGTERM, None)
        assert worker.wait(10) == -signal.SIGTERM
        assert supervisor.signal_queue == [signal.SIGTERM]  # and the supervisor stops too
    finally:
        worker.kill()
        worker.wait()
        for signum, handler in saved.items():
            signal.signal(signum, handler)


# --- Connection: close while draining (issue 25 §3) -----------------------------------------


class KeptAlive:
    """One HTTP/1.1 connection kept open across requests, as a client's pool keeps it."""

    def __init__(self, base: str) -> None:
        host, _, port = base.removeprefix("http://").partition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=10)
        self.pending = b""

    def ask(self, method: str, target: str) -> dict[str, str]:
        """Send one request on this connection; its answer's status and headers (lower-case
        names; the body is read and dropped)."""
        request = f"{method} {target} HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n"
        self.sock.sendall(request.encode())
        while b"\r\n\r\n" not in self.pending:
            self.pending += self._read()
        head, _, self.pending = self.pending.partition(b"\r\n\r\n")
        status, *lines = head.decode("latin-1").split("\r\n")
        headers = {":status": status.split()[1]}
        headers.update(
            (k.strip().lower(), v.strip()) for k, _, v in (h.partition(":") for h in lines)
        )
        while len(self.pending) < int(headers["content-length"]):
            self.pending += self._read()
        self.pending = self.pending[int(headers["content-length"]) :]
        return headers

    def closed_by_server(self) -> bool:
        """Whether the server closed this connection (end of stream, nothing more sent)."""
        return self.pending == b"" and self._read() == b""

    def _read(self) -> bytes:
        return self.sock.recv(65536)  # b"" at the end of the stream; 10 s at most

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def drained_server() -> Iterator[tuple[str, IdService]]:
    """A server in this process (uvicorn in a thread) whose service the test puts into its
    drain by hand, as the first SIGTERM does (``Drain._on_signal``)."""
    service = fixed_identity_service(3, 4)
    with serving(create_app(Settings(), service=service)) as base:
        yield base, service


@pytest.mark.parametrize(
    ("method", "target"),
    [("POST", "/api/ids?count=2"), ("GET", "/readyz"), ("GET", "/api/decode/4194439168")],
)
def test_during_the_drain_a_kept_alive_connection_is_told_to_close_and_closed(
    drained_server: tuple[str, IdService], method: str, target: str
) -> None:
    """Issue 25 §3: before the drain a kept-alive connection serves request after request;
    from the drain's start the next answer on it says ``Connection: close`` and the server
    closes it (the raw ``/api/ids`` route and the Starlette routes alike), while the socket
    still takes new connections, whose answers say the same. So a client's pool moves to
    another process during the drain, not with a reset when the socket closes."""
    base, service = drained_server
    kept = KeptAlive(base)
    try:
        for _ in range(2):
            before = kept.ask(method, target)
            assert "connection" not in before, before
        service.draining = True
        during = kept.ask(method, target)
        assert during[":status"] == ("503" if target == "/readyz" else "200"), during
        assert during["connection"] == "close"
        assert kept.closed_by_server()
    finally:
        kept.close()
    fresh = KeptAlive(base)  # the socket is still open for the drain
    try:
        assert fresh.ask(method, target)["connection"] == "close"
        assert fresh.closed_by_server()
    finally:
        fresh.close()


# --- end to end: a real `snowid serve` on a PostgreSQL lease, stopped under load ------------

STARTED = re.compile(r"process (\d+) on http://\S+ holds datacenter (\d+), machine (\d+)")
# 5 s (the default), not 2: on a busy machine a request can take most of a second, and the
# test must see ids issued while /readyz already answers 503.
DRAIN_S = 5
STOP_BOUND_S = DRAIN_S + 11  # docs/web.md: --drain-seconds + 11 s
START_S = 60  # a harness margin: `snowid serve --workers 2` starting on a busy machine

Answer = tuple[float, float, int | str]
"""(sent, answered, HTTP status or "refused"/"error"), on the monotonic clock."""


def _load(
    url: str, path: str, answers: list[Answer], ids: list[str], until: threading.Event
) -> None:
    """Requests one after another, each on a fresh connection, until ``until`` is set."""
    method = "POST" if path.startswith("/api/ids") else "GET"
    while not until.is_set():
        sent = time.monotonic()
        try:
            response = httpx.request(method, url + path, timeout=10)
        except httpx.ConnectError:
            answers.append((sent, time.monotonic(), "refused"))
            time.sleep(0.02)
            continue
        except httpx.TransportError:
            answers.append((sent, time.monotonic(), "error"))
            continue
        answers.append((sent, time.monotonic(), response.status_code))
        if response.status_code == 200 and method == "POST":
            ids.extend(response.json()["ids"])
        if method == "GET":
            time.sleep(0.02)


def _kept_alive(
    url: str, answers: list[tuple[float, int | str, bool]], until: threading.Event
) -> None:
    """Requests on one kept-alive connection (httpx's pool reuses it) until ``until`` is
    set: (sent, status or "refused"/"error", whether the answer said Connection: close)."""
    with httpx.Client(timeout=10) as client:
        while not until.is_set():
            sent = time.monotonic()
            try:
                response = client.post(url + "/api/ids?count=5")
            except httpx.ConnectError:
                answers.append((sent, "refused", False))
                time.sleep(0.02)
                continue
            except httpx.TransportError:
                answers.append((sent, "error", False))
                continue
            closing = response.headers.get("connection") == "close"
            answers.append((sent, response.status_code, closing))


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_serve_drains_through_sigterm_under_load(tmp_path: Path, workers: int) -> None:
    """SIGTERM under load: /readyz answers 503 while ids are still issued, the socket closes
    only after the drain, every id is unique, the exit is uvicorn's and within the bound,
    no identity is held right after the exit, and a successor claims one at once and
    starts at once (the hand-over), above every id issued."""
    from snowid.lease import lease_status, open_lease
    from tests.support import pg

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNOWID_")}
    env["SNOWID_LANG"] = "en"
    with pg.fresh_table() as table:
        # timeout=2: a round trip's margin (left out, ttl/3) for a claim on a busy machine
        url = pg.SHARED.url(f"table={table}&range=5-{4 + workers}&ttl=2&timeout=2")
        argv = ["serve", "--port", str(port), "--workers", str(workers), "--lease", url]
        with log.open("w") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "snowid", *argv, "--drain-seconds", str(DRAIN_S)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        stop = threading.Event()
        ids: list[str] = []
        ready: list[Answer] = []
        issued: list[list[Answer]] = [[] for _ in range(3)]
        kept: list[tuple[float, int | str, bool]] = []
        threads = [
            threading.Thread(target=_load, args=(base, "/readyz", ready, [], stop)),
            threading.Thread(target=_kept_alive, args=(base, kept, stop)),
            *(
                threading.Thread(target=_load, args=(base, "/api/ids?count=50", got, ids, stop))
                for got in issued
            ),
        ]
        try:
            deadline = time.monotonic() + START_S
            while len(STARTED.findall(log.read_text())) < workers:
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.05)
            for thread in threads:
                thread.start()
            # load before the signal: every load thread has had an answer
            while not (ready and all(any(a[2] == 200 for a in got) for got in issued)):
                assert time.monotonic() < deadline + START_S, (ready, issued)
                time.sleep(0.05)
            sent = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(STOP_BOUND_S + 10)
            exited = time.monotonic()
        finally:
            stop.set()
            for thread in threads:
                thread.join(15)
            if proc.poll() is None:
                proc.kill()
                proc.wait(5)
        text = log.read_text()
        assert code == (-signal.SIGTERM if workers == 1 else 0), text
        assert exited - sent <= STOP_BOUND_S, text
        assert text.count("got SIGTERM: /readyz answers 503") == workers, text
        held = [row.worker for row in lease_status(url) if row.held]
        assert held == [], text  # given back at the stop, not left to expire

        # readiness: off after the signal and never on again, before the socket closed
        answers = sorted(ready + [a for got in issued for a in got])
        assert any(status == 503 for _, _, status in ready), ready
        first_503 = min(done for _, done, status in ready if status == 503)
        closed = min(done for _, done, status in answers if not isinstance(status, int))
        assert first_503 < closed
        assert all(status != 200 for start, _, status in ready if start > first_503)
        # the socket stayed open for the drain, and ids were issued meanwhile
        assert closed - sent >= DRAIN_S
        assert any(status == 200 and done > first_503 for got in issued for _, done, status in got)
        assert all(s in (200, "refused", "error") for got in issued for _, _, s in got), issued
        assert all(s in (200, 503, "refused", "error") for _, _, s in ready), ready
        assert all(isinstance(s, int) for _, done, s in answers if done < sent + DRAIN_S)
        # issue 25 §3: a kept-alive connection is told to close during the drain, not before
        assert not any(closing for start, _, closing in kept if start < sent - 0.1), kept
        late = [c for start, status, c in kept if start > first_503 + 0.5 and status == 200]
        assert late, kept  # answered during the drain, each on a new connection
        assert all(late), kept

        # every id unique, from the identities the log names
        assert len(ids) == len(set(ids)) > 0
        parts = [SnowId.from_str(i).parts for i in ids]
        named = {(int(dc), int(m)) for _, dc, m in STARTED.findall(text)}
        assert {(p.datacenter, p.machine) for p in parts} <= named

        # a successor claims an identity at once and, handed over (issue 26 §4: each
        # worker released after its last answer, its generator sealed), starts at once,
        # not at the old grant's ceiling
        with open_lease(url) as successor:
            claimed_at = time.time_ns() // 1_000_000
            grant = successor.warm_up()
        assert grant.start_ms <= claimed_at + 1, text
        last = max(
            (
                p.timestamp
                for p in parts
                if (p.datacenter, p.machine) == (grant.datacenter, grant.machine)
            ),
            default=0,
        )
        assert grant.start_ms > last


@pytest.mark.slow
def test_serve_exits_1_when_the_store_does_not_take_the_identities_back(tmp_path: Path) -> None:
    """With --workers 2 on a store that stops answering during the drain: each worker says
    it did not give its identity back, the parent exits 1, and the stop stays bounded."""
    from tests.support import pg
    from tests.support.proxy import TcpProxy

    port = free_port()
    log = tmp_path / "serve.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNOWID_")}
    env["SNOWID_LANG"] = "en"
    proxy = TcpProxy("127.0.0.1", pg.SHARED.port)
    try:
        with pg.fresh_table() as table:
            url = pg.SHARED.url(f"table={table}&range=5-6&ttl=2&timeout=2", port=proxy.port)
            argv = ["serve", "--port", str(port), "--workers", "2", "--lease", url]
            with log.open("w") as out:
                proc = subprocess.Popen(
                    [sys.executable, "-m", "snowid", *argv, "--drain-seconds", "1"],
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=env,
                )
            try:
                deadline = time.monotonic() + START_S
                while len(STARTED.findall(log.read_text())) < 2:
                    assert proc.poll() is None, log.read_text()
                    assert time.monotonic() < deadline, log.read_text()
                    time.sleep(0.05)
                sent = time.monotonic()
                proc.send_signal(signal.SIGTERM)
                proxy.set_mode("blackhole")  # the release comes after the 1 s drain
                code = proc.wait(1 + 11 + 10)
                exited = time.monotonic()
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait(5)
                proxy.set_mode("pass")
    finally:
        proxy.close()
    text = log.read_text()
    assert code == 1, text
    assert exited - sent <= 1 + 11, text
    assert text.count("did not give its identity back") == 2, text
    assert "Error: snowid serve (process " in text
