"""Helpers for tests of code that uses snowid: a fake clock, a fixed ceiling and
known-answer vectors.

``FakeClock`` implements the ``Clock`` protocol with time that moves only when told
to: ``advance`` lets time pass (wall and monotonic clocks together), ``set`` and
``step`` move the wall clock alone (an NTP step, a VM resume, an operator's mistake),
and ``sleep``/``asleep`` advance time instead of waiting, so a test of a generator
that waits for the next millisecond never sleeps for real::

    from snowid import Generator
    from snowid.testing import FakeClock

    clock = FakeClock(start_ms=1_700_000_000_000)
    generator = Generator(1, 1, clock=clock)
    first = generator.next_id()
    clock.step(-2)          # the wall clock steps back 2 ms
    assert generator.next_id() > first
"""

from __future__ import annotations

import asyncio
import threading

from snowid.generate._fence import Grant
from snowid.ids._clock import SYSTEM_CLOCK
from snowid.ids._layout import TWITTER, TWITTER_EPOCH_MS
from snowid.ids._parse import to_int

__all__ = [
    "DEFAULT_START_MS",
    "KNOWN_ANSWERS",
    "FakeClock",
    "FixedCeiling",
    "KnownAnswer",
    "OffsetClock",
]

DEFAULT_START_MS = 1_700_000_000_000
"""2023-11-14T22:13:20Z: where a FakeClock starts unless told otherwise."""

_NS_PER_MS = 1_000_000
_MONOTONIC_START_NS = 10**12  # an arbitrary positive boot-clock reading


