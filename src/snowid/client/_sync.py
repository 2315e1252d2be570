"""``Client``: ids from a snowid service, handed out one by one from a double buffer.

One batch is handed out while a refill thread fetches the next (Leaf's double buffer): the
fetch starts as soon as a batch is taken into use, so with a batch lasting longer than one
request the caller never waits after the first id. The buffer and the thread live in a
``_Pump`` the client owns; the thread holds only the pump, so dropping the client stops it.
"""

from __future__ import annotations

import http.client
import os
import ssl
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from operator import length_hint
from types import TracebackType

from snowid.client import _fork, _wire
from snowid.client._exceptions import (
    ClientClosedError,
    ServiceAnswerError,
    ServiceTimeoutError,
    ServiceUnreachableError,
)

__all__ = ["Client"]

_GIL: bool = getattr(sys, "_is_gil_enabled", lambda: True)()
# Answers http.client cannot read: not retried, as the asyncio client does not retry them
# either (RemoteDisconnected is one too, but a closed connection: that one is retried).
_MALFORMED = (http.client.BadStatusLine, http.client.LineTooLong, http.client.UnknownProtocol)


class _Pump:
    """The state a Client shares with its refill thread; ``lock`` guards all of it.

    With ``max_age_ns`` (time-bounded batches) a batch is handed out only until that long
    after it arrived: the refill thread, idle, wakes at the deadline and drops what is left
    (swapping ``ids`` for an empty iterator, one store, so the lock-free ``next_id`` stops
    at once); a spare that aged out before use is dropped too. No spare is fetched ahead
    (it would age while the current batch is used), and each request asks for what the
    last batch's use says the next one needs: twice as many when a batch ran out before
    its deadline, a quarter more than were used when one aged out, at most ``batch``."""

    def __init__(
        self,
        where: _wire.Endpoint,
        batch: int,
        timeout: float,
        retries: int,
        max_age_ms: int | None = None,
    ) -> None:
        self.where, self.batch, self.timeout, self.retries = where, batch, timeout, retries
        self.max_age_ns = None if max_age_ms is None else max_age_ms * 1_000_000
        self.connection: http.client.HTTPConnection | None = None
        self.thread: threading.Thread | None = None
        self.closed = False
        self.fetched = self.dropped = 0  # ids received; ids dropped unused for their age
        self.after_fork()

    def after_fork(self) -> None:
        """A fresh, empty buffer: also the child's state after os.fork()."""
        self.lock = threading.Lock()
        self.ready = threading.Condition(self.lock)
        self.ids: Iterator[int] = iter(())
        self.spare: list[int] | None = None  # the next batch, once fetched
        self.error: BaseException | None = None  # why the last fetch failed
        self.wanted = True  # a fetch is asked for
        self.fetching = False
        self.thread = None  # the parent's thread does not exist here
        self.connection = None  # the parent's socket: dropped, never used by the child
        self.size = 0  # ids in the batch in use (time-bounded: 0 once it is retired)
        self.deadline = self.spare_deadline = 0  # monotonic ns (time-bounded batches)
        self.count = self.batch if self.max_age_ns is None else 1  # the next request's

    # --- the caller's side, with ``lock`` held --------------------------------------------

    def advance(self) -> int:
        """The next id once the current batch is used up: take the spare batch, waiting
        for the refill thread if it is still on its way."""
        if self.error is not None and not self.fetching and not self.wanted:
            self.error, self.wanted = None, True  # a new call: try again
            self.ready.notify_all()
        if self.thread is None and not self.closed:
            self.thread = threading.Thread(
                target=_refill, args=(self,), name="snowid-client-refill", daemon=True
            )
            self.thread.start()
        bounded = self.max_age_ns is not None
        while True:
            value = next(self.ids, None)  # another caller may have taken the spare
            if value is not None:
                return value
            if self.closed:
                raise ClientClosedError(url=self.where.url)
            if bounded and self.size:  # used up before its deadline: ask for more
                self.count = min(self.size * 2, self.batch)
                self.size = 0
            spare = self.spare
            if spare is not None:
                self.spare = None
                if bounded and time.monotonic_ns() >= self.spare_deadline:
                    self.dropped += len(spare)  # aged out before its turn
                    self.count = max(self.count // 2, 1)
                    spare = None
                else:
                    self.ids = iter(spare)
                    self.size, self.deadline = len(spare), self.spare_deadline
                    # Unbounded, the refill starts now, long before this one runs dry;
                    # bounded, the thread is woken to watch the new deadline.
                    self.wanted = not bounded
                    self.ready.notify_all()
                    continue
            if bounded and not self.fetching and not self.wanted and self.error is None:
                self.wanted = True
                self.ready.notify_all()
            if self.error is not None:
                raise self.error
            self.ready.wait()

    def expire(self) -> None:
        """Time-bounded: the batch in use reached its deadline; drop what is left of it."""
        left = length_hint(self.ids)
        self.ids = iter(())  # one store: the lock-free next_id sees the empty one next
        self.dropped += left
        used = self.size - left
        self.count = min(max(used + used // 4 + 1, 1), self.batch)
        self.size = 0

    # --- the refill thread's side, without the lock -------------------------------------

    def fetch(self, count: int) -> list[int]:
        """One batch of ``count`` ids, retrying what is safe to retry (docs/client.md)."""
        where = self.where
        target = where.target if count == self.batch else where.target_for(count)
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            reused = self.connection is not None
            try:
                status, retry_after, body = self._exchange(target)
            except TimeoutError:
                self._drop()
                raise ServiceTimeoutError(url=where.url, timeout=self.timeout) from None
            except (OSError, http.client.HTTPException) as error:
                self._drop()
                if isinstance(error, _MALFORMED) and not isinstance(error, ConnectionError):
                    detail = str(error)[:60]
                    raise ServiceAnswerError(
                        url=where.url, reason="status", detail=detail
                    ) from None
                if last:
                    reason = _reason(error)
                    raise ServiceUnreachableError(
                        url=where.url, reason=reason, attempts=attempt + 1
                    ) from None
                if not reused:  # a kept-alive connection the server closed: at once
                    time.sleep(_wire.pause_s(attempt, None))
                continue
            if status == 200:
                return _wire.read_ids(body, count, where.url)
            if status not in _wire.RETRIED_STATUSES or last:
                raise _wire.refusal(status, body, where.url, attempt + 1)
            time.sleep(_wire.pause_s(attempt, retry_after))
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _exchange(self, target: str) -> tuple[int, str | None, bytes]:
        connection = self.connection
        if connection is None:
            connection = self.connection = self._connect()
        where = self.where
        connection.request("POST", target, headers=dict(where.headers))
        response = connection.getresponse()
        body = response.read()
        if response.will_close:
            self._drop()
        return response.status, response.getheader("Retry-After"), body

    def _connect(self) -> http.client.HTTPConnection:
        where = self.where
        if where.tls:
            context = ssl.create_default_context()
            return http.client.HTTPSConnection(
                where.host, where.port, timeout=self.timeout, context=context
            )
        return http.client.HTTPConnection(where.host, where.port, timeout=self.timeout)

    def _drop(self) -> None:
        connection, self.connection = self.connection, None
        if connection is not None:
            connection.close()

    def close(self) -> None:
        with self.lock:
            self.closed = True
            self.ids, self.spare = iter(()), None  # dropped: never handed out
            self.ready.notify_all()
            thread = self.thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(self.timeout * (self.retries + 1) + _wire.pause_s(self.retries, None))
        self._drop()


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return type(error).__name__


def _refill(pump: _Pump) -> None:
    """The refill thread: fetch a batch whenever one is wanted, until the pump closes."""
    pid = os.getpid()
    bounded = pump.max_age_ns is not None
    while True:
        with pump.ready:
            while not pump.wanted and not pump.closed:
                if bounded and pump.size:  # a batch in use: wake at its deadline
                    wait_ns = pump.deadline - time.monotonic_ns()
                    if wait_ns <= 0:
                        pump.expire()
                        continue
                    pump.ready.wait(wait_ns / 1e9)
                else:
                    pump.ready.wait()
            if pump.closed:
                return
            pump.wanted, pump.fetching = False, True
            count = pump.count
        batch: list[int] | None = None
        error: BaseException | None = None
        try:
            batch = pump.fetch(count)
        except Exception as caught:  # every failure reaches the waiting caller
            error = caught
        if os.getpid() != pid:  # pragma: no cover - a thread does not survive a fork
            return
        with pump.ready:
            pump.fetching = False
            if batch is not None:
                pump.spare = batch
                pump.fetched += len(batch)
                if bounded:
                    assert pump.max_age_ns is not None
                    pump.spare_deadline = time.monotonic_ns() + pump.max_age_ns
            else:
                pump.error = error
            pump.ready.notify_all()


class Client:
    """Ids from a snowid id service (``snowid serve``), one by one, from batches.

    ``url`` is the service's base URL (``http://127.0.0.1:8000``; ``https`` and a path
    prefix work too), ``token`` its bearer token when it was started with
    ``--auth-token-file``. Each request asks for ``batch`` ids (1..1,000,000; the server
    allows up to its ``--max-count``, 4,096 by default); ``timeout`` bounds each connect
    and each read, in seconds; ``retries`` is how many more tries a failed fetch gets when
    retrying is safe (see docs/client.md). The first ``next_id()`` waits for the first
    batch; after that a refill thread fetches the next batch while this one is handed out.

    ``max_age_ms`` (1..60,000; None: no bound) bounds how long after its arrival a batch
    is handed out: what is left then is dropped (``dropped`` counts it), no batch is
    fetched ahead, and each request asks for about what the last batch's use says is
    needed (at most ``batch``). Keys then carry about the time they are used, which keeps
    a database's primary-key index dense when many clients insert (docs/keys.md).

    Thread-safe; after ``os.fork()`` the child starts with an empty buffer of its own.
    ``close()`` (or ``with Client(...)``) stops the thread and the connection; ids still
    buffered are dropped, never handed out elsewhere.
    """

    def __init__(
        self,
        url: str = "http://127.0.0.1:8000",
        *,
        token: str | None = None,
        batch: int = 4096,
        timeout: float = 5.0,
        retries: int = 3,
        max_age_ms: int | None = None,
    ) -> None:
        count, seconds, tries = _wire.check_settings(batch, timeout, retries)
        age = _wire.check_max_age(max_age_ms)
        self._pump = _Pump(_wire.endpoint(url, token, count), count, seconds, tries, age)
        _fork.track(self._pump)
        # Dropping the client stops its thread; at exit the daemon thread just ends.
        weakref.finalize(self, self._pump.close).atexit = False

    @property
    def url(self) -> str:
        return self._pump.where.url

    @property
    def fetched(self) -> int:
        """Ids received from the service (since creation, or the fork, in a child)."""
        return self._pump.fetched

    @property
    def dropped(self) -> int:
        """Ids dropped unused because their batch outlived ``max_age_ms`` (0 without it)."""
        return self._pump.dropped

    def _next_with_gil(self) -> int:
        """A fresh id, never handed out before by this client or any other.

        Raises a ``snowid.errors.ServiceError`` when no batch could be had (the next call
        tries again), ``ClientClosedError`` after ``close()``."""
        # With the GIL, one step of a list iterator is atomic: two threads never get one
        # id, and the lock is needed only to switch batches.
        pump = self._pump
        value = next(pump.ids, None)
        if value is None:
            with pump.lock:
                value = pump.advance()
        return value

    def _next_locked(self) -> int:
        """A fresh id, never handed out before by this client or any other.

        Raises a ``snowid.errors.ServiceError`` when no batch could be had (the next call
        tries again), ``ClientClosedError`` after ``close()``."""
        pump = self._pump
        with pump.lock:  # free-threaded Python: no GIL makes the iterator's step atomic
            value = next(pump.ids, None)
            if value is None:
                value = pump.advance()
            return value

    next_id = _next_with_gil if _GIL else _next_locked

    def close(self) -> None:
        """Stop the refill thread and close the connection; buffered ids are dropped."""
        self._pump.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        pump = self._pump
        age = "" if pump.max_age_ns is None else f", max_age_ms={pump.max_age_ns // 1_000_000}"
        return f"snowid.client.Client({self.url!r}, batch={pump.batch}{age})"
