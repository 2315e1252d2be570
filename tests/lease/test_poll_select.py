"""``_poll.poll_select`` (issue 27: kazoo's handler made and closed an epoll selector at each
wait, several a request): on real sockets it gives the answer each case calls for, and the
same as kazoo's own ``selector_select``; the ZooKeeper session's kazoo handler waits with
it, and the etcd gateway finds with it a kept-alive connection its member closed."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from snowid.lease import _etcdgw, _zkconn
from snowid.lease._poll import HAVE_POLL, poll_select

pytestmark = pytest.mark.skipif(not HAVE_POLL, reason="no poll() here")

Lists = tuple[list[Any], list[Any]]
Case = Callable[[socket.socket, socket.socket], tuple[Lists, Lists]]
"""Given a connected pair (a, b): (rlist, wlist) to ask about, and (readable, writable)."""


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    a, b = socket.socketpair()
    try:
        yield a, b
    finally:
        a.close()
        b.close()


def _idle(a: socket.socket, b: socket.socket) -> tuple[Lists, Lists]:
    return ([a], []), ([], [])


def _writable(a: socket.socket, b: socket.socket) -> tuple[Lists, Lists]:
    return ([], [a]), ([], [a])


def _data_waiting(a: socket.socket, b: socket.socket) -> tuple[Lists, Lists]:
    b.sendall(b"x")
    return ([a, b], []), ([a], [])


def _both_ways(a: socket.socket, b: socket.socket) -> tuple[Lists, Lists]:
    b.sendall(b"x")  # readable and writable: reported readable only, once per asking
    return ([a], [a]), ([a, a], [])


def _peer_closed(a: socket.socket, b: socket.socket) -> tuple[Lists, Lists]:
    b.shutdown(socket.SHUT_RDWR)  # the end of the connection reads as readable
    return ([a], []), ([a], [])


def _by_number(a: socket.socket, b: socket.socket) -> tuple[Lists, Lists]:
    b.sendall(b"x")  # b asked about both ways, writable only: in wlist, once per asking
    return ([a.fileno(), b.fileno()], [b.fileno()]), ([a.fileno()], [b.fileno(), b.fileno()])


CASES: dict[str, Case] = {
    "nothing to read": _idle,
    "room to write": _writable,
    "data waiting": _data_waiting,
    "ready both ways": _both_ways,
    "peer closed": _peer_closed,
    "file numbers": _by_number,
}


def _same(found: tuple[list[Any], list[Any], list[Any]], expected: Lists) -> bool:
    return [sorted(map(id, f)) for f in found] == [sorted(map(id, e)) for e in (*expected, [])]


@pytest.mark.parametrize("name", list(CASES))
def test_it_answers_as_each_case_calls_for_and_as_kazoo_does(
    name: str, pair: tuple[socket.socket, socket.socket]
) -> None:
    from kazoo.handlers.utils import selector_select

    (rlist, wlist), expected = CASES[name](*pair)
    assert _same(poll_select(rlist, wlist, [], 0.05), expected)
    assert _same(selector_select(rlist, wlist, [], 0.05), expected)


def test_a_closed_socket_a_negative_or_a_wrong_timeout_is_refused(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    a, b = pair
    b.close()
    with pytest.raises(ValueError, match="Invalid event mask or fd"):
        poll_select([b], [], [], 0)
    with pytest.raises(ValueError, match="non-negative"):
        poll_select([a], [], [], -1)
    with pytest.raises(TypeError, match="must be a number"):
        poll_select([a], [], [], "1")  # type: ignore[arg-type]


def test_it_waits_up_to_the_timeout_when_nothing_happens(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    start = time.monotonic()
    assert poll_select([pair[0]], [], [], 0.05) == ([], [], [])
    assert time.monotonic() - start >= 0.04  # seconds, not milliseconds


def _recorded(monkeypatch: pytest.MonkeyPatch, module: Any) -> list[Any]:
    calls: list[Any] = []

    def recording(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return poll_select(*args, **kwargs)

    monkeypatch.setattr(module, "poll_select", recording)
    return calls


def test_the_zookeeper_session_gives_kazoo_a_handler_that_waits_with_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _recorded(monkeypatch, _zkconn)
    session = _zkconn.Session(
        [("127.0.0.1", 1)], session_s=3, timeout=1, connect_timeout=1, store="z"
    )
    try:
        assert session._client.handler.select([], [], [], 0) == ([], [], [])
        assert calls == [([], [], [], 0)]
    finally:
        session.close()


def test_the_etcd_gateway_sees_a_connection_closed_by_its_peer(
    pair: tuple[socket.socket, socket.socket], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _recorded(monkeypatch, _etcdgw)
    a, b = pair
    assert not _etcdgw._dropped(a)
    b.close()
    assert _etcdgw._dropped(a)
    assert len(calls) == 2