class FakeClock:
    """A Clock whose time moves only when a test moves it. Thread-safe.

    ``auto_advance_ms`` moves time forward by that much after every ``time_ms`` read,
    for code that loops until the clock changes.
    """

    __slots__ = ("_lock", "_mono_ns", "_wall_ns", "auto_advance_ms", "sleeps")

    def __init__(self, start_ms: int = DEFAULT_START_MS, *, auto_advance_ms: int = 0) -> None:
        self._lock = threading.Lock()
        self._wall_ns = start_ms * _NS_PER_MS
        self._mono_ns = _MONOTONIC_START_NS
        self.auto_advance_ms = auto_advance_ms
        self.sleeps: list[float] = []
        """Every ``sleep``/``asleep`` duration asked for, in seconds, in order."""

    # --- the Clock protocol ---------------------------------------------------

    def time_ms(self) -> int:
        with self._lock:
            now = self._wall_ns // _NS_PER_MS
            if self.auto_advance_ms:
                self._pass_ns(self.auto_advance_ms * _NS_PER_MS)
            return now

    def monotonic_ns(self) -> int:
        with self._lock:
            return self._mono_ns

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` pass at once, without waiting."""
        if seconds < 0:
            raise ValueError("sleep length must be non-negative")
        with self._lock:
            self.sleeps.append(seconds)
            self._pass_ns(round(seconds * 1e9))

    async def asleep(self, seconds: float) -> None:
        """Let ``seconds`` pass, and give the event loop a turn as a real sleep would."""
        self.sleep(seconds)
        await asyncio.sleep(0)

    # --- moving time -----------------------------------------------------------

    def advance(self, ms: int) -> None:
        """Let ``ms`` milliseconds pass: the wall and monotonic clocks both move forward."""
        if ms < 0:
            raise ValueError("time passes forward only; use step() to move the wall clock back")
        with self._lock:
            self._pass_ns(ms * _NS_PER_MS)

    def step(self, ms: int) -> None:
        """Step the wall clock by ``ms`` (negative: back) without time passing."""
        with self._lock:
            self._wall_ns += ms * _NS_PER_MS

    def set(self, ms: int) -> None:
        """Set the wall clock to ``ms`` Unix milliseconds without time passing."""
        with self._lock:
            self._wall_ns = ms * _NS_PER_MS

    def _pass_ns(self, ns: int) -> None:
        self._wall_ns += ns
        self._mono_ns += ns

    def __repr__(self) -> str:
        return f"FakeClock(start_ms={self._wall_ns // _NS_PER_MS})"


class OffsetClock:
    """The real clocks, with the wall clock shifted by ``offset_ms`` (a host whose clock is off).

    For multi-process tests that need real time to pass; ``offset_ms`` may be changed while
    in use to step the clock.
    """

    def __init__(self, offset_ms: int = 0) -> None:
        self.offset_ms = offset_ms

    def time_ms(self) -> int:
        return SYSTEM_CLOCK.time_ms() + self.offset_ms

    def monotonic_ns(self) -> int:
        return SYSTEM_CLOCK.monotonic_ns()

    def sleep(self, seconds: float) -> None:
        SYSTEM_CLOCK.sleep(seconds)

    async def asleep(self, seconds: float) -> None:
        await SYSTEM_CLOCK.asleep(seconds)

    def __repr__(self) -> str:
        return f"OffsetClock({self.offset_ms})"


KnownAnswer = tuple[int, int, int, int, int]
"""(timestamp in Unix ms, datacenter, machine, sequence, id)."""

KNOWN_ANSWERS: tuple[KnownAnswer, ...] = (
    # The seed's worked example: 1000 ms after the epoch, datacenter 1, machine 1.
    (1288834975657, 1, 1, 0, 4194439168),
    # The epoch itself: every field zero is id 0.
    (1288834974657, 0, 0, 0, 0),
    # The epoch with every low field full: the low 22 bits all set.
    (1288834974657, 31, 31, 4095, 4194303),
    # One field at a time, at the epoch.
    (1288834974657, 1, 0, 0, 131072),
    (1288834974657, 0, 1, 0, 4096),
    (1288834974657, 0, 0, 1, 1),
    # A recent instant, 2023-11-14T22:13:20Z, datacenter 3, machine 7, sequence 42.
    (1700000000000, 3, 7, 42, 1724551110456668202),
    # The last millisecond 41 bits hold, 2080-07-10T17:30:30.208Z.
    (3487858230208, 0, 0, 0, 9223372036850581504),
    (3487858230208, 31, 31, 4095, 9223372036854775807),
)
"""Known-answer vectors, each checked by hand arithmetic in snowid's own tests."""


class FixedCeiling:
    """A Fence with a ceiling that never moves: ids get timestamps ``start_ms..ceiling_ms``.

    Bounds a generator with a fixed identity (``Generator(1, 2, fence=FixedCeiling(t))``).
    Used as a generator's only fence it also supplies the identity, ``datacenter`` and
    ``machine`` (default 0 and 0); ``max_lead_ms`` stands in for a lease's, for tests
    of the ``logical`` clock-back policy.
    """

    __slots__ = ("_grant", "ceiling_ms", "max_lead_ms")

    def __init__(
        self,
        ceiling_ms: int,
        *,
        start_ms: int = TWITTER_EPOCH_MS,
        datacenter: int = 0,
        machine: int = 0,
        max_lead_ms: int | None = None,
    ) -> None:
        self.ceiling_ms: int = to_int("ceiling_ms", ceiling_ms)
        self.max_lead_ms = None if max_lead_ms is None else to_int("max_lead_ms", max_lead_ms)
        """What a lease's ``max_lead_ms`` is (None: a ``logical`` policy is refused)."""
        self._grant = Grant(
            datacenter=TWITTER.check_datacenter(to_int("datacenter", datacenter)),
            machine=TWITTER.check_machine(to_int("machine", machine)),
            start_ms=to_int("start_ms", start_ms),
            ceiling_ms=self.ceiling_ms,
        )

    def acquire(self, needed_ms: int) -> Grant:
        del needed_ms
        return self._grant

    async def aacquire(self, needed_ms: int) -> Grant:
        del needed_ms
        return self._grant

    def __repr__(self) -> str:
        g = self._grant
        return (
            f"FixedCeiling({self.ceiling_ms}, start_ms={g.start_ms},"
            f" datacenter={g.datacenter}, machine={g.machine})"
        )
