"""The forward-jump guard of file slots: a bad forward clock step stays out of the mark.

Only the file backend persists a ceiling computed from this host's wall clock (``now +
delta``), so only it needs this guard; it lives here, apart from what every lease shares.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from snowid.generate import Grant
from snowid.ids import TWITTER, wall_lead_ms

__all__ = ["ForwardJumpGuard", "ForwardVerdict"]

log = logging.getLogger("snowid.lease")

_NS_PER_MS = 1_000_000

ForwardVerdict = Literal["ok", "jump", "moved", "hold", "accept", "clear"]
"""What :meth:`ForwardJumpGuard.check` says about persisting a mark for a wall time:
``ok`` persist; ``jump`` a forward jump starts an episode (do not persist); ``moved`` the
clock moved again within the episode (do not persist, confirm anew); ``hold`` still
waiting for confirmation (do not persist); ``accept`` the new time held for the
confirmation period (persist); ``clear`` the clock came back (persist)."""


@dataclass(slots=True)
class ForwardJumpGuard:
    """Keeps a bad forward step of the wall clock out of a persisted ceiling.

    A mark written ahead as ``now + delta`` with a wall clock hours ahead locks the
    identity out (and, through the host clock-regression check, the whole host) until
    real time catches up. So each accepted extension records a reference (wall ms,
    boot-clock ns), and before the next one the wall clock's progress since then is
    compared with the boot clock's (``Clock.monotonic_ns``: never steps, counts
    suspend where the OS allows). Wall progress ahead by more than ``guard_ms`` (plus
    1 ms per second of boot progress, for NTP slewing) is a jump: nothing is
    persisted, so the ceiling stays where it was, until either the clock comes back or
    the new wall-minus-boot offset has stayed within ``guard_ms`` of itself for
    ``confirm_ms`` of boot-clock time. A backward step is not this guard's business
    (the generator and the regression check handle it). ``guard_ms <= 0`` turns it off.

    Clock bookkeeping only: no I/O, no locking (the lease's lock covers it).
    """

    guard_ms: int = 5000
    confirm_ms: int = 30_000
    ref_ms: int = -1
    """Wall time of the last accepted extension; -1 before the first (nothing to compare)."""
    ref_ns: int = 0
    """Boot-clock reading at the last accepted extension."""
    since_ns: int = -1
    """Boot-clock reading since which the episode's offset held; -1 outside an episode."""
    offset_ms: int = 0
    """Wall minus boot clock (ms) of the episode."""

    @property
    def paused(self) -> bool:
        return self.since_ns >= 0

    def reset(self, wall_ms: int, mono_ns: int) -> None:
        """A mark for ``wall_ms`` was accepted at boot-clock ``mono_ns``: the new reference."""
        self.ref_ms, self.ref_ns = wall_ms, mono_ns
        self.since_ns = -1

    def forget(self) -> None:
        """No reference (a new identity, a forked child): the next extension is not checked."""
        self.ref_ms, self.since_ns = -1, -1

    def check(self, wall_ms: int, mono_ns: int) -> tuple[ForwardVerdict, int]:
        """The verdict on persisting a mark for wall time ``wall_ms``, and the jump in ms
        (wall progress minus boot progress since the reference, beyond slewing)."""
        if self.guard_ms <= 0 or self.ref_ms < 0:
            return "ok", 0
        jump_ms = wall_lead_ms(self.ref_ms, self.ref_ns, wall_ms, mono_ns)
        if jump_ms <= self.guard_ms:
            verdict: ForwardVerdict = "clear" if self.paused else "ok"
            self.since_ns = -1
            return verdict, jump_ms
        offset = wall_ms - mono_ns // _NS_PER_MS
        if not self.paused:
            self.since_ns, self.offset_ms = mono_ns, offset
            return "jump", jump_ms
        if abs(offset - self.offset_ms) > self.guard_ms:
            self.since_ns, self.offset_ms = mono_ns, offset
            return "moved", jump_ms
        if mono_ns - self.since_ns >= self.confirm_ms * _NS_PER_MS:
            self.since_ns = -1
            return "accept", jump_ms
        return "hold", jump_ms

    def allows(
        self, grant: Grant, wall_ms: int, mono_ns: int, record: Callable[[str, Grant, str], None]
    ) -> bool:
        """Whether a mark for ``wall_ms`` may be persisted now (boot clock at ``mono_ns``).

        ``record(kind, grant, detail)`` is the lease's event log: a ``forward_jump`` event
        (and a warning) when an episode starts, another when the clock moves again within
        it, ``forward_accept`` when the new time is confirmed and ``forward_clear`` when
        the clock came back. On True the caller persists and then calls ``reset``.
        """
        verdict, jump_ms = self.check(wall_ms, mono_ns)
        if verdict == "ok":
            return True
        if verdict == "hold":
            return False
        from snowid.i18n import translate  # only on this rare path, as errors.py does

        params = {
            "worker": TWITTER.worker(grant.datacenter, grant.machine),
            "jump_ms": jump_ms,
            "ceiling": grant.ceiling_ms,
            "guard_ms": self.guard_ms,
            "confirm_ms": self.confirm_ms,
        }
        if verdict in ("jump", "moved"):
            detail = translate("lease.forward_jump", **params)
            record("forward_jump", grant, detail)
            if verdict == "jump":  # once per episode
                log.warning("snowid: %s", detail)
            return False
        code = "lease.forward_accept" if verdict == "accept" else "lease.forward_clear"
        detail = translate(code, **params)
        record(f"forward_{verdict}", grant, detail)
        (log.warning if verdict == "accept" else log.info)("snowid: %s", detail)
        return True
