"""Graceful drain: what a server process does between the first SIGTERM/SIGINT and its exit.

A load balancer needs a moment to see that a process is going away. So under
``snowid serve`` (uvicorn, one process or ``--workers N``: each worker does the same)
the app puts :class:`Drain` in front of the server's own SIGTERM and SIGINT handlers
while its lifespan runs, and on the first of those signals:

1. at once, ``IdService.draining`` is set: ``/readyz`` answers 503 (``"draining": true``)
   and ``snowid_ready`` reads 0, while every other route, ``POST /api/ids`` included,
   answers as before: the socket stays open;
2. ``drain_seconds`` later, the identity is given back through the one release-at-stop
   mechanism (``snowid.generate.stop_now``, in a thread: it may wait on the store), and
   the server's own handler runs: uvicorn stops accepting, closes the socket and lets the
   requests in flight finish (within :data:`STOP_GRACE_S`, its
   ``timeout_graceful_shutdown``); they still get ids, inside the grant already held;
3. at the lifespan's end, :meth:`Drain.close` waits for that release and closes the lease,
   both within :data:`RELEASE_WAIT_S`; when they do not finish in time, the store did not
   take the identity back (``Lease.release_error``: unreachable, or the row changed hands)
   or closing raises, the error is logged and :func:`release_failed` says so (a worker of
   ``--workers N`` also leaves a report in the metrics directory: :func:`failed_workers`),
   which ``snowid serve`` turns into exit code 1.

A second SIGINT during the drain ends it at once (Ctrl-C twice), and one more goes to the
server's own handler (uvicorn: force the exit). A repeated SIGTERM is ignored: systemd's
default control-group kill and the ``--workers`` parent each send one to a worker. The
process then exits as uvicorn makes it: by the first signal raised again (SIGTERM), or 0
after SIGINT.

The whole stop is bounded: ``drain_seconds`` + 0.1 s (uvicorn notices the stop at its
next tick) + :data:`STOP_GRACE_S` + :data:`RELEASE_WAIT_S` + the interpreter's exit.

Nothing is wrapped off the main thread (signal handlers live there: a test client that
runs the app in a thread gets no drain), nor when the signal has no handler of the
program's own (the default action, SIG_IGN, Python's KeyboardInterrupt handler).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType

from snowid.generate import stop_now
from snowid.i18n import detect_lang, translate
from snowid.web._service import IdService

__all__ = ["RELEASE_WAIT_S", "STOP_GRACE_S", "Drain", "failed_workers", "release_failed"]

LOGGER = logging.getLogger("snowid.serve")

STOP_GRACE_S = 5
"""After the drain, how long requests in flight may take to finish (uvicorn's
``timeout_graceful_shutdown``); those still running then are cancelled."""

RELEASE_WAIT_S = 5.0
"""At the lifespan's end, how long giving the identity back and closing the lease may take."""

_Handler = Callable[[int, FrameType | None], object]

_failed_in: list[int] = []
"""The pid whose release failed (a forked child does not inherit the failure)."""


_MARK = "release-failed."
"""The report a worker leaves in ``report_dir`` (the metrics directory of ``--workers N``)."""


def release_failed() -> bool:
    """Whether this process failed to give its identity back at its lifespan's end."""
    return os.getpid() in _failed_in


def failed_workers(report_dir: str | None) -> list[int]:
    """The pids of the worker processes that reported a failed release in ``report_dir``;
    the reports are removed (read once)."""
    if report_dir is None:
        return []
    failed: list[int] = []
    for report in sorted(Path(report_dir).glob(f"{_MARK}*")):
        pid = report.name.removeprefix(_MARK)
        if pid.isdigit():
            failed.append(int(pid))
            report.unlink(missing_ok=True)
    return failed


