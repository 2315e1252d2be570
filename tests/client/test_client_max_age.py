"""Issue 28 §2: time-bounded batches (``Client(max_age_ms=…)``). A batch is handed out
only until ``max_age_ms`` after it arrived, the rest is dropped and counted, and the
client's promises stand: one client's ids strictly increasing, none handed out twice
across clients, through restarts of the service. No test here is timed: the waits are
the harness's, the assertions are about which ids came out."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from snowid import SnowId, errors
from snowid.client import AsyncClient, Client
from snowid.web import Settings, create_app
from tests.support.web import fixed_identity_service, serving


def wait_until(done: Callable[[], bool], timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, "the harness waited too long"
        time.sleep(0.005)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    app = create_app(Settings(max_count=4096), service=fixed_identity_service(4, 9))
    with serving(app) as base:
        yield base


@pytest.mark.parametrize("make", [Client, AsyncClient])
def test_settings_are_checked(make: type[Client] | type[AsyncClient]) -> None:
    """Both clients take the same ``max_age_ms`` and refuse the same values by name."""
    with pytest.raises(errors.OutOfRangeError) as caught:
        make("http://127.0.0.1:1", max_age_ms=0)
    assert (caught.value.field, caught.value.value) == ("max_age_ms", 0)
    with pytest.raises(errors.OutOfRangeError):
        make("http://127.0.0.1:1", max_age_ms=60_001)
    with pytest.raises(errors.SnowIdError):
        make("http://127.0.0.1:1", max_age_ms="soon")  # type: ignore[arg-type]
    client = make("http://127.0.0.1:1", batch=64, max_age_ms=5)
    name = make.__name__
    assert repr(client) == f"snowid.client.{name}('http://127.0.0.1:1', batch=64, max_age_ms=5)"
    assert "max_age_ms" not in repr(make("http://127.0.0.1:1", batch=64))
    if isinstance(client, Client):
        client.close()


def test_an_aged_batch_is_dropped_and_the_next_id_is_made_after_the_call_began(url: str) -> None:
    with Client(url, batch=4096, max_age_ms=5) as client:
        for _ in range(300):  # the batches grow while they run out in time
            client.next_id()
        dropped = client.dropped
        wait_until(lambda: client.dropped > dropped or client._pump.size == 0)
        began = time.time_ns() // 1_000_000
        fresh = client.next_id()  # the aged batch is gone: fetched for this call
        assert SnowId(fresh).timestamp >= began
        assert client.fetched >= 301 + client.dropped - 1


def test_the_request_size_follows_the_use(url: str) -> None:
    """Batches double while they run out before their deadline, up to ``batch``."""
    with Client(url, batch=256, max_age_ms=60_000) as client:
        for _ in range(1 + 2 + 4 + 8):
            client.next_id()
        assert client.fetched == 1 + 2 + 4 + 8  # 1, 2, 4, 8: each used up, none ahead
        for _ in range(5000):
            client.next_id()
        assert client.fetched - client.dropped <= 5015 + 256
        assert client.dropped == 0


def test_sixteen_clients_through_two_restarts_keep_their_promises() -> None:
    """16 bounded clients in threads, each pausing now and then (so batches age out),
    while the service is restarted twice on its port: every id once, each client's ids
    strictly increasing, and the counts add up."""
    app = create_app(Settings(max_count=4096), service=fixed_identity_service(6, 2))
    taken: list[list[int]] = [[] for _ in range(16)]
    clients: list[Client] = []
    stop = threading.Event()
    with serving(app) as base:
        port = int(base.rsplit(":", 1)[1])
        clients = [Client(base, batch=4096, max_age_ms=3, retries=10) for _ in range(16)]

        def work(slot: int) -> None:
            client, out = clients[slot], taken[slot]
            n = 0
            while not stop.is_set() or len(out) < 500:
                try:
                    out.append(client.next_id())
                except errors.ServiceError:
                    time.sleep(0.01)  # the service is restarting: the next call tries again
                n += 1
                if n % (50 + slot) == 0:
                    time.sleep(0.004 if slot % 2 else 0.001)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
        for thread in threads:
            thread.start()
        wait_until(lambda: min(map(len, taken)) >= 200)
    try:
        for _ in range(2):  # down, then up again on the same port
            time.sleep(0.05)
            with serving(app, port=port):
                target = sum(map(len, taken)) + 2000
                wait_until(lambda target=target: sum(map(len, taken)) >= target)
        with serving(app, port=port):
            stop.set()
            for thread in threads:
                thread.join(60)
    finally:
        stop.set()
        for client in clients:
            client.close()
    every = [i for out in taken for i in out]
    assert len(every) == len(set(every))
    for out in taken:
        assert all(a < b for a, b in itertools.pairwise(out))
    assert sum(c.dropped for c in clients) > 0  # the pauses aged batches out
    for client, out in zip(clients, taken, strict=True):
        assert client.fetched >= len(out) + client.dropped
