"""Clocks: the wall clock ids embed, injected so tests never sleep or patch ``time``."""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable

__all__ = ["Clock", "SystemClock", "wall_lead_ms"]


@runtime_checkable
class Clock(Protocol):
    """What the generator and the lease layer need from time.

    ``time_ms`` is the wall clock in Unix milliseconds (it may step back or jump);
    ``monotonic_ns`` never steps back and counts suspend where the OS allows
    (``CLOCK_BOOTTIME``); ``sleep``/``asleep`` wait that many seconds.
    """

    def time_ms(self) -> int: ...

    def monotonic_ns(self) -> int: ...

    def sleep(self, seconds: float) -> None: ...

    async def asleep(self, seconds: float) -> None: ...


_BOOTTIME = getattr(time, "CLOCK_BOOTTIME", None)


class SystemClock:
    """The real clocks of this machine."""

    __slots__ = ()

    def time_ms(self) -> int:
        return time.time_ns() // 1_000_000

    def monotonic_ns(self) -> int:
        if _BOOTTIME is not None:
            return time.clock_gettime_ns(_BOOTTIME)
        return time.monotonic_ns()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    async def asleep(self, seconds: float) -> None:
        import asyncio  # asyncio costs 25 ms at import; most users never await

        await asyncio.sleep(seconds)

    def __repr__(self) -> str:
        return "SystemClock()"


SYSTEM_CLOCK = SystemClock()


def wall_lead_ms(ref_ms: int, ref_mono_ns: int, wall_ms: int, mono_ns: int) -> int:
    """How far the wall clock ran ahead of the boot clock since a reference, in ms.

    NTP may slew the wall clock by up to 0.05%; 1 ms per second of boot-clock progress is
    allowed for that, so only a step shows. The generator counts forward jumps with it and
    the file lease keeps a stepped clock out of its persisted high-water mark.
    """
    boot_ms = (mono_ns - ref_mono_ns) // 1_000_000
    return (wall_ms - ref_ms) - boot_ms - boot_ms // 1000
