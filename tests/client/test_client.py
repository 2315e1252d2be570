"""``snowid.client.Client`` against the real service (in this process, on a loopback port)
and against a scripted one for what a real server will not do on demand."""

from __future__ import annotations

import os
import select
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from starlette.types import ASGIApp, Receive, Scope, Send

from snowid import SnowId, errors
from snowid.client import Client
from snowid.errors import LeaseError
from snowid.i18n import translate
from snowid.web import IdService, Settings, create_app
from tests.support.fake_service import DROP, HANG, answer, fake_service
from tests.support.web import fixed_identity_service, free_port, serving

TOKEN = "client-test-token"


class Counted:
    """The app, counting the POST /api/ids requests that reach it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app, self.posts = app, 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == "/api/ids":
            self.posts += 1
        await self.app(scope, receive, send)


def wait_until(done: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not done():
        assert time.monotonic() < deadline, "the harness waited too long"
        time.sleep(0.005)


@pytest.fixture(scope="module")
def service() -> Iterator[tuple[str, Counted]]:
    app = Counted(create_app(Settings(max_count=4096), service=fixed_identity_service(3, 7)))
    with serving(app) as url:
        yield url, app


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tokens = tmp_path_factory.mktemp("auth") / "tokens"
    tokens.write_text(f"{TOKEN}\n")
    settings = Settings(max_count=4096, auth_token_file=str(tokens))
    with serving(create_app(settings, service=fixed_identity_service(2, 5))) as url:
        yield url


def test_ids_are_fresh_increasing_and_from_the_service_s_identity(
    service: tuple[str, Counted],
) -> None:
    url, _ = service
    with Client(url, batch=1000) as client:
        ids = [client.next_id() for _ in range(5500)]  # six batches
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    parts = {(SnowId(i).datacenter, SnowId(i).machine) for i in ids}
    assert parts == {(3, 7)}


def test_the_next_batch_is_fetched_while_the_first_is_handed_out(
    service: tuple[str, Counted],
) -> None:
    """The double buffer: once a batch is taken into use, the next is fetched without the
    caller asking, and no further one until that spare is taken into use in turn."""
    url, app = service
    with Client(url, batch=100) as client:
        before = app.posts
        client.next_id()  # batch 1 in use: batch 2 is fetched in the background
        wait_until(lambda: app.posts == before + 2)
        for _ in range(99):
            client.next_id()  # the rest of batch 1
        time.sleep(0.05)
        assert app.posts == before + 2  # one in use, one spare: no more
        client.next_id()  # batch 2 in use: batch 3 is fetched
        wait_until(lambda: app.posts == before + 3)


def test_threads_share_one_client_and_never_get_the_same_id(
    service: tuple[str, Counted],
) -> None:
    url, _ = service
    taken: list[list[int]] = [[] for _ in range(4)]
    with Client(url, batch=256) as client:

        def work(out: list[int]) -> None:
            for _ in range(5000):
                out.append(client.next_id())

        threads = [threading.Thread(target=work, args=(out,)) for out in taken]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    every = [i for out in taken for i in out]
    assert len(every) == 20000 == len(set(every))
    assert all(out == sorted(out) for out in taken)


def test_a_forked_child_hands_out_none_of_the_parent_s_buffered_ids(
    service: tuple[str, Counted],
) -> None:
    """After the fork the parent's next 900 ids are still in its buffer; a child sharing
    that buffer would hand out the very same 900. It must fetch a batch of its own."""
    url, _ = service
    with Client(url, batch=1000) as client:
        client.next_id()  # the buffer now holds 999 ids, and a spare batch is coming
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            try:
                ids = [client.next_id() for _ in range(900)]
                os.write(write, " ".join(map(str, ids)).encode())
            finally:
                os._exit(0)
        os.close(write)
        parent = {client.next_id() for _ in range(900)}
        ready, _, _ = select.select([read], [], [], 10.0)  # the harness's wait
        if not ready:  # a child stuck on a buffer it does not own: end it
            os.kill(pid, signal.SIGKILL)
        with os.fdopen(read, "rb") as pipe:
            child = {int(word) for word in pipe.read().split()} if ready else set()
        _, status = os.waitpid(pid, 0)
    assert status == 0
    assert len(child) == 900
    assert not parent & child


def test_a_token_is_sent_and_a_missing_or_wrong_one_is_told_apart(guarded: str) -> None:
    with Client(guarded, token=TOKEN) as client:
        assert SnowId(client.next_id()).machine == 5
    for token, code in ((None, "auth_required"), ("wrong", "auth_invalid")):
        with (
            Client(guarded, token=token, retries=3) as client,
            pytest.raises(errors.ServiceAuthError) as caught,
        ):
            client.next_id()
        assert (caught.value.status, caught.value.service_code) == (401, code)
        hint = translate(f"web.error.{code}", "en")
        assert str(caught.value).endswith(f": {hint}")  # the service's words, whole


def test_a_batch_over_the_server_s_limit_gets_the_server_s_message(
    service: tuple[str, Counted],
) -> None:
    url, app = service
    with Client(url, batch=5000, retries=3) as client:
        before = app.posts
        with pytest.raises(errors.ServiceRefusedError) as caught:
            client.next_id()
    error = caught.value
    assert (error.status, error.service_code) == (422, "out_of_range")
    assert "5000" in error.service_message
    assert "1..4096" in error.service_message
    assert app.posts == before + 1  # a refusal is not retried


def test_503_is_retried_after_retry_after_and_then_reported(tmp_path: Path) -> None:
    def no_identity() -> tuple[object, None]:
        raise errors.NoFreeIdentityError(first=0, last=0, store=str(tmp_path))

    app = Counted(create_app(Settings(), service=IdService(no_identity)))  # type: ignore[arg-type]
    with serving(app) as url, Client(url, retries=1) as client:
        started = time.monotonic()
        with pytest.raises(errors.ServiceUnavailableError) as caught:
            client.next_id()
        waited = time.monotonic() - started
    assert isinstance(caught.value, errors.ServiceRefusedError)
    assert (caught.value.status, caught.value.service_code) == (503, "no_free_identity")
    assert caught.value.attempts == 2
    assert app.posts == 2
    assert waited >= 1.0  # the service's Retry-After: 1


def test_connection_refused_is_retried_then_reported_and_the_next_call_tries_again() -> None:
    port = free_port()  # nothing listens there
    with Client(f"http://127.0.0.1:{port}", retries=2) as client:
        with pytest.raises(errors.ServiceUnreachableError) as caught:
            client.next_id()
        assert caught.value.attempts == 3
        assert isinstance(caught.value, ConnectionError)
        with pytest.raises(errors.ServiceUnreachableError):
            client.next_id()  # not stuck on the old error: a new fetch, failing again


def test_a_connection_dropped_before_the_answer_is_retried() -> None:
    """No answer arrived, so no id of that request can be handed out twice: re-sending
    can at worst leave that batch unused (the service never issues an id twice)."""
    with fake_service([DROP, answer(502, b"bad gateway")]) as fake:
        with Client(fake.url, batch=3, retries=2) as client:
            assert client.next_id() == 1000
        assert len(fake.requests) == 3


def test_a_timeout_is_not_retried() -> None:
    with fake_service([HANG]) as fake, Client(fake.url, timeout=0.2, retries=3) as client:
        with pytest.raises(errors.ServiceTimeoutError) as caught:
            client.next_id()
        assert isinstance(caught.value, TimeoutError)
        assert len(fake.requests) == 1


def test_a_malformed_answer_is_reported_and_no_id_of_it_handed_out() -> None:
    script = [answer(200, b'{"ids":["1","2"]}'), answer(200, b'{"ids":["5","6","7"]}')]
    with fake_service(script) as fake, Client(fake.url, batch=3) as client:
        with pytest.raises(errors.ServiceAnswerError) as caught:
            client.next_id()
        assert (caught.value.reason, caught.value.detail, caught.value.count) == ("count", "2", 3)
        assert [client.next_id() for _ in range(3)] == [5, 6, 7]


def test_an_answer_that_is_not_http_is_reported_not_retried() -> None:
    with fake_service([b"SPDY/9 ok\r\n\r\n"]) as fake, Client(fake.url, retries=3) as client:
        with pytest.raises(errors.ServiceAnswerError) as caught:
            client.next_id()
        assert caught.value.reason == "status"
        assert len(fake.requests) == 1


def test_a_closed_client_refuses_and_says_so(service: tuple[str, Counted]) -> None:
    url, _ = service
    client = Client(url)
    client.next_id()
    client.close()
    with pytest.raises(errors.ClientClosedError) as caught:
        client.next_id()
    assert url in str(caught.value)


def test_a_dropped_client_stops_its_refill_thread(service: tuple[str, Counted]) -> None:
    url, _ = service
    client = Client(url)
    client.next_id()
    threads = [t for t in threading.enumerate() if t.name == "snowid-client-refill"]
    assert threads
    del client
    for thread in threads:
        thread.join(10)
        assert not thread.is_alive()


def test_lease_error_is_a_snowid_error_the_client_never_confuses() -> None:
    """The service's lease errors reach the client only as codes: ServiceError is its own
    branch of SnowIdError, not a LeaseError."""
    assert not issubclass(errors.ServiceUnavailableError, LeaseError)
    assert issubclass(errors.ServiceError, errors.SnowIdError)
