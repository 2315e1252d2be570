"""A worker process for the multi-process lease tests (run as a fresh interpreter).

    python -m tests.support.worker --lease URL --out IDS [--log LOG] [--count N]
        [--seconds S] [--until F] [--clock-file F] [--kill-at-write K] [--ready F] [--fork N]

Writes every id as 8 bytes (big endian, unbuffered) to OUT, and every lease event and
error as one JSON line to LOG *before* any id it allows. Stops after N ids or S seconds,
or once the file given to --until exists (a test that waits for something to happen
first, however long a busy machine takes).
SIGTERM exits cleanly (the lease is released at exit). With --fork N the process opens
the lease and the generator first (like gunicorn --preload), then forks N children that
each write to OUT.<i>; the parent only waits.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path

if "faketime" in os.environ.get("LD_PRELOAD", "") and os.environ.get(
    "FAKETIME_DONT_FAKE_MONOTONIC"
):  # libfaketime 0.9.10 then fails time.sleep with EINVAL (tests/generator/
    # test_clock_back_faketime.py): sleep through select instead, for the same time
    import select

    time.sleep = lambda seconds: select.select([], [], [], max(0.0, seconds))  # type: ignore[assignment]

from snowid import Generator
from snowid.errors import SnowIdError
from snowid.lease import LeaseEvent, open_lease
from snowid.testing import OffsetClock


class FileOffsetClock(OffsetClock):
    """The system clock plus an offset (ms) re-read from a control file every 20 ms."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(self._read())
        threading.Thread(target=self._poll, daemon=True).start()

    def _read(self) -> int:
        try:
            return int(Path(self.path).read_text().strip() or 0)
        except (OSError, ValueError):
            return 0

    def _poll(self) -> None:
        while True:
            time.sleep(0.02)
            self.offset_ms = self._read()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lease", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--log", default=None)
    parser.add_argument("--count", type=int, default=10**9)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--clock-file", default=None)
    parser.add_argument("--kill-at-write", type=int, default=0)
    parser.add_argument("--ready", default=None)
    parser.add_argument("--fork", type=int, default=0)
    parser.add_argument("--preclaim", action="store_true", help="issue one id before forking")
    parser.add_argument("--max-wait-ms", type=int, default=200)
    parser.add_argument("--idle", type=float, default=0.0, help="sleep between ids (s)")
    parser.add_argument("--hold", default=None, help="after the ids, wait for this file to exist")
    parser.add_argument("--until", default=None, help="stop issuing once this file exists")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    clock = FileOffsetClock(args.clock_file) if args.clock_file else None
    options: dict[str, object] = {}
    if args.kill_at_write:
        writes = [0]

        def before_sync(record: object) -> None:
            del record
            writes[0] += 1
            if writes[0] >= args.kill_at_write:
                os.kill(os.getpid(), signal.SIGKILL)

        options["before_sync"] = before_sync
    lease = open_lease(args.lease, clock=clock, **options)
    generator = Generator(fence=lease, clock=clock, max_wait_ms=args.max_wait_ms)
    if args.fork:
        if args.preclaim:
            generator.next_id()  # the parent now holds an identity its children inherit
        children = []
        for i in range(args.fork):
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    code = _loop(
                        args, lease, generator, f"{args.out}.{i}", args.log and f"{args.log}.{i}"
                    )
                finally:
                    os._exit(code)
            children.append(pid)
        status = 0
        for pid in children:
            _, code = os.waitpid(pid, 0)
            status |= os.waitstatus_to_exitcode(code)
        return status
    return _loop(args, lease, generator, args.out, args.log)


def _loop(args: argparse.Namespace, lease, generator: Generator, out: str, log: str | None) -> int:  # type: ignore[no-untyped-def]
    out_fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    log_fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600) if log else -1
    log_lock = threading.Lock()

    def note(record: dict[str, object]) -> None:
        if log_fd >= 0:
            record["pid"] = os.getpid()
            record["at"] = time.time_ns() // 1_000_000
            with log_lock:
                os.write(log_fd, (json.dumps(record) + "\n").encode())

    def on_event(event: LeaseEvent) -> None:
        note(
            {
                "kind": event.kind,
                "worker": event.worker,
                "epoch": event.epoch,
                "start": event.start_ms,
                "ceiling": event.ceiling_ms,
                "detail": event.detail,
            }
        )

    lease.listeners.append(on_event)
    deadline = time.monotonic() + args.seconds
    written, errors = 0, 0
    ready = args.ready
    while written < args.count and time.monotonic() < deadline:
        if args.until and written % 64 == 0 and os.path.exists(args.until):
            break
        try:
            value = generator.next_id()
        except SnowIdError as error:
            errors += 1
            note({"kind": "error", "code": error.code, "message": str(error)})
            if args.until and os.path.exists(args.until):
                break  # refused until told to stop (every worker held, say)
            time.sleep(0.05)
            continue
        os.write(out_fd, value.to_bytes(8, "big"))
        written += 1
        if ready:
            Path(ready).write_text(str(os.getpid()))
            ready = None
        if args.idle:
            time.sleep(args.idle)
    note({"kind": "done", "written": written, "errors": errors})
    os.close(out_fd)
    while args.hold and not os.path.exists(args.hold) and time.monotonic() < deadline:
        time.sleep(0.01)
    return 0


if __name__ == "__main__":
    sys.exit(main())
