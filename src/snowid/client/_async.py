"""``AsyncClient``: the asyncio twin of ``Client``, on asyncio streams.

The same double buffer: while one batch is handed out, a task fetches the next. Callers
that find the buffer empty all wait on that one task (shielded: a cancelled caller does
not cancel the fetch others wait for); the first back takes the batch into use.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import time
from collections.abc import Iterator
from operator import length_hint
from types import TracebackType

from snowid.client import _fork, _wire
from snowid.client._exceptions import (
    AnswerReason,
    ClientClosedError,
    ServiceAnswerError,
    ServiceTimeoutError,
    ServiceUnreachableError,
)

__all__ = ["AsyncClient"]

_HEAD_END = b"\r\n\r\n"
_YIELD_MASK = 511
_Streams = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class _Answer:
    __slots__ = ("body", "close", "retry_after", "status")

    def __init__(self, status: int, retry_after: str | None, body: bytes, close: bool) -> None:
        self.status, self.retry_after, self.body, self.close = status, retry_after, body, close


class AsyncClient:
    """Ids from a snowid id service, one by one, for asyncio code.

    Takes the same arguments as ``snowid.client.Client`` (see there and docs/client.md);
    ``timeout`` bounds the connect and each whole request; ``max_age_ms`` bounds how long
    after its arrival a batch is handed out, as ``Client``'s does (what is left then is
    dropped and counted in ``dropped``; the next call finds it aged, no timer runs), with no
    batch fetched ahead and requests sized by the last batch's use. The tasks of one event
    loop may share it; a client used on a new loop (``asyncio.run`` again) drops the old loop's
    connection and refill and starts anew there. ``await client.aclose()`` (or ``async
    with``) closes the connection. After
    ``os.fork()`` the child starts with an empty buffer of its own.
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
        self._where = _wire.endpoint(url, token, count)
        self._request = self._where.request_bytes()
        self._batch, self._timeout, self._retries = count, seconds, tries
        self._max_age_ns = None if age is None else age * 1_000_000
        self._closed = False
        self._fetched = self._dropped = 0  # ids received; ids dropped unused for their age
        self.after_fork()
        _fork.track(self)

    def after_fork(self) -> None:
        """An empty buffer, no task and no connection: also the child's state after a fork."""
        self._ids: Iterator[int] = iter(())
        self._loop: asyncio.AbstractEventLoop | None = None  # where the task and streams live
        self._task: asyncio.Task[list[int]] | None = None
        self._streams: _Streams | None = None
        # Time-bounded batches: the batch in use (0: none, or retired), when it ages out
        # (monotonic ns), when the last fetched batch arrived, and the next request's size.
        self._size = self._deadline = self._arrived = 0
        self._count = self._batch if self._max_age_ns is None else 1

    @property
    def url(self) -> str:
        return self._where.url

    @property
    def fetched(self) -> int:
        """Ids received from the service (since creation)."""
        return self._fetched

    @property
    def dropped(self) -> int:
        """Ids dropped unused because their batch outlived ``max_age_ms`` (0 without it)."""
        return self._dropped

    async def next_id(self) -> int:
        """A fresh id, never handed out before; a ``snowid.errors.ServiceError`` when no
        batch could be had (the next call tries again)."""
        if self._max_age_ns is not None and self._size and time.monotonic_ns() >= self._deadline:
            self._expire()
        value = next(self._ids, None)
        if value is None:
            value = await self._advance()
        elif not value & _YIELD_MASK and self._task is not None:
            # A caller taking ids in a tight loop never lets the loop run the refill until
            # the batch is used up; about every 512th id it gets a turn.
            await asyncio.sleep(0)
        return value

    def _expire(self) -> None:
        """Time-bounded: the batch in use reached its deadline; drop what is left of it and
        ask next for a quarter more than were used."""
        left = length_hint(self._ids)
        self._ids = iter(())
        self._dropped += left
        used = self._size - left
        self._count = min(used + used // 4 + 1, self._batch)
        self._size = 0

    async def _advance(self) -> int:
        bounded = self._max_age_ns is not None
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a new loop (asyncio.run again): the old one's are dead
            if self._streams is not None:
                _abandon(self._streams[1])
            self._loop, self._task, self._streams = loop, None, None
        while True:
            if self._closed:
                raise ClientClosedError(url=self._where.url)
            if bounded and self._size:  # used up before its deadline: ask for twice as many
                self._count, self._size = min(self._size * 2, self._batch), 0
            task = self._task
            if task is None:
                task = self._task = loop.create_task(self._fetch())
            try:
                batch = await asyncio.shield(task)
            except asyncio.CancelledError:
                raise
            except Exception:
                if self._task is task:
                    self._task = None  # the next call fetches again
                raise
            if self._task is task and not self._take(batch, loop):
                continue  # it aged out before its turn: fetch another
            value = next(self._ids, None)
            if value is not None:
                return value

    def _take(self, batch: list[int], loop: asyncio.AbstractEventLoop) -> bool:
        """The first caller back takes the fetched batch into use: unbounded, the next
        fetch starts at once; time-bounded, a batch that aged out before its turn is
        dropped whole (and the next request halved): False."""
        self._task = None
        if self._max_age_ns is None:
            self._ids = iter(batch)
            if not self._closed:
                self._task = loop.create_task(self._fetch())
            return True
        deadline = self._arrived + self._max_age_ns
        if time.monotonic_ns() >= deadline:
            self._dropped += len(batch)
            self._count = max(self._count // 2, 1)
            return False
        self._ids, self._size, self._deadline = iter(batch), len(batch), deadline
        return True

    async def _fetch(self) -> list[int]:
        """One batch, retrying what is safe to retry (docs/client.md)."""
        count = self._count
        request = (
            self._request
            if count == self._batch
            else self._where.request_bytes(self._where.target_for(count))
        )
        batch = await self._fetch_one(request, count)
        self._fetched += len(batch)
        self._arrived = time.monotonic_ns()
        return batch

    async def _fetch_one(self, request: bytes, count: int) -> list[int]:
        where = self._where
        for attempt in range(self._retries + 1):
            last = attempt == self._retries
            reused = self._streams is not None
            try:
                answer = await asyncio.wait_for(self._exchange(request), self._timeout)
            except TimeoutError:
                self._drop()
                raise ServiceTimeoutError(url=where.url, timeout=self._timeout) from None
            except asyncio.CancelledError:  # the answer may still come: never read it later
                self._drop()
                raise
            except (OSError, asyncio.IncompleteReadError) as error:
                self._drop()
                if last:
                    reason = getattr(error, "strerror", None) or type(error).__name__
                    raise ServiceUnreachableError(
                        url=where.url, reason=reason, attempts=attempt + 1
                    ) from None
                if not reused:  # a kept-alive connection the server closed: at once
                    await asyncio.sleep(_wire.pause_s(attempt, None))
                continue
            if answer.close:
                self._drop()
            if answer.status == 200:
                return _wire.read_ids(answer.body, count, where.url)
            if answer.status not in _wire.RETRIED_STATUSES or last:
                raise _wire.refusal(answer.status, answer.body, where.url, attempt + 1)
            await asyncio.sleep(_wire.pause_s(attempt, answer.retry_after))
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    async def _exchange(self, request: bytes) -> _Answer:
        streams = self._streams
        if streams is None:
            where = self._where
            context = ssl.create_default_context() if where.tls else None
            streams = self._streams = await asyncio.open_connection(
                where.host, where.port, ssl=context
            )
        reader, writer = streams
        writer.write(request)
        await writer.drain()
        try:
            head = await reader.readuntil(_HEAD_END)
        except asyncio.LimitOverrunError:
            raise self._bad("headers", b"") from None
        status, headers = self._head(head)
        if headers.get("transfer-encoding", "").lower() == "chunked":
            try:
                body = await _chunked(reader)
            except ValueError:  # a chunk size that is not hexadecimal
                raise self._bad("headers", b"transfer-encoding: chunked") from None
        elif "content-length" in headers:
            length = headers["content-length"]
            if not length.isdigit():
                raise self._bad("headers", length.encode())
            body = await reader.readexactly(int(length))
        else:
            body, headers["connection"] = await reader.read(), "close"
        close = headers.get("connection", "").lower() == "close"
        return _Answer(status, headers.get("retry-after"), body, close)

    def _head(self, head: bytes) -> tuple[int, dict[str, str]]:
        lines = head.decode("latin-1").split("\r\n")
        version, _, rest = lines[0].partition(" ")
        code = rest[:3]
        if not version.startswith("HTTP/1.") or not code.isdigit():
            raise self._bad("status", lines[0].encode("latin-1"))
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, colon, value = line.partition(":")
            if colon:
                headers[name.strip().lower()] = value.strip()
        return int(code), headers

    def _bad(self, reason: AnswerReason, detail: bytes) -> ServiceAnswerError:
        self._drop()
        shown = detail[:60].decode("latin-1")
        return ServiceAnswerError(url=self._where.url, reason=reason, detail=shown)

    def _drop(self) -> None:
        streams, self._streams = self._streams, None
        if streams is not None:
            streams[1].close()

    async def aclose(self) -> None:
        """Stop the refill and close the connection; buffered ids are dropped."""
        self._closed = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        self._ids = iter(())
        streams, self._streams = self._streams, None
        if streams is not None:
            streams[1].close()
            with contextlib.suppress(OSError):
                await streams[1].wait_closed()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        age = "" if self._max_age_ns is None else f", max_age_ms={self._max_age_ns // 1_000_000}"
        return f"snowid.client.AsyncClient({self.url!r}, batch={self._batch}{age})"


def _abandon(writer: asyncio.StreamWriter) -> None:
    """Close the socket of a connection whose event loop is closed: ``writer.close()``
    would need that loop, and a socket left to the garbage collector warns."""
    transport = writer.transport
    if not transport.get_extra_info("peername") or transport.is_closing():
        return
    # asyncio's selector transport (uvloop's has no _sock: its socket is left to the GC).
    sock = getattr(transport, "_sock", None)
    if isinstance(sock, socket.socket):
        sock.close()
        # So that neither the transport's nor the writer's __del__ reaches for the old loop.
        transport._sock = None  # type: ignore[attr-defined]
        transport._closing = True  # type: ignore[attr-defined]


async def _chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";")[0].strip() or b"0", 16)
        if size == 0:
            await reader.readuntil(b"\r\n")  # no trailers from the service
            return b"".join(parts)
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
