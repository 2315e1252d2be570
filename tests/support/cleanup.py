"""One cleanup path for everything a test (or a benchmark) starts: servers, proxies,
clusters, worker processes, leases.

A ``Cleanup`` is a stack of undo steps run last-in first-out, each once, every one of them
even when an earlier one raises (the first error is raised after the rest ran). Nothing here
needs pytest: a benchmark writes ``with Cleanup() as cleanup:`` and hands ``cleanup`` to
what it starts. Under pytest the ``cleanup`` fixture (tests/conftest.py) is a Cleanup that
runs in the test's teardown, pass or fail, and ``session_cleanup`` one that runs when the
session (an xdist worker's) ends.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Callable
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any, TypeVar

T = TypeVar("T")


class Cleanup:
    """Undo steps, run LIFO by ``close()`` (or at the end of a ``with`` block)."""

    def __init__(self) -> None:
        self._steps: list[tuple[str, Callable[[], object]]] = []

    def add(self, step: Callable[[], object], what: str = "") -> None:
        """Run ``step()`` at the close (``what`` names it in an error)."""
        self._steps.append((what or getattr(step, "__qualname__", repr(step)), step))

    def enter(self, manager: AbstractContextManager[T]) -> T:
        """Enter ``manager`` now and exit it at the close; what it gave."""
        value = manager.__enter__()
        self.add(lambda: manager.__exit__(None, None, None), type(manager).__qualname__)
        return value

    def process(self, proc: subprocess.Popen[Any], grace: float = 5.0) -> subprocess.Popen[Any]:
        """End ``proc`` at the close if it still runs: SIGTERM, SIGKILL after ``grace`` s."""
        self.add(lambda: stop_process(proc, grace), f"process {proc.pid}")
        return proc

    def close(self) -> None:
        """Run every step, newest first; then raise the first error, if any."""
        first: BaseException | None = None
        while self._steps:
            what, step = self._steps.pop()
            try:
                step()
            except BaseException as error:  # the rest still run
                if first is None:
                    first = error
                    error.add_note(f"while cleaning up: {what}")
        if first is not None:
            raise first

    def __len__(self) -> int:
        return len(self._steps)

    def __enter__(self) -> Cleanup:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if error is None:
            self.close()
        else:  # the body's error is the one to see; a cleanup error must not hide it
            with contextlib.suppress(Exception):
                self.close()


def stop_process(proc: subprocess.Popen[Any], grace: float = 5.0) -> None:
    """SIGTERM, then SIGKILL after ``grace`` s; reaped either way, its pipes closed."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            proc.wait(30)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()
