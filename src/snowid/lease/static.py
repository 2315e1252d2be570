"""A fixed worker identity given by the operator (``static:``).

One process at a time: the first claim takes this host's guard of the identity (see
``_staticguard``), held until the lease is released or closed, or the process exits; a
second process of the same network namespace is refused (StaticIdentityInUseError), as
is a second lease of the same process. Across hosts, and across containers with their
own network, uniqueness stays the operator's promise. In a forked child the identity is
refused (ForkedGeneratorError): parent and child would otherwise share it.

Add ``state_dir=`` to the URL to also lock the identity's slot file, which covers
containers sharing that directory, and keep its high-water mark (then ``from_url``
returns a one-slot FileLease holding the same guard); without it the first claim in a
process logs a warning saying what is left to the operator.
"""

from __future__ import annotations

import logging
import os
import threading

from snowid._exceptions import ForkedGeneratorError
from snowid.generate import Grant
from snowid.ids import TWITTER, Clock
from snowid.lease._base import Lease
from snowid.lease._staticguard import AVAILABLE, StaticGuard
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

    retires_at_stop = False
    """Kept until exit: a static identity has no ceiling that would fence a successor."""

    def __init__(
        self, datacenter: int, machine: int, *, url: str | None = None, clock: Clock | None = None
    ) -> None:
        TWITTER.check_datacenter(datacenter)
        TWITTER.check_machine(machine)
        super().__init__(url or f"static://{datacenter}/{machine}", clock)
        self.datacenter = datacenter
        self.machine = machine
        self._origin_pid = os.getpid()
        self._guard = StaticGuard(datacenter, machine)

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
            lease = FileLease.for_slot(url, state_dir, TWITTER.worker(datacenter, machine), clock)
            lease.guard = StaticGuard(datacenter, machine)
            return lease
        return cls(datacenter, machine, url=url.shown, clock=clock)

    def _claim(self, needed_ms: int) -> Grant:
        del needed_ms
        if os.getpid() != self._origin_pid:
            raise ForkedGeneratorError(datacenter=self.datacenter, machine=self.machine)
        self._guard.take(self._clock)
        grant = Grant(self.datacenter, self.machine, TWITTER.epoch_ms, TWITTER.max_timestamp, 0)
        _warn_unguarded(self.datacenter, self.machine)
        return self._set_held(grant)

    def _extend(self, grant: Grant, needed_ms: int) -> Grant:
        # The ceiling is already the last millisecond the layout holds.
        del needed_ms
        return grant

    def _release(self, grant: Grant) -> None:
        del grant
        self._guard.release()

    def _close_resources(self) -> None:
        self._guard.release()


def _warn_unguarded(datacenter: int, machine: int) -> None:
    """Say once per process what nothing here keeps off this identity.

    A log record, not ``warnings.warn``: it reaches the service's log, and stderr through
    logging's last-resort handler when nothing is configured (the CLI). Without
    ``state_dir`` a process on another host, or in another network namespace, on the same
    identity issues duplicates without any error (and outside Linux, one on this host too).
    """
    with _warned_lock:
        if os.getpid() in _warned:
            return
        _warned.add(os.getpid())
    from snowid.i18n import detect_lang, translate  # only on this once-per-process path

    key = "lease.static_unguarded" if AVAILABLE else "lease.static_unguarded.no_guard"
    text = translate(key, detect_lang(), datacenter=datacenter, machine=machine)
    log.warning("snowid: %s", text)