class Drain:
    """One process's drain: readiness off at the first SIGTERM/SIGINT, the server's stop
    ``seconds`` later (0: at once). See the module docstring."""

    def __init__(self, service: IdService, seconds: float, report_dir: str | None = None) -> None:
        self.service = service
        self.seconds = seconds
        self.report_dir = report_dir
        """Where a failed release is reported for the parent of ``--workers N``."""
        self.signalled: int | None = None
        """The signal that started the drain (None: no stop signal seen)."""
        self._previous: dict[int, _Handler] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._stopping = False
        self._release: threading.Thread | None = None

    def install(self) -> bool:
        """Put the drain in front of the program's SIGTERM and SIGINT handlers; from the
        event loop's thread, which must be the main thread. True if any was wrapped."""
        if threading.current_thread() is not threading.main_thread():
            return False
        self._loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            current = signal.getsignal(signum)
            if callable(current) and current is not signal.default_int_handler:
                self._previous[signum] = current
                signal.signal(signum, self._on_signal)
        return bool(self._previous)

    def uninstall(self) -> None:
        """Give the handlers wrapped back (those still ours; main thread only)."""
        if threading.current_thread() is not threading.main_thread():
            return
        for signum, previous in self._previous.items():
            if signal.getsignal(signum) == self._on_signal:
                signal.signal(signum, previous)
        self._previous.clear()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        # A signal handler: only flags here; the rest runs as event-loop callbacks.
        loop = self._loop
        assert loop is not None
        if self.signalled is None:
            self.signalled = signum
            self.service.draining = True  # /readyz answers 503 from the next request on
            loop.call_soon_threadsafe(self._begin, signum, frame)
        elif self._stopping:
            previous = self._previous.get(signum)
            if previous is not None:
                previous(signum, frame)  # the server's own: a second Ctrl-C forces the exit
        elif signum == signal.SIGINT:
            loop.call_soon_threadsafe(self._stop, frame)

    def _begin(self, signum: int, frame: FrameType | None) -> None:
        assert self._loop is not None
        name = signal.Signals(signum).name
        LOGGER.info(
            translate(
                "web.serve.draining",
                detect_lang(),
                pid=os.getpid(),
                signal=name,
                seconds=f"{self.seconds:g}",
            )
        )
        self._timer = self._loop.call_later(self.seconds, self._stop, frame)

    def _stop(self, frame: FrameType | None) -> None:
        """The drain is over: give the identity back and let the server stop."""
        if self._stopping or self.signalled is None:
            return
        self._stopping = True
        if self._timer is not None:
            self._timer.cancel()
        self._start_release()
        previous = self._previous.get(self.signalled)
        if previous is not None:
            previous(self.signalled, frame)

    def _start_release(self) -> None:
        if self._release is None:
            self._release = threading.Thread(
                target=stop_now, name="snowid-drain-release", daemon=True
            )
            self._release.start()

    async def close(self) -> bool:
        """At the lifespan's end: the handlers back, the release (after a stop signal)
        and the lease closed, within RELEASE_WAIT_S. False, logged, when that failed."""
        self.uninstall()
        deadline = time.monotonic() + RELEASE_WAIT_S
        in_time = True
        if self.signalled is not None:
            self._start_release()
            assert self._release is not None
            in_time = await _join(self._release, deadline)
        errors: list[Exception] = []

        def close_service() -> None:
            try:
                self.service.close()
            except Exception as error:  # reported below; the stop goes on
                errors.append(error)

        closer = threading.Thread(target=close_service, name="snowid-drain-close", daemon=True)
        closer.start()
        in_time = in_time and await _join(closer, deadline)
        refused = self.service.release_error
        if in_time and not errors and refused is None:
            return True
        _failed_in[:] = [os.getpid()]
        lang, pid = detect_lang(), os.getpid()
        if self.report_dir is not None:
            with contextlib.suppress(OSError):  # the log line below says it anyway
                (Path(self.report_dir) / f"{_MARK}{pid}").touch()
        if not in_time:
            message = translate("web.serve.release_timeout", lang, pid=pid, seconds=RELEASE_WAIT_S)
        else:
            why = refused.message(lang) if refused is not None else type(errors[0]).__name__
            message = translate("web.serve.release_error", lang, pid=pid, error=why)
        LOGGER.error(message)
        return False


async def _join(thread: threading.Thread, deadline: float) -> bool:
    """Wait for ``thread`` without blocking the event loop, until ``deadline`` at most."""
    while thread.is_alive():
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.01)
    return True
