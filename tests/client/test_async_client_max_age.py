"""Issue 28 §2 for asyncio: ``AsyncClient(max_age_ms=…)`` hands a batch out only until
``max_age_ms`` after it arrived, drops and counts the rest, and keeps the client's
promises: one client's ids strictly increasing, none handed out twice across clients.
(Its settings are checked with the sync client's, in test_client_max_age.py.)
No test here is timed: the sleeps only make batches age, the assertions are about which
ids came out and what was counted."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterator

import pytest

from snowid import SnowId
from snowid.client import AsyncClient
from snowid.web import Settings, create_app
from tests.support.web import fixed_identity_service, serving


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    app = create_app(Settings(max_count=4096), service=fixed_identity_service(5, 7))
    with serving(app) as base:
        yield base


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


def test_sixteen_bounded_clients_keep_their_promises(url: str) -> None:
    """16 bounded clients in tasks of one loop, pausing now and then (so batches age):
    every id once, each client's ids strictly increasing, ids dropped and counted, the
    counts adding up. (Restarts of the service under AsyncClients are in
    test_client_serve.py, in processes of their own.)"""
    taken: list[list[int]] = [[] for _ in range(16)]

    async def work(client: AsyncClient, out: list[int], slot: int) -> None:
        for n in range(1, 1201):
            out.append(await client.next_id())
            if n % (40 + slot) == 0:
                await asyncio.sleep(0.004 if slot % 2 else 0.0005)

    async def scenario(clients: list[AsyncClient]) -> None:
        try:
            await asyncio.gather(*(work(c, taken[i], i) for i, c in enumerate(clients)))
        finally:
            for client in clients:
                await client.aclose()

    clients = [AsyncClient(url, max_age_ms=3) for _ in range(16)]
    asyncio.run(scenario(clients))
    every = [i for out in taken for i in out]
    assert len(every) == 16 * 1200 == len(set(every))
    for out in taken:
        assert all(a < b for a, b in itertools.pairwise(out))
    assert sum(c.dropped for c in clients) > 0  # the pauses aged batches out
    for client, out in zip(clients, taken, strict=True):
        assert client.fetched >= len(out) + client.dropped
