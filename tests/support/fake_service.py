"""A scripted stand-in for ``POST /api/ids`` on a loopback port: what a real server will
not do on demand (drop a connection mid-request, hang, answer garbage, 502).

``FakeService(script)`` answers the n-th request with ``script[n]``: raw bytes (a whole
HTTP answer), ``DROP`` (close the connection without answering) or ``HANG`` (never
answer); once the script is used up, each request gets a good batch of ``count`` fresh
ids (``ok_answer``). ``requests`` counts what arrived.
"""

from __future__ import annotations

import itertools
import socket
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

__all__ = ["DROP", "HANG", "FakeService", "answer", "fake_service", "ok_answer"]

DROP = "drop"
HANG = "hang"
Step = bytes | str


def answer(status: int, body: bytes, *headers: str) -> bytes:
    head = [f"HTTP/1.1 {status} X", f"Content-Length: {len(body)}", *headers]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def ok_answer(ids: Sequence[int]) -> bytes:
    return answer(200, b'{"ids":["' + '","'.join(map(str, ids)).encode() + b'"]}')


class FakeService:
    def __init__(self, script: Sequence[Step] = ()) -> None:
        self.script = list(script)
        self.requests: list[bytes] = []
        self._ids = itertools.count(1000)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._talk, args=(conn,), daemon=True).start()

    def _talk(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while not self._stop.is_set():
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, _, data = data.partition(b"\r\n\r\n")
                with self._lock:
                    index = len(self.requests)
                    self.requests.append(head)
                step = self.script[index] if index < len(self.script) else None
                if step == DROP:
                    return
                if step == HANG:
                    self._stop.wait()
                    return
                if isinstance(step, bytes):
                    conn.sendall(step)
                    continue
                count = int(head.split(b"count=")[1].split(b" ")[0])
                conn.sendall(ok_answer([next(self._ids) for _ in range(count)]))

    def close(self) -> None:
        self._stop.set()
        self._listener.close()


@contextmanager
def fake_service(script: Sequence[Step] = ()) -> Iterator[FakeService]:
    service = FakeService(script)
    try:
        yield service
    finally:
        service.close()
