"""Clocks: the wall clock ids embed, injected so tests never sleep or patch ``time``."""

from __future__ import annotations

import time
from typing import Protocol, runtime_checkable

__all__ = ["Clock", "SystemClock"]


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
