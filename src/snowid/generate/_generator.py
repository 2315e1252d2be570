"""Generator: the production id generator (thread-safe, fork-aware, asyncio-friendly).

The state machine itself is in ``_gencore`` (closure cells, for speed); this module is
the public face: validation, waiting (sleep, or ``await``), batches, iteration,
statistics and the fork hook.
"""

from __future__ import annotations

import os
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass

from snowid._exceptions import (
    ClockPolicyError,
    EmptyValueError,
    MissingIdentityError,
    OutOfRangeError,
)
from snowid.generate._clockback import DEFAULT_CLOCK_BACK, ClockBack
from snowid.generate._fence import Fence, Grant
from snowid.generate._gencore import Core, NeedGrant, build_core
from snowid.ids import TWITTER, Clock, SnowId, SystemClock, strict_int

__all__ = [
    "DEFAULT_MAX_BACKWARD_MS",
    "DEFAULT_MAX_WAIT_MS",
    "Generator",
    "GeneratorStats",
]

DEFAULT_MAX_BACKWARD_MS = DEFAULT_CLOCK_BACK.ms
"""A clock step back of up to this many ms is ridden out; more raises ClockMovedBackwards
(the default policy, ``ride:5``)."""
DEFAULT_MAX_WAIT_MS = 1000
"""The longest a call waits at a ceiling, or for a fresh grant's start, before it raises."""
_MAX_SETTING_MS = 86_400_000
_SPIN_NS = 100_000
"""Below this the system-clock wait yields instead of sleeping: sleep overshoots by ~60 µs."""


@dataclass(frozen=True, slots=True)
class GeneratorStats:
    """Counters since the generator was created (or since the fork, in a child)."""

    issued: int
    """Ids handed out."""
    sequence_waits: int
    """Milliseconds whose 4096 sequence numbers ran out, so callers waited for the next."""
    clock_backward_events: int
    """Times the clock was seen behind the last timestamp (one per episode)."""
    forward_jumps: int
    """Times the wall clock leapt ahead of the boot clock (followed, and counted)."""
    ceiling_waits: int
    """Times issuing stopped at the fence's ceiling and waited for it to rise."""
    clock_backward_max_ms: int = 0
    """The largest step back of the wall clock seen, in ms (how far it read behind the
    last millisecond issued); 0 if it never stepped back."""
    sequence_wait_ns: int = 0
    """Time spent with the sequence run out, in ns: for each millisecond whose 4096 ids
    ran out, the time from then until the next millisecond began (the callers' own
    scheduling delay beyond it is not counted)."""


