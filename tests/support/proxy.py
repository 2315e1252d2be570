"""A small TCP proxy on loopback that can pass, blackhole or reset traffic (a partition).

Runs its own asyncio loop in a daemon thread; ``set_mode`` is thread-safe.
- pass: bytes flow both ways;
- blackhole: connections stay open but bytes are dropped (no RST: a silent partition);
- reset: every connection is closed and new ones are refused at once.

``DelayProxy`` adds a settable one-way latency to pass mode (a slow store).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Coroutine
from typing import Any


class TcpProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.mode = "pass"
        self._loop = asyncio.new_event_loop()
        self._writers: set[asyncio.StreamWriter] = set()
        self._ready = threading.Event()
        self._server: asyncio.AbstractServer | None = None
        self._thread = threading.Thread(target=self._run, name="tcp-proxy", daemon=True)
        self._thread.start()
        self._ready.wait(5)
        assert self._server is not None
        self.port: int = self._server.sockets[0].getsockname()[1]

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
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            _abort(writer)
            return
        self._writers.update((writer, up_writer))
        await asyncio.gather(
            self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
        )
        for w in (writer, up_writer):
            self._writers.discard(w)
            w.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            await self._send(writer, data)
        writer.close()

    async def _send(self, writer: asyncio.StreamWriter, data: bytes) -> None:
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

    def _call(self, coro: Coroutine[Any, Any, None]) -> None:
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(5)

    def close(self) -> None:
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
            for task in asyncio.all_tasks(self._loop):
                task.cancel()
            with contextlib.suppress(Exception):
                self._loop.run_until_complete(asyncio.sleep(0))
            self._loop.close()


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
