"""Release at stop: what runs on the first SIGTERM/SIGINT, under any application server.

Servers such as uvicorn install their own SIGTERM/SIGINT handlers, and after a graceful
shutdown restore the default action and raise the signal again: the process dies by the
signal, so ``atexit`` never runs and a lease would stay held for its TTL. Instead of
relying on exit, snowid chains a handler in front of whatever handler is installed: on
the signal it runs the stop callbacks (the lease layer registers one that gives every
store lease back at once, see ``Lease.retire``) and then calls the handler it wrapped,
so the server's own shutdown runs exactly as before. Requests still in flight keep
issuing inside the grant already held, which a successor always starts above.

This is the one release-at-stop mechanism: ``snowid serve``'s drain, or anything else
that knows the process is stopping, calls :func:`stop_now` instead of building its own.

- :func:`on_stop` registers a callback (each runs at most once per process).
- :func:`install_stop_handlers` chains the handler, from the main thread only (Python
  runs signal handlers there; a worker thread cannot install one, so the process-wide
  generator calls it when snowid is imported and again when it is configured or
  started on the main thread). SIGTERM is chained whatever its handler (the default
  action is taken again afterwards, so the process still dies by the signal); SIGINT
  only when a program installed its own handler: Python's default raises
  KeyboardInterrupt, and the exit that follows runs ``atexit`` anyway, while asyncio's
  ``run`` installs its own graceful handler only over that default.
- :func:`stop_now` runs the callbacks now (idempotent).

A handler installed from C (``getsignal`` returns None) or ignored (SIG_IGN) is left
alone. A forked child keeps the chained handler and its callbacks run for its own leases.
One difference from the bare default action: Python runs a handler between bytecodes of
the main thread, so a main thread blocked in C code that never checks for signals delays
the exit until it returns (the blocking calls of the standard library do check).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable
from types import FrameType

__all__ = ["default_action", "install_stop_handlers", "on_stop", "stop_now"]

_Handler = Callable[[int, FrameType | None], object] | int | None

STOP_WAIT_S = 5.0
"""How long the signal handler waits for the stop callbacks before chaining on."""

_callbacks: list[Callable[[], None]] = []
_ran_in: list[int] = []
"""The pid that ran the callbacks (a forked child runs them again for its own leases)."""
_lock = threading.Lock()


def on_stop(callback: Callable[[], None]) -> None:
    """Run ``callback`` once when the process is told to stop (signal or ``stop_now``)."""
    with _lock:
        if callback not in _callbacks:
            _callbacks.append(callback)


def stop_now() -> None:
    """Run the stop callbacks now, once per process; later calls do nothing.

    Safe from a signal handler (a callback never waits for a lock that the interrupted
    code might hold: see ``Lease.retire``) and from any thread.
    """
    pid = os.getpid()
    if _ran_in and _ran_in[0] == pid:
        return
    _ran_in[:] = [pid]
    for callback in list(_callbacks):
        with contextlib.suppress(Exception):  # a stopping process keeps stopping
            callback()


class _Chained:
    """The handler snowid installs: stop callbacks first, then the handler it wrapped."""

    __slots__ = ("previous",)

    def __init__(self, previous: _Handler) -> None:
        self.previous = previous

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        # In a thread: the interrupted main thread may hold a lease's (reentrant) lock
        # in the middle of an operation; waiting a bounded time keeps the server's own
        # shutdown from being held up by a store that does not answer.
        helper = threading.Thread(target=stop_now, name="snowid-stop", daemon=True)
        try:
            helper.start()
        except RuntimeError:  # no new thread at interpreter shutdown: run it here
            stop_now()
        else:
            helper.join(STOP_WAIT_S)
        previous = self.previous
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL:
            # Die by the signal as before (exit status, core policy): default, raise again.
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)


def install_stop_handlers() -> bool:
    """Chain the stop handler before SIGTERM's (and a program's SIGINT) handler.

    Only on the main thread; a handler already chained is not chained twice. True if
    SIGTERM carries the stop handler afterwards.
    """
    if threading.current_thread() is not threading.main_thread():
        return False
    for signum in (signal.SIGTERM, signal.SIGINT):
        current = signal.getsignal(signum)
        if current is None or current == signal.SIG_IGN or isinstance(current, _Chained):
            continue
        if signum == signal.SIGINT and current is signal.default_int_handler:
            continue
        signal.signal(signum, _Chained(current))
    return isinstance(signal.getsignal(signal.SIGTERM), _Chained)


def default_action(signum: int) -> bool:
    """Whether ``signum`` still takes its default action (maybe behind the stop handler)."""
    current = signal.getsignal(signum)
    if isinstance(current, _Chained):
        current = current.previous
    return current == signal.SIG_DFL


# The identity goes back to the lease store on the first SIGTERM/SIGINT under any
# application server: installed when this module is imported (``import snowid`` does),
# which servers do on the main thread while loading the app, as the first id may be
# drawn in a worker thread, where a handler cannot be installed.
install_stop_handlers()
