"""A fixed worker identity given by the operator (``static:``).

Uniqueness across hosts is the operator's promise. In a forked child the identity is
refused (ForkedGeneratorError): parent and child would otherwise share it. Add
``state_dir=`` to the URL to also lock the identity's slot file on this host and keep
its high-water mark (then open_lease returns a one-slot FileLease instead).
"""

from __future__ import annotations

import os

from snowid._clock import Clock
from snowid._fence import Grant
from snowid._layout import TWITTER
from snowid.errors import ForkedGeneratorError
from snowid.lease._base import BaseLease

__all__ = ["StaticLease"]


class StaticLease(BaseLease):
    """The whole timeline under one operator-chosen (datacenter, machine)."""

    kind = "static"

    def __init__(
        self, datacenter: int, machine: int, *, url: str | None = None, clock: Clock | None = None
    ) -> None:
        TWITTER.check_datacenter(datacenter)
        TWITTER.check_machine(machine)
        super().__init__(url or f"static://{datacenter}/{machine}", clock)
        self.datacenter = datacenter
        self.machine = machine
        self._origin_pid = os.getpid()

    def _claim(self, needed_ms: int) -> Grant:
        del needed_ms
        if os.getpid() != self._origin_pid:
            raise ForkedGeneratorError(datacenter=self.datacenter, machine=self.machine)
        grant = Grant(self.datacenter, self.machine, TWITTER.epoch_ms, TWITTER.max_timestamp, 0)
        return self._set_held(grant)

    def _extend(self, grant: Grant, needed_ms: int) -> Grant:
        # The ceiling is already the last millisecond the layout holds.
        del needed_ms
        return grant

    def _release(self, grant: Grant) -> None:
        del grant
