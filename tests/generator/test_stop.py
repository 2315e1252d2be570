"""The release-at-stop handler (snowid.generate._stop): chained before what is installed,
callbacks first and once, then the handler it wrapped; never off the main thread."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from types import FrameType

import pytest

from snowid.generate import _stop
from snowid.generate._stop import default_action, install_stop_handlers, on_stop, stop_now
from tests.support.process_wide import run_in_child


@pytest.fixture(autouse=True)
def own_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Callbacks of the test's own (the real one would retire this process's leases), and
    SIGTERM/SIGINT handlers restored afterwards."""
    calls: list[str] = []
    monkeypatch.setattr(_stop, "_callbacks", [])
    monkeypatch.setattr(_stop, "_ran_in", [])
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
    on_stop(lambda: calls.append("stop"))
    try:
        yield calls
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def test_the_handler_runs_the_callbacks_then_the_handler_it_wrapped(
    own_state: list[str],
) -> None:
    def server(signum: int, frame: FrameType | None) -> None:
        del frame
        own_state.append(f"server {signum}")

    signal.signal(signal.SIGTERM, server)
    signal.signal(signal.SIGINT, server)
    assert install_stop_handlers()
    signal.raise_signal(signal.SIGTERM)
    signal.raise_signal(signal.SIGINT)  # a second signal: chained on, callbacks not again
    assert own_state == ["stop", f"server {signal.SIGTERM}", f"server {signal.SIGINT}"]


def test_installing_twice_chains_once(own_state: list[str]) -> None:
    signal.signal(signal.SIGTERM, lambda signum, frame: own_state.append("server"))
    install_stop_handlers()
    chained = signal.getsignal(signal.SIGTERM)
    install_stop_handlers()
    assert signal.getsignal(signal.SIGTERM) is chained
    signal.raise_signal(signal.SIGTERM)
    assert own_state == ["stop", "server"]


def test_pythons_own_sigint_and_an_ignored_signal_are_left_alone() -> None:
    """KeyboardInterrupt exits through atexit anyway, and asyncio.run installs its own
    graceful handler only over Python's default; SIG_IGN stays ignored."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    assert not install_stop_handlers()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN


def test_the_default_action_stays_visible_behind_the_handler() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    assert install_stop_handlers()
    assert default_action(signal.SIGTERM)
    signal.signal(signal.SIGTERM, lambda signum, frame: None)
    assert not default_action(signal.SIGTERM)


def test_a_worker_thread_installs_nothing() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    answers: list[bool] = []
    thread = threading.Thread(target=lambda: answers.append(install_stop_handlers()))
    thread.start()
    thread.join()
    assert answers == [False]
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_stop_now_runs_each_callback_once(own_state: list[str]) -> None:
    on_stop(lambda: own_state.append("second"))
    stop_now()
    stop_now()
    assert own_state == ["stop", "second"]


def test_a_failing_callback_does_not_stop_the_others(own_state: list[str]) -> None:
    def broken() -> None:
        raise RuntimeError("store down")

    _stop._callbacks.insert(0, broken)
    stop_now()
    assert own_state == ["stop"]


def _sigterm_in_a_child() -> str:
    """What SIGTERM's handler is in a child forked now: "default", "snowid" or "other"."""

    def look() -> str:
        current = signal.getsignal(signal.SIGTERM)
        if current == signal.SIG_DFL:
            return "default"
        return "snowid" if isinstance(current, _stop._Chained) else "other"

    return run_in_child(look)


def test_a_forked_child_gets_the_default_action_back_from_snowid_s_handler() -> None:
    """Issue 24: a child holds no identity, and a handler written in Python can miss a
    SIGTERM that lands just before the main thread waits (Pool.terminate then hangs);
    the default action cannot. The parent keeps its handler."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    assert install_stop_handlers()
    assert _sigterm_in_a_child() == "default"
    assert isinstance(signal.getsignal(signal.SIGTERM), _stop._Chained)
    assert install_stop_handlers()  # what the child's process-wide generator does
    assert _sigterm_in_a_child() == "default"  # and each child forked after that


def test_a_forked_child_keeps_snowid_s_handler_in_front_of_the_program_s(
    own_state: list[str],
) -> None:
    """A handler of the program's own is written in Python anyway: nothing to gain by
    unchaining, and the child's leases would not be given back at its stop."""
    signal.signal(signal.SIGTERM, lambda signum, frame: own_state.append("server"))
    assert install_stop_handlers()
    assert _sigterm_in_a_child() == "snowid"
