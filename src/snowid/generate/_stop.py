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
alone.

The cost of a handler written in Python, compared with the default action: Python runs it
between bytecodes of the main thread, and a blocking call looks for one only when the
signal interrupts its wait. A signal that arrives after the main thread's last look and
before it starts to wait (a window of a few microseconds, wider on a busy machine or while
another thread holds the GIL) is noted, and nothing runs it until that wait ends by
itself, which may be never: ``multiprocessing.Pool.terminate()`` sends one SIGTERM to
workers waiting on a lock it keeps, and joins them. So a forked child, which holds no
identity yet (the lease layer drops the parent's in the child), gets SIGTERM's default
action back when snowid's handler stood only in front of it (:func:`_after_fork_in_child`);
the process-wide generator chains it again when the child configures or starts one on its
main thread, and a program that uses a lease directly in a child calls
:func:`install_stop_handlers` there. A handler of the program's own behind snowid's stays
chained in the child: it already has that cost.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable
from types import FrameType

__all__ = ["default_action", "install_stop_handlers", "on_final_stop", "on_stop", "stop_now"]

_Handler = Callable[[int, FrameType | None], object] | int | None

STOP_WAIT_S = 5.0
"""How long the signal handler waits for the stop callbacks before chaining on."""

_callbacks: list[Callable[[], None]] = []
_finals: list[Callable[[], None]] = []
_ran_in: list[int] = []
"""The pid that ran the callbacks (a forked child runs them again for its own leases)."""
_lock = threading.Lock()


def on_stop(callback: Callable[[], None]) -> None:
    """Run ``callback`` once when the process is told to stop (signal or ``stop_now``)."""
    with _lock:
        if callback not in _callbacks:
            _callbacks.append(callback)


def on_final_stop(callback: Callable[[], None]) -> None:
    """Run ``callback`` after the stop callbacks when the signal's default action follows
    at once (SIGTERM with no handler of the program's own behind snowid's): nothing in the
    process runs after it, so it may end what a server would still need (the lease layer
    closes every lease, sealing its generators: a clean hand-over)."""
    with _lock:
        if callback not in _finals:
            _finals.append(callback)


def _stop_finally() -> None:
    stop_now()
    for callback in list(_finals):
        with contextlib.suppress(Exception):  # a stopping process keeps stopping
            callback()


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
        previous = self.previous
        final = previous == signal.SIG_DFL  # the process dies right after: close all
        target = _stop_finally if final else stop_now
        helper = threading.Thread(target=target, name="snowid-stop", daemon=True)
        try:
            helper.start()
        except RuntimeError:  # no new thread at interpreter shutdown: run it here
            target()
        else:
            helper.join(STOP_WAIT_S)
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


def _after_fork_in_child() -> None:
    """In a forked child: SIGTERM's default action back, if only snowid's handler stood in
    front of it (the child has nothing to give back yet; see the module docstring)."""
    current = signal.getsignal(signal.SIGTERM)
    if isinstance(current, _Chained) and current.previous == signal.SIG_DFL:
        with contextlib.suppress(ValueError):  # a subinterpreter's fork: left as it was
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


# The identity goes back to the lease store on the first SIGTERM/SIGINT under any
# application server: installed when this module is imported (``import snowid`` does),
# which servers do on the main thread while loading the app, as the first id may be
# drawn in a worker thread, where a handler cannot be installed.
install_stop_handlers()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