class Generator:
    """Issues Twitter-layout ids, each strictly greater than every one it issued before.

    ``Generator(datacenter, machine)`` has a fixed identity; ``Generator(fence=lease)``
    takes its identity from the fence (for example ``snowid.lease.open_lease()``).
    A fence given with a fixed identity only bounds it with a ceiling.

    Thread-safe (one lock). Within a millisecond the sequence counts up; after 4096
    ids a call waits for the next millisecond. A clock that reads earlier than the last
    id is met by ``clock_back`` (a ``ClockBack`` or its spelling, see there): by default
    (``ride:5``) a step back of up to 5 ms is ridden out on the last timestamp and a
    larger one raises ``ClockMovedBackwards`` until the clock catches up;
    ``max_backward_ms=N`` is the older spelling of ``clock_back="ride:N"``. A ``logical``
    clock needs a lease that keeps a high-water mark. At the fence's ceiling a call
    waits up to ``max_wait_ms`` for it to rise, then raises ``CeilingReachedError``.
    In a forked child a fixed identity raises ``ForkedGeneratorError``; a fence is
    asked for a new grant. A fixed identity takes no guard against other processes: that
    none uses it too is the caller's promise (a ``static:`` lease takes one).
    """

    __slots__ = (
        "__weakref__",
        "_aacquire",
        "_acquire",
        "_clock",
        "_clock_back",
        "_core",
        "_fence",
        "_max_wait_ms",
        "_next_snowid",
        "_wait",
        "next_id",
    )

    def __init__(
        self,
        datacenter: int | None = None,
        machine: int | None = None,
        *,
        clock: Clock | None = None,
        fence: Fence | None = None,
        clock_back: ClockBack | str | None = None,
        max_backward_ms: int | None = None,
        max_wait_ms: int = DEFAULT_MAX_WAIT_MS,
    ) -> None:
        identity: tuple[int, int] | None = None
        if datacenter is not None or machine is not None:
            if datacenter is None:
                raise EmptyValueError(field="datacenter", value="")
            if machine is None:
                raise EmptyValueError(field="machine", value="")
            identity = (
                TWITTER.check_datacenter(strict_int("datacenter", datacenter, "Generator()")),
                TWITTER.check_machine(strict_int("machine", machine, "Generator()")),
            )
        elif fence is None:
            raise MissingIdentityError(field="datacenter", value="")
        self._clock_back = _policy(clock_back, max_backward_ms)
        self._clock_back.check_lead(fixed=identity is not None, fence=fence)
        self._max_wait_ms = _setting("max_wait_ms", max_wait_ms)
        if clock is not None and not isinstance(clock, Clock):
            raise TypeError(f"clock must implement snowid.Clock, not {type(clock).__name__}")
        self._clock = clock
        self._fence = fence
        system = clock is None or type(clock) is SystemClock
        # The sync wait, chosen once: next_id's slow path and next_ids both use it.
        self._wait: Callable[[int], None] = _wait_system if system else _clock_wait(clock)
        # A lease that can seal its generators (``Lease.attach_generator``) gives this
        # one its own way to ask for grants; any other fence is asked directly.
        self._acquire: Callable[[int], Grant] | None = None
        self._aacquire: Callable[[int], Awaitable[Grant]] | None = None
        if fence is not None:
            self._acquire, self._aacquire = fence.acquire, fence.aacquire
        attach = getattr(fence, "attach_generator", None)
        attached: list[Callable[[int], Grant]] = []

        def acquire_attached(needed_ms: int) -> Grant:  # bound once the lease answers
            return attached[0](needed_ms)

        self._core: Core = build_core(
            identity=identity,
            fence=fence,
            clock=None if system else clock,
            clock_back=self._clock_back,
            max_wait_ms=self._max_wait_ms,
            wait=self._wait,
            acquire=acquire_attached if attach is not None else None,
        )
        if attach is not None:  # the lease keeps the seal, not this object
            self._acquire, self._aacquire = attach(self._core.seal)
            attached.append(self._acquire)
        # Declared here, not in the class body: a class annotation would be resolved in
        # the public module named by __module__ ("snowid"), where Callable is not defined.
        self.next_id: Callable[[], int] = self._core.next_id
        """The next id (an int). Blocks while the sequence or the ceiling makes it wait."""
        self._next_snowid: Callable[[], SnowId] = self._core.next_snowid
        """The next id as a SnowId, from a run (see ``_gencore``): what ``snowid.next_id``
        calls. Ordered against batches and ``anext_id``, not against ``next_id``."""
        _INSTANCES.add(self)

    def seal(self) -> int:
        """Stop issuing, for good: every later call raises ``GeneratorSealedError``. The
        highest millisecond this generator may have embedded in an id (-1: none). A lease
        seals its generators when it is closed, before it tells the store where the next
        holder may start."""
        last = self._core.seal(-1)
        assert last is not None  # waited for the lock as long as it took
        return last

    # A copy would share the state but not the fork hook, and a pickled generator would
    # come back as a second issuer of the same identity: both are refused.

    def __copy__(self) -> Generator:
        raise TypeError("a Generator cannot be copied: two copies would issue the same ids")

    def __deepcopy__(self, memo: object) -> Generator:
        raise TypeError("a Generator cannot be copied: two copies would issue the same ids")

    def __reduce__(self) -> str | tuple[object, ...]:
        raise TypeError(
            "a Generator cannot be pickled: make one per process, with its own identity"
        )

    # --- batches ----------------------------------------------------------

    def next_ids(self, n: int) -> list[int]:
        """``n`` ids in increasing order, taking whole milliseconds of sequence at once.

        Throughput is the layout's, 4096 ids per millisecond: the call sleeps until each
        next millisecond. If it wakes late, it also uses the milliseconds it missed, so
        an id in a batch may carry a timestamp up to ``clock_back.ride_ms`` behind the clock
        (as an id issued while riding out a backward step may); it is still greater than
        every id issued before. Only a call already running catches up: a call that
        starts after a pause starts at the clock.
        """
        left = count_of(n, "Generator.next_ids()")
        take = self._core.take
        acquire = self._acquire
        wait = self._wait
        out: list[int] = []
        while left:
            first, count = take(left, acquire=acquire, catch_up=bool(out))
            if count > 0:
                out += range(first, first + count)
                left -= count
            else:
                wait(first)
        return out

    # --- iteration --------------------------------------------------------

    def __iter__(self) -> Iterator[int]:
        return self

    def __next__(self) -> int:
        return self.next_id()

    # --- asyncio ----------------------------------------------------------

    async def anext_id(self) -> int:
        """``next_id`` that waits with ``await`` instead of blocking the event loop."""
        return (await self._agrab(1, catch_up=False))[0]

    async def anext_ids(self, n: int) -> list[int]:
        """``next_ids`` that waits with ``await`` instead of blocking the event loop."""
        left = count_of(n, "Generator.anext_ids()")
        out: list[int] = []
        while left:
            chunk = await self._agrab(left, catch_up=bool(out))
            out += chunk
            left -= len(chunk)
        return out

    def __aiter__(self) -> AsyncIterator[int]:
        return self

    async def __anext__(self) -> int:
        return await self.anext_id()

    async def _agrab(self, k: int, *, catch_up: bool) -> range:
        take = self._core.take
        while True:
            try:
                first, count = take(k, acquire=None, catch_up=catch_up)
            except NeedGrant as need:
                assert self._aacquire is not None
                grant = await self._aacquire(need.ms)
                first, count = take(k, acquire=_given(grant), catch_up=catch_up, handed=True)
            if count > 0:
                return range(first, first + count)
            await self._asleep(first)

    # --- waiting ------------------------------------------------------------

    async def _asleep(self, ns: int) -> None:
        clock = self._clock
        if clock is None:
            import asyncio  # only asyncio callers pay for importing it

            await asyncio.sleep(ns / 1e9)
        else:
            await clock.asleep(ns / 1e9)

    # --- introspection ------------------------------------------------------

    @property
    def stats(self) -> GeneratorStats:
        return GeneratorStats(*self._core.counters())

    @property
    def datacenter(self) -> int | None:
        """The datacenter id ids carry now (None before a fence has granted one)."""
        identity = self._core.identity()
        return None if identity is None else identity[0]

    @property
    def machine(self) -> int | None:
        """The machine id ids carry now (None before a fence has granted one)."""
        identity = self._core.identity()
        return None if identity is None else identity[1]

    @property
    def clock_back(self) -> ClockBack:
        """The policy for a clock that reads earlier than the last id."""
        return self._clock_back

    @property
    def max_backward_ms(self) -> int:
        """The largest step back ridden out on the last millisecond: ``ride``'s N, else 0."""
        return self._clock_back.ms if self._clock_back.policy == "ride" else 0

    @property
    def max_wait_ms(self) -> int:
        return self._max_wait_ms

    def __repr__(self) -> str:
        identity = self._core.identity()
        who = "fence" if identity is None else f"datacenter={identity[0]}, machine={identity[1]}"
        return f"<Generator {who} clock_back={self._clock_back}>"


