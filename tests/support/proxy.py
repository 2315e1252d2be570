"""A small TCP proxy on loopback that can pass, blackhole or reset traffic (a partition).

Runs its own asyncio loop in a daemon thread; ``set_mode`` and ``hold`` are thread-safe.
- pass: bytes flow both ways;
- blackhole: connections stay open but bytes are dropped (no RST: a silent partition);
- reset: every connection is closed and new ones are refused at once.

``hold(rule)`` is a partition between chosen parties, as a network cut looks to TCP: the
connections whose client port ``rule`` picks (now and later ones) stay open and carry
nothing, their bytes kept, not dropped; ``hold(None)`` lets them flow again, in order. A
cluster (tests/support/cluster.py) picks by the process at the other end.

``DelayProxy`` adds a settable one-way latency to pass mode (a slow store).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import weakref
from collections.abc import Callable, Coroutine
from typing import Any

OPEN: weakref.WeakSet[TcpProxy] = weakref.WeakSet()
"""Every proxy not closed yet (tests/support/leftovers.py closes those a test left open)."""

HoldRule = Callable[[int], bool]
"""Given a connection's client port, whether to hold it."""


class _Link:
    """One proxied connection: its client's port and whether its bytes may flow."""

    def __init__(self, client_port: int) -> None:
        self.client_port = client_port
        self.flowing = asyncio.Event()
        self.flowing.set()


class TcpProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.mode = "pass"
        self._loop = asyncio.new_event_loop()
        self._writers: set[asyncio.StreamWriter] = set()
        self._links: dict[asyncio.StreamWriter, _Link] = {}  # each writer -> its connection
        self._rule: HoldRule | None = None
        self._ready = threading.Event()
        self._server: asyncio.AbstractServer | None = None
        self._thread = threading.Thread(target=self._run, name="tcp-proxy", daemon=True)
        self._thread.start()
        self._ready.wait(5)
        assert self._server is not None
        self.port: int = self._server.sockets[0].getsockname()[1]
        OPEN.add(self)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(
            asyncio.start_server(self._handle, "127.0.0.1", 0)
        )
        self._ready.set()
        self._loop.run_forever()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.mode == "reset":
            _abort(writer)
            return
        ends = [writer]
        try:
            try:
                up_reader, up_writer = await asyncio.open_connection(*self.target)
            except OSError:
                _abort(writer)
                return
            ends.append(up_writer)
            link = _Link(_port(writer))
            if self._rule is not None and self._rule(link.client_port):
                link.flowing.clear()
            self._writers.update(ends)
            self._links.update({writer: link, up_writer: link})
            await asyncio.gather(
                self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
            )
        except asyncio.CancelledError:
            # ``close`` cancels every handler of a loop it is ending: end as done, not as
            # cancelled (asyncio 3.11's stream callback asks a cancelled handler for its
            # exception and logs the CancelledError that raises, once per connection)
            pass
        finally:  # also when ``close`` cancels it: no accepted socket is left unclosed
            for w in ends:
                self._writers.discard(w)
                self._links.pop(w, None)
                w.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            await self._send(writer, data)
        writer.close()

    async def _send(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        link = self._links.get(writer)
        if link is not None:
            await link.flowing.wait()  # held: kept until the rule lets it go
        if self.mode == "pass":  # blackhole and reset: dropped
            writer.write(data)
            await writer.drain()

    def set_mode(self, mode: str) -> None:
        assert mode in ("pass", "blackhole", "reset")

        async def apply() -> None:
            self.mode = mode
            if mode == "reset":
                for w in list(self._writers):
                    _abort(w)
                self._writers.clear()

        self._call(apply())

    def hold(self, rule: HoldRule | None) -> None:
        """Hold the connections ``rule`` picks by client port, open ones and new ones;
        ``None``: release every one."""

        async def apply() -> None:
            self._rule = rule
            for link in set(self._links.values()):
                if rule is not None and rule(link.client_port):
                    link.flowing.clear()
                else:
                    link.flowing.set()

        self._call(apply())

    def _call(self, coro: Coroutine[Any, Any, None]) -> None:
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(30)  # a harness wait: a busy loop

    def close(self) -> None:
        if self not in OPEN:  # closed already
            return
        OPEN.discard(self)

        async def stop() -> None:
            if self._server is not None:
                self._server.close()
            for w in list(self._writers):
                _abort(w)

        with contextlib.suppress(Exception):
            self._call(stop())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            tasks = asyncio.all_tasks(self._loop)
            for task in tasks:
                task.cancel()
            with contextlib.suppress(Exception):
                # Each cancelled handler closes its sockets (its ``finally``); the next
                # iteration runs the transports' callbacks that release them.
                # (Not gather() of nothing: outside a loop it makes a new one, never closed.)
                if tasks:
                    self._loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
                self._loop.run_until_complete(asyncio.sleep(0))
            self._loop.close()


def _port(writer: asyncio.StreamWriter) -> int:
    peer = writer.get_extra_info("peername")
    return int(peer[1]) if peer else 0


def _abort(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
    writer.transport.abort()


class DelayProxy(TcpProxy):
    """``TcpProxy`` whose pass mode adds ``delay`` seconds of one-way latency (settable)."""

    def __init__(self, target_host: str, target_port: int, delay: float = 0.0) -> None:
        self.delay = delay
        super().__init__(target_host, target_port)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, data = await queue.get()  # FIFO: a lowered delay never reorders bytes
                if (wait := due - loop.time()) > 0:
                    await asyncio.sleep(wait)
                if not data:
                    break
                await self._send(writer, data)
            writer.close()

        delivery = asyncio.create_task(deliver())
        try:
            while True:
                try:
                    data = await reader.read(65536)
                except OSError:
                    data = b""
                queue.put_nowait((loop.time() + self.delay, data))
                if not data:
                    break
        finally:
            try:
                await delivery
            except (OSError, asyncio.CancelledError):
                writer.close()
