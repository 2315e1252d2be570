"""Issue 28 §2 for asyncio: ``AsyncClient(max_age_ms=…)`` hands a batch out only until
``max_age_ms`` after it arrived, drops and counts the rest, and keeps the client's
promises: one client's ids strictly increasing, none handed out twice across clients.
No test here is timed: the sleeps only make batches age, the assertions are about which
ids came out and what was counted."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterator

import pytest

from snowid import SnowId, errors
from snowid.client import AsyncClient
from snowid.web import Settings, create_app
from tests.support.web import fixed_identity_service, serving


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    app = create_app(Settings(max_count=4096), service=fixed_identity_service(5, 7))
    with serving(app) as base:
        yield base


def test_settings_are_checked() -> None:
    with pytest.raises(errors.OutOfRangeError) as caught:
        AsyncClient("http://127.0.0.1:1", max_age_ms=0)
    assert (caught.value.field, caught.value.value) == ("max_age_ms", 0)
    with pytest.raises(errors.OutOfRangeError):
        AsyncClient("http://127.0.0.1:1", max_age_ms=60_001)
    with pytest.raises(errors.SnowIdError):
        AsyncClient("http://127.0.0.1:1", max_age_ms="soon")  # type: ignore[arg-type]
    client = AsyncClient("http://127.0.0.1:1", batch=64, max_age_ms=5)
    assert repr(client) == (
        "snowid.client.AsyncClient('http://127.0.0.1:1', batch=64, max_age_ms=5)"
    )
    assert repr(AsyncClient("http://127.0.0.1:1", batch=64)) == (
        "snowid.client.AsyncClient('http://127.0.0.1:1', batch=64)"
    )


def test_the_request_size_follows_the_use(url: str) -> None:
    """Batches double while they run out before their deadline (a minute here), up to
    ``batch``; nothing is fetched ahead, nothing is dropped."""

    async def scenario() -> None:
        async with AsyncClient(url, batch=256, max_age_ms=60_000) as client:
            taken = [await client.next_id() for _ in range(1 + 2 + 4 + 8)]
            assert client.fetched == 1 + 2 + 4 + 8  # 1, 2, 4, 8: each used up, none ahead
            taken += [await client.next_id() for _ in range(5000)]
            assert client.fetched - len(taken) < 256  # whole batches of at most 256
            assert client.dropped == 0
            assert all(a < b for a, b in itertools.pairwise(taken))

    asyncio.run(scenario())


def test_an_aged_batch_is_dropped_counted_and_the_next_id_is_fresh(url: str) -> None:
    async def scenario() -> None:
        async with AsyncClient(url, batch=4096, max_age_ms=5) as client:
            taken = [await client.next_id() for _ in range(300)]
            fetched = client.fetched
            assert fetched > 300 or client.dropped > 0  # a batch is left over, or was dropped
            await asyncio.sleep(0.05)  # 10 times max_age: the batch in use ages out
            began = time.time_ns() // 1_000_000
            fresh = await client.next_id()  # the aged batch is gone: fetched for this call
            assert SnowId(fresh).timestamp >= began
            assert client.fetched > fetched  # it came from a new request
            # Every id received is handed out, dropped, or left in the batch in use.
            assert client.fetched >= len(taken) + 1 + client.dropped
            assert client.dropped > 0
            assert fresh > taken[-1]

    asyncio.run(scenario())


def test_a_batch_that_aged_before_its_turn_is_dropped_and_counted(url: str) -> None:
    """A fetch whose answer nobody takes in time (its caller was cancelled) is dropped
    whole when the next call finds it, and the next id is fetched for that call."""

    async def scenario() -> None:
        async with AsyncClient(url, batch=64, max_age_ms=5) as client:
            first = await client.next_id()  # a batch of 1: used up
            waiter = asyncio.ensure_future(client.next_id())
            await asyncio.sleep(0)  # it starts the fetch of the next batch
            waiter.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiter
            task = client._task
            assert task is not None
            assert len(await asyncio.wait_for(task, 10)) == 2  # the fetch went on
            await asyncio.sleep(0.05)  # the fetched batch ages unused
            dropped = client.dropped
            began = time.time_ns() // 1_000_000
            fresh = await client.next_id()
            assert client.dropped == dropped + 2  # the batch of 2 nobody took
            assert SnowId(fresh).timestamp >= began
            assert fresh > first

    asyncio.run(scenario())


def test_sixteen_bounded_clients_keep_their_promises_through_a_restart() -> None:
    """16 bounded clients in tasks of one loop, pausing now and then (so batches age),
    while the service is stopped and started again on its port: every id once, each
    client's ids strictly increasing, ids dropped and counted, the counts adding up."""
    app = create_app(Settings(max_count=4096), service=fixed_identity_service(6, 3))
    taken: list[list[int]] = [[] for _ in range(16)]

    async def work(client: AsyncClient, out: list[int], slot: int, stop: asyncio.Event) -> None:
        n = 0
        while not stop.is_set() or len(out) < 300:
            try:
                out.append(await client.next_id())
            except errors.ServiceError:
                await asyncio.sleep(0.01)  # the service is restarting: try again
            n += 1
            if n % (40 + slot) == 0:
                await asyncio.sleep(0.004 if slot % 2 else 0.0005)

    async def until(done: object, timeout_s: float = 30.0) -> None:
        deadline = time.monotonic() + timeout_s
        while not done():  # type: ignore[operator]
            assert time.monotonic() < deadline, "the harness waited too long"
            await asyncio.sleep(0.01)

    async def scenario(port: int, clients: list[AsyncClient]) -> None:
        stop = asyncio.Event()
        tasks = [asyncio.ensure_future(work(c, taken[i], i, stop)) for i, c in enumerate(clients)]
        await until(lambda: min(map(len, taken)) >= 200)
        before = sum(map(len, taken))
        # The server runs in a thread: stopping and starting it must not block the loop.
        await asyncio.to_thread(restart, port)
        await until(lambda: sum(map(len, taken)) >= before + 2000)
        stop.set()
        try:
            await asyncio.gather(*tasks)
        finally:
            for client in clients:
                await client.aclose()

    cm: list[object] = []

    def restart(port: int) -> None:
        cm.pop().__exit__(None, None, None)  # type: ignore[attr-defined]
        time.sleep(0.05)
        again = serving(app, port=port)
        again.__enter__()
        cm.append(again)

    first = serving(app)
    base = first.__enter__()
    cm.append(first)
    clients = [AsyncClient(base, max_age_ms=3, retries=10) for _ in range(16)]
    try:
        asyncio.run(scenario(int(base.rsplit(":", 1)[1]), clients))
    finally:
        for each in cm:
            each.__exit__(None, None, None)  # type: ignore[attr-defined]
    every = [i for out in taken for i in out]
    assert len(every) == len(set(every))
    for out in taken:
        assert all(a < b for a, b in itertools.pairwise(out))
    assert sum(c.dropped for c in clients) > 0  # the pauses aged batches out
    for client, out in zip(clients, taken, strict=True):
        assert client.fetched >= len(out) + client.dropped