# --- helpers ---------------------------------------------------------------------


def _setting(name: str, value: object) -> int:
    number = strict_int(name, value, "Generator()")
    if not 0 <= number <= _MAX_SETTING_MS:
        raise OutOfRangeError(field=name, value=number, min=0, max=_MAX_SETTING_MS)
    return number


def _policy(clock_back: object, max_backward_ms: object) -> ClockBack:
    """The policy from ``clock_back`` or the older ``max_backward_ms`` (not both)."""
    if max_backward_ms is None:
        return DEFAULT_CLOCK_BACK if clock_back is None else ClockBack.parse(clock_back)
    if clock_back is not None:
        raise ClockPolicyError(value=str(clock_back), reason="both")
    return ClockBack("ride", _setting("max_backward_ms", max_backward_ms))


def count_of(n: object, function: str) -> int:
    """A batch size: an int (an int subclass as its value; not a bool, float or str), >= 0.
    Checked once per batch, never per id."""
    number = strict_int("count", n, function)
    if number < 0:
        raise OutOfRangeError(field="count", value=number, min=0, max="∞")
    return number


def _given(grant: Grant) -> Callable[[int], Grant]:
    """An ``acquire`` that answers with a grant already awaited from ``aacquire``."""

    def acquire(needed_ms: int) -> Grant:
        del needed_ms
        return grant

    return acquire


def _wait_system(ns: int) -> None:
    """Sleep until just before the deadline, then yield: never spins a core for long."""
    if ns > _SPIN_NS:
        time.sleep((ns - _SPIN_NS) / 1e9)
    else:
        time.sleep(0)


def _clock_wait(clock: Clock | None) -> Callable[[int], None]:
    assert clock is not None
    sleep = clock.sleep

    def wait(ns: int) -> None:
        sleep(ns / 1e9)

    return wait


# --- fork ------------------------------------------------------------------------

_INSTANCES: weakref.WeakSet[Generator] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for generator in list(_INSTANCES):
        generator._core.after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


# Reprs, docs and pickles name the public path (snowid.Generator), however the class was
# reached: snowid/__init__ imports this module only on first use.
Generator.__module__ = GeneratorStats.__module__ = "snowid"
