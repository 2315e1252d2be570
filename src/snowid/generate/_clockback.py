"""What a generator does when the wall clock reads earlier than its last id: the policy.

``ClockBack.parse`` reads the one spelling used everywhere (the library, ``SNOWID_CLOCK_BACK``
and ``snowid serve --clock-back``): ``raise``, ``ride:N``, ``wait:N`` or ``logical:N``,
N in milliseconds. ``check_lead`` is the rule a logical clock is held to before any id:
it needs a fence that keeps a high-water mark (``max_lead_ms`` not None) and N at most
that fence's ``max_lead_ms``; a fixed identity is refused (nothing survives a restart).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from snowid._exceptions import ClockPolicyError, OutOfRangeError

__all__ = ["DEFAULT_CLOCK_BACK", "MAX_CLOCK_BACK_MS", "ClockBack", "ClockBackPolicy"]

ClockBackPolicy = Literal["ride", "raise", "wait", "logical"]
_POLICIES: tuple[str, ...] = get_args(ClockBackPolicy)
MAX_CLOCK_BACK_MS = 86_400_000
"""The largest N any policy takes (a day)."""
_SPELLING = re.compile(r"([a-z]+)(?::([0-9]+))?")


@dataclass(frozen=True, slots=True)
class ClockBack:
    """One clock-back policy and its bound ``ms`` (N):

    * ``ride`` (the default, N = 5): keep issuing on the last millisecond while its
      sequence lasts, for a step back of up to N ms; a larger one raises.
    * ``raise``: any step back raises ``ClockMovedBackwards`` until the clock catches up.
    * ``wait``: wait for the clock to catch up, for at most N ms in all; then raise.
    * ``logical``: keep issuing ids above the last one, at most N ms ahead of the wall
      clock, never past the lease's ceiling; beyond, wait (up to ``max_wait_ms``).
    """

    # Plain str: annotations resolve in the public module (snowid), where no Literal is.
    policy: str
    """One of ``ClockBackPolicy``: ride, raise, wait, logical."""
    ms: int

    @classmethod
    def parse(cls, value: object, field: str = "clock_back") -> ClockBack:
        """A ``ClockBack`` as it is, or its spelling: ``raise``, ``ride:N``, ``wait:N``,
        ``logical:N`` (``ride`` alone is ``ride:5``). ClockPolicyError or OutOfRangeError
        name ``field`` and the value otherwise."""
        if isinstance(value, ClockBack):
            return value
        text = value.strip().lower() if isinstance(value, str) else ""
        match = _SPELLING.fullmatch(text)
        if match is None or match.group(1) not in _POLICIES:
            raise ClockPolicyError(field=field, value=value, reason="syntax")
        policy: ClockBackPolicy = match.group(1)  # type: ignore[assignment]  # checked above
        digits = match.group(2)
        if policy == "raise":
            if digits is not None:
                raise ClockPolicyError(field=field, value=value, reason="no_ms", policy=policy)
            return cls("raise", 0)
        if digits is None:
            if policy == "ride":
                return DEFAULT_CLOCK_BACK
            raise ClockPolicyError(field=field, value=value, reason="needs_ms", policy=policy)
        ms = int(digits[:12])  # more digits than that is out of range anyway
        if len(digits) > 12 or ms > MAX_CLOCK_BACK_MS:
            raise OutOfRangeError(field=field, value=value, min=0, max=MAX_CLOCK_BACK_MS)
        return cls(policy, ms)

    def __str__(self) -> str:
        return self.policy if self.policy == "raise" else f"{self.policy}:{self.ms}"

    @property
    def ride_ms(self) -> int:
        """How far behind the clock an id may be: the step ridden out, and how far a running
        batch catches up (``ride``'s N; the default 5 ms under ``wait`` and ``logical``;
        0 under ``raise``)."""
        if self.policy == "ride":
            return self.ms
        return 0 if self.policy == "raise" else DEFAULT_CLOCK_BACK.ms

    def check_lead(self, *, fixed: bool, fence: object, field: str = "clock_back") -> None:
        """Refuse a logical clock that could outlive a restart or outrun its lease: with
        a fixed identity, with a fence that keeps no high-water mark (``max_lead_ms``
        None or missing), or with N above the fence's ``max_lead_ms``."""
        if self.policy != "logical":
            return
        lead = None if fixed or fence is None else getattr(fence, "max_lead_ms", None)
        if lead is None:
            what = "a fixed identity" if fixed or fence is None else _fence_name(fence)
            raise ClockPolicyError(field=field, value=str(self), reason="no_mark", fence=what)
        if self.ms > lead:
            raise ClockPolicyError(
                field=field, value=str(self), reason="lead", max=lead, fence=_fence_name(fence)
            )


DEFAULT_CLOCK_BACK = ClockBack("ride", 5)
"""Today's behaviour: a step back of up to 5 ms is ridden out on the last millisecond."""


def _fence_name(fence: object) -> str:
    url = getattr(fence, "url", None)
    return url if isinstance(url, str) else type(fence).__name__


# Reprs, docs and pickles name the public path (snowid.ClockBack).
ClockBack.__module__ = "snowid"
