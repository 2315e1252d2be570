"""``snowid.client.AsyncClient``: the same contract as ``Client``, for asyncio code."""

from __future__ import annotations

import asyncio
import os
import select
import signal
from collections.abc import Iterator

import pytest

from snowid import SnowId, errors
from snowid.client import AsyncClient
from snowid.web import Settings, create_app
from tests.support.fake_service import DROP, HANG, answer, fake_service
from tests.support.web import fixed_identity_service, free_port, serving

TOKEN = "async-client-token"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tokens = tmp_path_factory.mktemp("auth") / "tokens"
    tokens.write_text(f"{TOKEN}\n")
    settings = Settings(max_count=4096, auth_token_file=str(tokens))
    with serving(create_app(settings, service=fixed_identity_service(4, 9))) as base:
        yield base


def test_tasks_share_one_client_and_never_get_the_same_id(url: str) -> None:
    async def scenario() -> list[list[int]]:
        async with AsyncClient(url, token=TOKEN, batch=300) as client:

            async def work() -> list[int]:
                return [await client.next_id() for _ in range(1000)]

            return await asyncio.gather(*(work() for _ in range(8)))

    taken = asyncio.run(scenario())
    every = [i for out in taken for i in out]
    assert len(every) == 8000 == len(set(every))
    assert all(out == sorted(out) for out in taken)
    assert {(SnowId(i).datacenter, SnowId(i).machine) for i in every} == {(4, 9)}


def test_the_refill_runs_while_the_batch_is_handed_out() -> None:
    with fake_service() as fake:

        async def scenario() -> None:
            async with AsyncClient(fake.url, batch=10) as client:
                await client.next_id()
                for _ in range(200):  # let the refill task run: no caller is waiting
                    await asyncio.sleep(0.005)
                    if len(fake.requests) == 2:
                        break
                assert len(fake.requests) == 2

        asyncio.run(scenario())


def test_a_missing_token_is_a_401_with_the_service_s_code(url: str) -> None:
    async def scenario() -> errors.ServiceAuthError:
        async with AsyncClient(url, retries=3) as client:
            with pytest.raises(errors.ServiceAuthError) as caught:
                await client.next_id()
            return caught.value

    error = asyncio.run(scenario())
    assert (error.status, error.service_code) == (401, "auth_required")


def test_a_dropped_connection_and_a_502_are_retried_a_timeout_is_not() -> None:
    async def take(base: str, **options: float) -> int:
        async with AsyncClient(base, batch=2, **options) as client:  # type: ignore[arg-type]
            return await client.next_id()

    with fake_service([DROP, answer(502, b"")]) as fake:
        assert asyncio.run(take(fake.url, retries=2)) == 1000
        assert len(fake.requests) == 3
    with fake_service([HANG]) as fake:
        with pytest.raises(errors.ServiceTimeoutError):
            asyncio.run(take(fake.url, timeout=0.2, retries=3))
        assert len(fake.requests) == 1
    with pytest.raises(errors.ServiceUnreachableError) as caught:
        asyncio.run(take(f"http://127.0.0.1:{free_port()}", retries=1))
    assert caught.value.attempts == 2


def test_chunked_and_closing_answers_are_read_and_bad_ones_refused() -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b'6\r\n{"ids"\r\n9\r\n:["5","6"\r\n2\r\n]}\r\n0\r\n\r\n'
    )
    closing = answer(200, b'{"ids":["7","8"]}', "Connection: close")
    garbage = b"SPDY/9 ok\r\n\r\n"

    async def scenario() -> list[int]:
        with fake_service([chunked, closing, garbage]) as fake:
            async with AsyncClient(fake.url, batch=2) as client:
                ids = [await client.next_id() for _ in range(4)]
                with pytest.raises(errors.ServiceAnswerError) as caught:
                    await client.next_id()
                assert caught.value.reason == "status"
                return ids

    assert asyncio.run(scenario()) == [5, 6, 7, 8]


def test_a_forked_child_hands_out_none_of_the_parent_s_buffered_ids(url: str) -> None:
    async def scenario() -> tuple[set[int], set[int]]:
        async with AsyncClient(url, token=TOKEN, batch=1000) as client:
            await client.next_id()
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: a loop of its own
                try:

                    async def take() -> list[int]:
                        return list(await asyncio.gather(*(client.next_id() for _ in range(900))))

                    ids = asyncio.new_event_loop().run_until_complete(take())
                    os.write(write, " ".join(map(str, ids)).encode())
                finally:
                    os._exit(0)
            os.close(write)
            parent = {await client.next_id() for _ in range(900)}
            ready, _, _ = select.select([read], [], [], 10.0)  # the harness's wait
            if not ready:
                os.kill(pid, signal.SIGKILL)
            with os.fdopen(read, "rb") as pipe:
                child = {int(word) for word in pipe.read().split()} if ready else set()
            os.waitpid(pid, 0)
            return parent, child

    parent, child = asyncio.run(scenario())
    assert len(child) == 900
    assert not parent & child


def test_one_client_serves_one_loop_after_another(url: str) -> None:
    """``asyncio.run`` twice: the second loop cannot use the first one's connection or
    task; the client starts anew on it and the ids stay fresh."""
    client = AsyncClient(url, token=TOKEN, batch=50)

    async def take(idle_s: float) -> list[int]:
        ids = [await client.next_id() for _ in range(120)]
        await asyncio.sleep(idle_s)  # the refill ends: its connection stays open, idle
        return ids

    # The first loop ends with the connection idle, the second one with a refill in flight.
    first, second = asyncio.run(take(0.3)), asyncio.run(take(0))
    assert len(set(first + second)) == 240
    asyncio.run(client.aclose())


def test_a_closed_client_refuses() -> None:
    async def scenario() -> None:
        client = AsyncClient("http://127.0.0.1:9")
        await client.aclose()
        with pytest.raises(errors.ClientClosedError):
            await client.next_id()

    asyncio.run(scenario())
