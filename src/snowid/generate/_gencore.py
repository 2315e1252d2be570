"""The generator's state machine: one lock, closure cells, a hot path of three comparisons.

The state lives in closure cells rather than on an object: reading and writing a cell
is the cheapest state access CPython offers, and ``next_id`` is called millions of
times a second. Everything that is not "one more id in the millisecond we are already
in" goes through ``grab`` (still under the lock), which never sleeps: it returns how
long to wait and the caller waits *outside* the lock, with ``time.sleep`` or
``await clock.asleep``.

Invariants, whatever the clock does:

* ``last`` is the highest millisecond this generator has embedded (or ``start - 1``
  of a fresh grant); ids at ``last`` are ``base .. lim`` and ``nxt`` is the next one.
  A new millisecond is entered only when the clock reads ``t > last``, so ids only grow.
* ``t`` is embedded only when ``start_ms <= t <= ceiling`` of the current grant
  (the ceiling is checked on entering a millisecond; ids inside one are below it).
* The hot path issues only while a clock reading is inside ``[lo, hi)``, the
  nanoseconds of ``last``; a clock that steps back falls out of it and into ``grab``.
* An id's timestamp is the clock's millisecond, or at most ``max_backward_ms`` behind
  it (a running batch taking milliseconds it missed), or ahead of it only while the clock
  is behind ``last``: by at most ``max_backward_ms`` (``ride``) or ``back_ms``
  (``logical``); ``raise`` and ``wait`` never issue ahead of the clock.
* The clock-back policy (``ClockBack``) decides what happens while the clock reads
  earlier than ``last``: ``ride`` and ``raise`` (``ride`` with 0) in ``grab``, ``wait``
  and ``logical`` in ``behind_clock``. A logical millisecond above the clock is entered
  only below the ceiling of the grant settled last, and never asks the fence for more:
  only the wall clock extends a grant.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from operator import length_hint
from typing import NamedTuple, Protocol

from snowid._exceptions import (
    CeilingReachedError,
    ClockMovedBackwards,
    EndOfTimeError,
    ForkedGeneratorError,
    GeneratorSealedError,
    TimestampAfterEndError,
    TimestampBeforeEpochError,
)
from snowid.generate._clockback import ClockBack
from snowid.generate._fence import Fence, Grant
from snowid.ids import SYSTEM_CLOCK, TWITTER, Clock, SnowId, wall_lead_ms

NS_PER_MS = 1_000_000
CEILING_POLL_MS = 5
"""How often a generator stopped at its ceiling asks the fence again."""
FORWARD_JUMP_MIN_MS = 5
"""Wall-clock progress beyond boot-clock progress by more than this counts as a forward jump."""
MAX_RUN = 256
"""The most SnowIds ``next_snowid`` makes at once (~30 µs; at most that wasted per ms)."""
_GIL: bool = getattr(sys, "_is_gil_enabled", lambda: True)()
_EMPTY: Iterator[SnowId] = iter(())
_from_int = SnowId._from_int
_from_ints = SnowId._from_ints
_TIMESTAMP_OF = TWITTER.timestamp_of


class NeedGrant(Exception):  # noqa: N818 - a signal between the core and its caller, not an error
    """``take`` without ``acquire`` found that millisecond ``ms`` needs a grant first: the
    caller gets one (``await fence.aacquire(ms)``) and hands it back (``handed=True``)."""

    def __init__(self, ms: int) -> None:
        super().__init__(ms)
        self.ms = ms


class Take(Protocol):
    """``take(k, acquire=…, catch_up=…, handed=…)``, under the lock: ``(first, count)``
    with ``1 <= count <= k`` ids ``first .. first+count-1``, or ``(wait_ns, 0)`` to wait.
    ``acquire`` None: raise ``NeedGrant`` when a grant is needed. ``catch_up`` (inside a
    batch that is already running) fills milliseconds the batch missed, up to
    ``max_backward_ms`` behind the clock, before the current one. ``handed``: ``acquire``
    hands back a grant the caller already holds; it is settled whatever the fence's
    ceiling says."""

    def __call__(
        self,
        k: int,
        *,
        acquire: Callable[[int], Grant] | None,
        catch_up: bool = False,
        handed: bool = False,
    ) -> tuple[int, int]: ...


_EPOCH = TWITTER.epoch_ms
_MAX_TS = TWITTER.max_timestamp
_PER_MS = TWITTER.max_sequence + 1
_MS_IDS = TWITTER.millisecond_ids  # the bit maths is _layout's; bound once, used once per ms

Counters = tuple[int, int, int, int, int, int, int]
"""issued, sequence_waits, clock_backward_events, forward_jumps, ceiling_waits,
clock_backward_max_ms, sequence_wait_ns."""


def _clock_error(t: int) -> EndOfTimeError | TimestampBeforeEpochError | TimestampAfterEndError:
    """Why a clock reading ``t`` (Unix ms) cannot be embedded in an id."""
    if t > _MAX_TS:
        return EndOfTimeError(timestamp=t, max=_MAX_TS)
    return TWITTER.time_error(t)  # a clock before 2010 is a broken clock


class Core(NamedTuple):
    """The closures that share one generator's state."""

    next_id: Callable[[], int]
    """One id, or ``take(1, ...)`` semantics when it cannot issue on the hot path."""
    next_snowid: Callable[[], SnowId]
    """One id as a ``SnowId``, from a run of them (see ``build_core``): for
    ``snowid.next_id``. Ordered against ``take`` (batches, asyncio), not against
    ``next_id``: a generator is used through one or the other."""
    take: Take
    """A batch of ids, or what to do first (see ``Take``)."""
    counters: Callable[[], Counters]
    identity: Callable[[], tuple[int, int] | None]
    after_fork: Callable[[], None]
    seal: Callable[[float], int | None]
    """``seal(timeout)``: stop for good (every later call raises GeneratorSealedError);
    the highest millisecond this generator may have embedded (-1: none). Takes the
    generator's lock (waiting ``timeout`` s at most, -1: as long as it takes; None when
    it could not: nothing changed), so an id being issued on another thread is counted,
    and none is issued after."""


