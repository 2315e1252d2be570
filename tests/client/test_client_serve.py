"""End to end: ``Client`` in several processes against ``snowid serve`` with two workers and
token authentication, as deployed; then the server goes away under the clients. And 16
client processes (sync and asyncio, plain and time-bounded batches) through a restart of
``snowid serve`` on one leased identity (issue 28)."""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import time
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from snowid import SnowId, errors
from snowid.client import AsyncClient, Client
from tests.web.test_serve import running_serve

TOKEN = "end-to-end-token"
_shared: list[Client] = []  # the client the pool's forked processes inherit


def _take(client: Client, count: int) -> list[int]:
    return [client.next_id() for _ in range(count)]


def _take_inherited(count: int) -> list[int]:
    return _take(_shared[0], count)


@pytest.mark.slow
def test_forked_processes_share_a_client_against_snowid_serve_without_a_duplicate(
    tmp_path: Path,
) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text(f"# the clients' token\n{TOKEN}\n")
    lease = f"file://{tmp_path / 'slots'}?allow_volatile=1"
    args = ["--workers", "2", "--lease", lease, "--auth-token-file", str(tokens)]
    with running_serve(args, tmp_path / "serve.log") as url:
        client = Client(url, token=TOKEN, batch=1000, retries=1)
        first = _take(client, 1500)  # one batch in use, the next one buffered
        _shared[:] = [client]
        with multiprocessing.get_context("fork").Pool(3) as pool:  # forks here
            children = pool.map(_take_inherited, [4000] * 3)
        last = _take(client, 1500)
    every = first + last + [i for ids in children for i in ids]
    assert len(every) == 3000 + 3 * 4000 == len(set(every))
    # The server is gone: the rest of the buffer is handed out, then the clear error.
    with pytest.raises(errors.ServiceUnreachableError) as caught:
        _take(client, 2000)
    assert caught.value.url == url
    assert caught.value.attempts == 2
    client.close()


def _client_kind(slot: int) -> tuple[str, int, int | None]:
    """Slot's client: 4 of each (sync or asyncio; blocks of 4,096, blocks of 256, or
    batches used for 50 ms: long enough for a busy machine to take a batch into use in
    time, as this test is not about how many age out)."""
    return [
        ("sync", 4096, None),
        ("sync", 256, None),
        ("sync", 4096, 50),
        ("async", 512, None if slot % 8 == 3 else 50),
    ][slot % 4]


def _client_process(url: str, slot: int, shared: tuple[Any, ...], out: str) -> None:
    """Take ids until ``stop``, 16 at a time with short pauses, going on through the
    service's restart (an error: the next call tries again); then write them to ``out``."""
    counts, last, stop = shared
    kind, batch, max_age_ms = _client_kind(slot)
    ids = array("q")

    def took(value: int) -> None:
        ids.append(value)
        counts[slot] = len(ids)
        last[slot] = value

    if kind == "sync":
        with Client(url, batch=batch, max_age_ms=max_age_ms, retries=10) as client:
            while not stop.is_set():
                try:
                    took(client.next_id())
                except errors.ServiceError:
                    time.sleep(0.02)
                if len(ids) % 16 == 0:
                    time.sleep(0.002)
    else:

        async def run() -> None:
            async with AsyncClient(url, batch=batch, max_age_ms=max_age_ms, retries=10) as client:
                while not stop.is_set():
                    try:
                        took(await client.next_id())
                    except errors.ServiceError:
                        await asyncio.sleep(0.02)
                    if len(ids) % 16 == 0:
                        await asyncio.sleep(0.002)

        asyncio.run(run())
    Path(out).write_bytes(ids.tobytes())


def _wait(done: Callable[[], bool], what: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, f"the harness waited too long for {what}"
        time.sleep(0.02)


@pytest.mark.slow
def test_sixteen_client_processes_through_a_restart_of_snowid_serve(tmp_path: Path) -> None:
    """16 client processes take ids from ``snowid serve`` on a single leased identity
    (``range=5-5``); the server is stopped and started again on its port while they run,
    and every client goes on until it holds ids the new server made. Each client's ids
    strictly increase, and no id is handed out twice across the 16 (counted)."""
    lease = f"file://{tmp_path / 'slots'}?range=5-5&allow_volatile=1"
    ctx = multiprocessing.get_context("fork")
    counts, last = ctx.Array("q", 16), ctx.Array("q", 16)
    stop = ctx.Event()
    outs = [tmp_path / f"client-{slot}.ids" for slot in range(16)]
    procs: list[Any] = []
    try:
        with running_serve(["--lease", lease], tmp_path / "serve-1.log") as url:
            procs = [
                ctx.Process(
                    target=_client_process, args=(url, slot, (counts, last, stop), str(outs[slot]))
                )
                for slot in range(16)
            ]
            for proc in procs:
                proc.start()
            _wait(lambda: min(counts[:]) >= 1000, "1,000 ids in every client")
        port = int(url.rsplit(":", 1)[1])
        with running_serve(["--lease", lease], tmp_path / "serve-2.log", port=port):
            restarted_ms = time.time_ns() // 1_000_000
            _wait(
                lambda: min(SnowId(i).timestamp for i in last[:]) >= restarted_ms,
                "an id of the new server in every client",
            )
            stop.set()
            for proc in procs:
                proc.join(60)
            assert [proc.exitcode for proc in procs] == [0] * 16
    finally:
        stop.set()
        for proc in procs:
            if proc.is_alive():
                proc.kill()
                proc.join(5)
    taken = [array("q", out.read_bytes()) for out in outs]
    for ids in taken:
        assert all(a < b for a, b in itertools.pairwise(ids))
    every = [i for ids in taken for i in ids]
    assert len(every) - len(set(every)) == 0  # duplicates across the 16 clients
    worker = SnowId(every[0])
    assert (worker.datacenter, worker.machine) == (0, 5)
    assert {i >> 12 & 1023 for i in every} == {5}  # the leased identity's 10 bits, every id
    # Both servers' ids are there: the restart happened while the clients ran.
    assert min(every) < SnowId.first_at(restarted_ms) <= max(every)
