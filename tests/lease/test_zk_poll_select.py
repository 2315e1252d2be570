"""The ZooKeeper session's ``poll_select`` answers as kazoo's own ``selector_select`` does
(issue 27: kazoo's made and closed an epoll selector at each call, several a request), on
real sockets, and runs in the handler kazoo's client is given."""

from __future__ import annotations

import select
import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from snowid.lease._zkconn import Session, poll_select

pytestmark = pytest.mark.skipif(not hasattr(select, "poll"), reason="no poll() here")

Scenario = Callable[[socket.socket, socket.socket], tuple[list[Any], list[Any]]]


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    a, b = socket.socketpair()
    try:
        yield a, b
    finally:
        a.close()
        b.close()


def _idle(a: socket.socket, b: socket.socket) -> tuple[list[Any], list[Any]]:
    return [a], []


def _writable(a: socket.socket, b: socket.socket) -> tuple[list[Any], list[Any]]:
    return [], [a]


def _data_waiting(a: socket.socket, b: socket.socket) -> tuple[list[Any], list[Any]]:
    b.sendall(b"x")
    return [a], []


def _both_ways(a: socket.socket, b: socket.socket) -> tuple[list[Any], list[Any]]:
    b.sendall(b"x")  # readable and writable: kazoo's reports it readable only
    return [a], [a]


def _peer_closed(a: socket.socket, b: socket.socket) -> tuple[list[Any], list[Any]]:
    b.shutdown(socket.SHUT_RDWR)
    return [a], []


def _by_number(a: socket.socket, b: socket.socket) -> tuple[list[Any], list[Any]]:
    b.sendall(b"x")
    return [a.fileno(), b.fileno()], [b.fileno()]


SCENARIOS: dict[str, Scenario] = {
    "nothing to read": _idle,
    "room to write": _writable,
    "data waiting": _data_waiting,
    "ready both ways": _both_ways,
    "peer closed": _peer_closed,
    "file numbers": _by_number,
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_it_answers_as_kazoos_selector_select(
    name: str, pair: tuple[socket.socket, socket.socket]
) -> None:
    from kazoo.handlers.utils import selector_select

    rlist, wlist = SCENARIOS[name](*pair)
    ours = poll_select(rlist, wlist, [], 0.05)
    theirs = selector_select(rlist, wlist, [], 0.05)
    assert [sorted(map(id, found)) for found in ours] == [
        sorted(map(id, found)) for found in theirs
    ]
    if name == "data waiting":
        assert ours[0] == [pair[0]]  # and not vacuously equal: something was found


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
    import time

    start = time.monotonic()
    assert poll_select([pair[0]], [], [], 0.05) == ([], [], [])
    assert time.monotonic() - start >= 0.04  # seconds, not milliseconds


def test_the_session_gives_kazoo_the_poll_handler() -> None:
    session = Session([("127.0.0.1", 1)], session_s=3, timeout=1, connect_timeout=1, store="z")
    try:
        handler = session._client.handler
        assert type(handler).select is not type(handler).__mro__[1].select
        assert handler.select([], [], [], 0) == ([], [], [])
    finally:
        session.close()