def build_core(  # noqa: PLR0915 - one closure scope holds the whole state machine
    *,
    identity: tuple[int, int] | None,
    fence: Fence | None,
    clock: Clock | None,
    clock_back: ClockBack,
    max_wait_ms: int,
    wait: Callable[[int], None],
    acquire: Callable[[int], Grant] | None = None,
) -> Core:
    """The state machine of one generator.

    ``identity`` is a fixed (datacenter, machine), or None to take it from ``fence``.
    ``clock_back`` is the policy for a clock behind the last id (checked by the caller).
    ``clock`` None means the system clock, read with ``time.time_ns`` directly.
    ``wait(ns)`` is the sync wait used by ``next_id`` (called outside the lock).
    ``acquire``: how ``next_id`` asks the fence for a grant (default ``fence.acquire``).

    ``next_snowid`` hands out SnowIds without a lock per id. Making one costs two C calls
    (~110 ns) and ``with lock`` ~150 ns of next_id's ~290 ns, so a SnowId made per call
    under the lock ran at 0.6x the int path. Instead it takes a run of the current
    millisecond's ids under the lock (as a batch), makes their SnowIds in C loops, and
    publishes them as a list iterator, whose step the GIL makes atomic (as
    ``snowid.client`` does): no two callers get one id. A run's ids are handed out only
    while the clock reads its millisecond, as the hot path's; the rest are dropped (and
    counted as issued). Runs are published under the lock and only if no ``take`` came
    between the run's take and its publication, and every ``take`` drops the live run, so
    an id handed out is above every id (single or batch) returned before it. The run
    length doubles while runs are used up in their millisecond (to ``MAX_RUN``) and
    halves when one is left over, so one id per request makes one SnowId per call.
    Without the GIL, or on a clock of the caller's, it is ``next_id`` made a SnowId.
    """
    lock = threading.Lock()
    if clock is None:
        now_ns: Callable[[], int] = time.time_ns
        mono_ns = SYSTEM_CLOCK.monotonic_ns
    else:
        clock_ms = clock.time_ms

        def now_ns() -> int:
            return clock_ms() * NS_PER_MS

        mono_ns = clock.monotonic_ns

    fixed = identity is not None
    max_backward_ms = clock_back.ride_ms  # ridden out; also how far a batch catches up
    back_ms = clock_back.ms
    logical = clock_back.policy == "logical"
    waits_back = logical or clock_back.policy == "wait"
    wbits = TWITTER.worker_bits(*identity) if identity is not None else 0
    sync_acquire = acquire or (fence.acquire if fence is not None else None)
    # The hot path issues while lo <= now_ns < hi; lo > hi sends every call to grab().
    lo, hi = 1, 0
    last = -1
    base = nxt = 0
    lim = -1
    floor_fresh = True  # nothing issued since the last reset: waiting for a grant's start
    need_grant = not fixed
    grant_key: tuple[int, int, int] | None = None
    grant_ceiling = -1  # the ceiling of the grant settled last: never issue past it
    parent_key: tuple[int, int, int] | None = None
    forked = False
    sealed: GeneratorSealedError | None = None  # set once by seal(), for good
    behind = False
    exhausted_at = -1
    ceiling_wait_from = -1
    back_wait_from = -1  # boot-clock ns when this run of waits for a clock behind began
    jump_ref_ms = jump_ref_mono = -1
    done = seq_waits = back_events = fwd_jumps = ceil_waits = 0
    back_max = seq_wait_ns = 0  # the largest step back seen (ms); time out of sequence (ns)
    # next_snowid's run: its ids, the ns of its millisecond (lo > hi: none), its length,
    # the next run's length, and how many takes there have been (a run taken before the
    # last take is not published).
    run_ids: Iterator[SnowId] = _EMPTY
    run_lo, run_hi = 1, 0
    run_len = 1
    takes = 0
    run_lock = threading.Lock()  # one refill at a time: runs are published in take order

    def reset_to(start_ms: int) -> None:
        """Drop the current millisecond; the next id is at ``start_ms`` or later."""
        nonlocal lo, hi, last, base, nxt, lim, floor_fresh, done
        done += nxt - base
        lo, hi = 1, 0
        last = start_ms - 1
        base = nxt = 0
        lim = -1
        floor_fresh = True

    def settle(grant: Grant, t: int) -> int:
        """Apply a grant for needed ms ``t``; 0 when ``t`` may be issued, else ns to wait."""
        nonlocal wbits, grant_key, grant_ceiling, parent_key, need_grant
        nonlocal ceiling_wait_from, ceil_waits
        key = (grant.datacenter, grant.machine, grant.epoch)
        if not fixed and key != grant_key:
            if grant_key is None and key == parent_key:
                # A fence that hands a child its parent's grant would duplicate ids.
                raise ForkedGeneratorError(datacenter=grant.datacenter, machine=grant.machine)
            wbits = TWITTER.worker_bits(grant.datacenter, grant.machine)
            grant_key = key
            parent_key = None
            # Ids keep growing across identities within one process, not only per grant.
            reset_to(max(grant.start_ms, last + 1))
        elif grant.start_ms - 1 > last:
            reset_to(grant.start_ms)
        need_grant = False
        grant_ceiling = grant.ceiling_ms
        if t < grant.start_ms:
            early = grant.start_ms - t
            if early > max(max_wait_ms, max_backward_ms):
                raise ClockMovedBackwards(
                    step_ms=early, tolerance_ms=max(max_wait_ms, max_backward_ms)
                )
            return early * NS_PER_MS
        if t > grant.ceiling_ms:
            mono = mono_ns()
            if ceiling_wait_from < 0:
                ceiling_wait_from = mono
                ceil_waits += 1
            waited_ms = (mono - ceiling_wait_from) // NS_PER_MS
            if waited_ms >= max_wait_ms:
                ceiling_wait_from = -1
                raise CeilingReachedError(
                    timestamp=t, ceiling=grant.ceiling_ms, waited_ms=waited_ms
                )
            return min(CEILING_POLL_MS, max_wait_ms - waited_ms) * NS_PER_MS
        return 0

    def grab(  # noqa: PLR0912, PLR0915 - the whole decision table, kept in one place
        k: int,
        *,
        acquire: Callable[[int], Grant] | None,
        catch_up: bool = False,
        handed: bool = False,
    ) -> tuple[int, int]:
        """``handed``: ``acquire`` returns a grant the caller already got (asyncio): settle it."""
        nonlocal nxt, behind, exhausted_at
        nonlocal ceiling_wait_from, back_wait_from, jump_ref_ms, jump_ref_mono
        nonlocal seq_waits, back_events, fwd_jumps, back_max, seq_wait_ns
        if sealed is not None:
            raise sealed
        if forked:
            assert identity is not None
            raise ForkedGeneratorError(datacenter=identity[0], machine=identity[1])
        now = now_ns()
        t = now // NS_PER_MS
        if t > last:
            if not _EPOCH <= t <= _MAX_TS:  # one comparison per millisecond
                raise _clock_error(t)
            if fence is not None:
                # The fence's ceiling may already belong to another grant (a lease that lost
                # this identity and claimed a new one for someone else): only the ceiling of
                # the grant settled here bounds these ids, and a change goes through settle.
                ceiling = -1 if need_grant or handed else min(fence.ceiling_ms, grant_ceiling)
                if t > ceiling:
                    if acquire is None:
                        raise NeedGrant(t)
                    grant = acquire(t)
                    t = max(t, now_ns() // NS_PER_MS)  # acquire may have waited for the start
                    if t > _MAX_TS:
                        raise EndOfTimeError(timestamp=t, max=_MAX_TS)
                    pause = settle(grant, t)
                    if pause:
                        return pause, 0
            ceiling_wait_from = -1
            mono = mono_ns()
            if jump_ref_ms >= 0 and (
                wall_lead_ms(jump_ref_ms, jump_ref_mono, t, mono) > FORWARD_JUMP_MIN_MS
            ):
                fwd_jumps += 1
            jump_ref_ms, jump_ref_mono = t, mono
            ms = t
            if catch_up:
                # A running batch that lost the CPU for a moment takes the milliseconds it
                # missed: still above every id issued, and no further behind the clock
                # than a ridden-out backward step may leave an id.
                ms = max(last + 1, t - max_backward_ms)
            behind = False
            back_wait_from = -1
            return enter(ms, k)
        late = last - t
        if late and not floor_fresh:  # (waiting for a grant's start is not a step back)
            if not behind:
                behind = True
                back_events += 1
            back_max = max(back_max, late)
            if waits_back:
                return behind_clock(k, t, now, late)
        if nxt <= lim:
            if late > max_backward_ms:
                raise ClockMovedBackwards(step_ms=late, tolerance_ms=max_backward_ms)
            first = nxt
            left = lim - first + 1
            count = k if k < left else left
            nxt = first + count
            return first, count
        allowance = max(max_wait_ms, max_backward_ms) if floor_fresh else max_backward_ms
        if late > allowance:
            raise ClockMovedBackwards(step_ms=late, tolerance_ms=allowance)
        if not late and not floor_fresh and exhausted_at != last:
            exhausted_at = last
            seq_waits += 1
            seq_wait_ns += (last + 1) * NS_PER_MS - now  # until the next millisecond
        return (last + 1) * NS_PER_MS - now, 0

    def enter(ms: int, k: int) -> tuple[int, int]:
        """Start millisecond ``ms`` (above ``last``) and take up to ``k`` of its ids."""
        nonlocal lo, hi, last, base, nxt, lim, floor_fresh, done
        done += nxt - base
        base, lim = _MS_IDS(ms, wbits)
        count = k if k < _PER_MS else _PER_MS
        nxt = base + count
        last = ms
        lo = ms * NS_PER_MS
        hi = lo + NS_PER_MS
        floor_fresh = False
        return base, count

    def behind_clock(k: int, t: int, now: int, late: int) -> tuple[int, int]:
        """``wait`` and ``logical`` while the clock (ms ``t``, ns ``now``) is ``late`` ms
        behind ``last``: ids, or how long to wait; ClockMovedBackwards past the budget."""
        nonlocal nxt, back_wait_from
        if logical and late <= back_ms:
            if nxt <= lim:  # the rest of the last millisecond, at most back_ms ahead
                back_wait_from = -1
                first = nxt
                left = lim - first + 1
                count = k if k < left else left
                nxt = first + count
                return first, count
            ms = last + 1
            if ms - t > back_ms:  # one more millisecond would run too far ahead
                target = ms - back_ms
            elif ms > _MAX_TS or (
                fence is not None and (need_grant or ms > min(fence.ceiling_ms, grant_ceiling))
            ):
                target = ms  # at the ceiling: the wall clock takes it from here (settle)
            else:
                back_wait_from = -1
                return enter(ms, k)
        elif logical:  # too far behind even for the last millisecond: wait until within
            target = last - back_ms + (nxt > lim)
        else:  # wait: no id until the clock is past the last millisecond
            target = last + 1
        budget_ms = max_wait_ms if logical else back_ms
        mono = mono_ns()
        if back_wait_from < 0:
            back_wait_from = mono
        pause = target * NS_PER_MS - now
        if mono - back_wait_from + pause > budget_ms * NS_PER_MS:
            back_wait_from = -1
            raise ClockMovedBackwards(step_ms=late, tolerance_ms=back_ms)
        return pause, 0

    def take(
        k: int,
        *,
        acquire: Callable[[int], Grant] | None,
        catch_up: bool = False,
        handed: bool = False,
    ) -> tuple[int, int]:
        nonlocal run_ids, takes
        with lock:
            run_ids = _EMPTY  # no id of a run taken before this batch is handed out after it
            takes += 1
            return grab(k, acquire=acquire, catch_up=catch_up, handed=handed)

    def next_id() -> int:
        nonlocal nxt
        # The clock is read before taking the lock, so the fast path holds the lock over no
        # call at all: CPython can hand the GIL to another thread only at a call or a loop,
        # never inside this block, and threads do not queue up on the lock behind a holder
        # that lost the GIL. A reading inside [lo, hi) was taken during millisecond
        # ``last``, so issuing there is right even if the reading is stale; any other
        # reading goes to grab(), which reads the clock again.
        now = now_ns()
        with lock:
            if lo <= now < hi:
                i = nxt
                if i <= lim:
                    nxt = i + 1
                    return i
        return next_id_slow()

    def next_snowid(
        now_ns: Callable[[], int] = now_ns, step: Callable[..., SnowId | None] = next
    ) -> SnowId:
        # Between the window's test and the iterator's step there is no call, so no other
        # thread runs in between; the step is one C call (atomic under the GIL).
        now = now_ns()
        if run_lo <= now < run_hi:
            made = step(run_ids, None)
            if made is not None:
                return made
        return refill()

    def refill() -> SnowId:
        nonlocal run_ids, run_lo, run_hi, run_len
        with run_lock:
            if run_lo <= now_ns() < run_hi:  # another thread refilled while this one waited
                made = next(run_ids, None)
                if made is not None:
                    return made
            left = length_hint(run_ids)  # what the clock's moving on left of the last run
            run_len = max(run_len // 2, 1) if left else min(run_len * 2, MAX_RUN)
            while True:
                with lock:
                    first, count = grab(run_len, acquire=sync_acquire)
                    seen = takes
                if count:
                    break
                wait(first)
            head = _from_int(first)
            rest = _from_ints(range(first + 1, first + count))  # made outside the lock
            with lock:
                if seen == takes and rest:
                    run_ids = iter(rest)  # published before the window: readers of it are current
                    run_lo = _TIMESTAMP_OF(first) * NS_PER_MS
                    run_hi = run_lo + NS_PER_MS
                else:
                    run_ids = _EMPTY
        return head

    def plain_snowid() -> SnowId:
        return _from_int(next_id())

    def next_id_slow() -> int:
        # Kept out of next_id: every name a closure uses costs it a copy on each call.
        while True:
            with lock:
                first, count = grab(1, acquire=sync_acquire)
            if count:
                return first
            wait(first)

    def counters() -> Counters:
        with lock:
            return (
                done + nxt - base, seq_waits, back_events, fwd_jumps, ceil_waits, back_max,
                seq_wait_ns,
            )  # fmt: skip

    def current_identity() -> tuple[int, int] | None:
        if identity is not None:
            return identity
        key = grant_key
        return None if key is None else (key[0], key[1])

    def seal(timeout: float = -1) -> int | None:
        nonlocal lo, hi, sealed, run_ids, run_lo, run_hi
        held = lock
        if not held.acquire(timeout=timeout):
            return None
        try:
            if sealed is None:
                who = identity if grant_key is None else grant_key[:2]
                worker = "?" if who is None else str(TWITTER.worker(who[0], who[1]))
                sealed = GeneratorSealedError(worker=worker, mark_ms=last)
            lo, hi = 1, 0  # the hot path is closed: every call goes to grab, which raises
            # and so is the SnowId run (its ids were counted in ``last``: a step already
            # past the window's test may still hand out one of them, below the mark)
            run_ids, run_lo, run_hi = _EMPTY, 1, 0
            return sealed.mark_ms
        finally:
            held.release()

    def after_fork() -> None:
        """In a forked child: a fresh lock, no inherited millisecond, no inherited grant."""
        nonlocal lock, forked, need_grant, grant_key, grant_ceiling, parent_key, behind
        nonlocal exhausted_at
        nonlocal ceiling_wait_from, back_wait_from, jump_ref_ms, jump_ref_mono
        nonlocal done, seq_waits, back_events, fwd_jumps, ceil_waits
        nonlocal back_max, seq_wait_ns
        nonlocal run_ids, run_lo, run_hi, run_len, takes, run_lock
        lock = threading.Lock()  # the parent's may have been held by a thread that is gone
        run_lock = threading.Lock()
        run_ids, run_lo, run_hi, run_len, takes = _EMPTY, 1, 0, 1, 0
        reset_to(0)
        if fixed:
            forked = True
        else:
            need_grant = True
            if grant_key is not None:  # a child that never issued keeps its parent's key,
                parent_key = grant_key  # so a grandchild is refused the grandparent's grant
            grant_key = None
            grant_ceiling = -1
        behind = False
        exhausted_at = ceiling_wait_from = back_wait_from = jump_ref_ms = jump_ref_mono = -1
        done = seq_waits = back_events = fwd_jumps = ceil_waits = 0
        back_max = seq_wait_ns = 0

    snowids = next_snowid if _GIL and clock is None else plain_snowid
    return Core(next_id, snowids, take, counters, current_identity, after_fork, seal)
