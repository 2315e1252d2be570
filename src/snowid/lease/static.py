"""A fixed worker identity given by the operator (``static:``).

Uniqueness across hosts is the operator's promise. In a forked child the identity is
refused (ForkedGeneratorError): parent and child would otherwise share it. Add
``state_dir=`` to the URL to also lock the identity's slot file on this host and keep
its high-water mark (then ``from_url`` returns a one-slot FileLease instead); without it
the first claim in a process logs a warning that uniqueness across processes is the
operator's promise too.
"""

from __future__ import annotations

import logging
import os
import threading

from snowid._exceptions import ForkedGeneratorError
from snowid.generate import Grant
from snowid.ids import TWITTER, Clock
from snowid.lease._base import Lease
from snowid.lease._url import LeaseUrl
from snowid.lease.file import FileLease

__all__ = ["StaticLease"]

log = logging.getLogger("snowid.lease")

# The processes that already warned about an unguarded static identity (once per process;
# by pid, so that a forked child warns on its own).
_warned: set[int] = set()
_warned_lock = threading.Lock()


class StaticLease(Lease):
    """The whole timeline under one operator-chosen (datacenter, machine)."""

    object_options = FileLease.object_options  # with state_dir= it is a FileLease

    def __init__(
        self, datacenter: int, machine: int, *, url: str | None = None, clock: Clock | None = None
    ) -> None:
        TWITTER.check_datacenter(datacenter)
        TWITTER.check_machine(machine)
        super().__init__(url or f"static://{datacenter}/{machine}", clock)
        self.datacenter = datacenter
        self.machine = machine
        self._origin_pid = os.getpid()

    @classmethod
    def from_url(cls, url: LeaseUrl, *, clock: Clock | None = None) -> Lease:
        """``static://D/M``, ``static:?datacenter=D&machine=M`` or ``static:?worker=W``;
        with ``state_dir=`` the one-slot FileLease of that identity in that directory."""
        state_dir = url.options.get("state_dir")
        tuning = FileLease.tuning if state_dir else ()  # without a slot file they would be ignored
        url.check_known(("datacenter", "machine", "worker", "state_dir", *tuning))
        worker = url.integer("worker", 0, TWITTER.max_worker)
        if worker is not None:
            datacenter, machine = TWITTER.split_worker(worker)
        elif url.netloc:
            datacenter = url.to_int("datacenter", url.netloc, 0, TWITTER.max_datacenter)
            machine = url.to_int("machine", url.path.strip("/"), 0, TWITTER.max_machine)
        elif "datacenter" in url.options and "machine" in url.options:
            datacenter = url.to_int(
                "datacenter", url.options["datacenter"], 0, TWITTER.max_datacenter
            )
            machine = url.to_int("machine", url.options["machine"], 0, TWITTER.max_machine)
        else:
            raise url.fail("static_identity_missing")
        if state_dir:
            return FileLease.for_slot(url, state_dir, TWITTER.worker(datacenter, machine), clock)
        return cls(datacenter, machine, url=url.shown, clock=clock)

    def _claim(self, needed_ms: int) -> Grant:
        del needed_ms
        if os.getpid() != self._origin_pid:
            raise ForkedGeneratorError(datacenter=self.datacenter, machine=self.machine)
        grant = Grant(self.datacenter, self.machine, TWITTER.epoch_ms, TWITTER.max_timestamp, 0)
        _warn_unguarded(self.datacenter, self.machine)
        return self._set_held(grant)

    def _extend(self, grant: Grant, needed_ms: int) -> Grant:
        # The ceiling is already the last millisecond the layout holds.
        del needed_ms
        return grant

    def _release(self, grant: Grant) -> None:
        del grant


def _warn_unguarded(datacenter: int, machine: int) -> None:
    """Say once per process that nothing keeps a second process off this identity.

    A log record, not ``warnings.warn``: it reaches the service's log, and stderr through
    logging's last-resort handler when nothing is configured (the CLI). Two processes on
    one static identity without ``state_dir`` issue duplicates without any error.
    """
    with _warned_lock:
        if os.getpid() in _warned:
            return
        _warned.add(os.getpid())
    from snowid.i18n import detect_lang, translate  # only on this once-per-process path

    text = translate(
        "lease.static_unguarded", detect_lang(), datacenter=datacenter, machine=machine
    )
    log.warning("snowid: %s", text)
