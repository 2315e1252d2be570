"""The protocol of a networked lease store (docs/leases.md, "The protocol"), whatever the store.

A backend supplies the store operations (``_store_now_ms``, ``_store_claim``,
``_store_renew``, ``_store_release``, ``_store_incarnation``, ``_store_init``) and how
to drop its connection; this class turns them into the lease: each claim of worker
``w`` gets a new owner token and ``epoch + 1`` and starts above the highest ceiling ever
granted for ``w`` (one further ahead than the claim may wait is refused at once,
CeilingAheadError); the ceiling rises only through an acknowledged compare-and-set on
(worker, owner, epoch); a daemon thread renews every ``renew`` seconds. The hot-path
bound ``ceiling_ms`` is the last acknowledged ceiling, and drops to -1 when the lease is
lost or when the local deadline (boot clock before the last good renewal + TTL*0.89)
passes unrenewed. A store operation that does not answer within ``timeout`` raises
StoreUnreachableError: the lease never waits on a stalled store. The options and their
defaults are the same for every store (``StoreOptions``, ``read_options``), and so is the
life of the backend's connection (``_conn``: dropped after an error, abandoned after fork).
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import uuid
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, cast

from snowid._exceptions import (
    CeilingAheadError,
    ClockSkewError,
    LeaseError,
    LeaseLostError,
    LeaseModifiedError,
    LeaseRemovedError,
    NoFreeIdentityError,
    StoreFailedOverError,
    StoreRefusedError,
    StoreRegressedError,
    StoreUnreachableError,
)
from snowid.generate import Grant
from snowid.ids import TWITTER, Clock
from snowid.lease._base import IdentityStatus, Lease
from snowid.lease._failover import HistoryChanged, Quarantine, describe
from snowid.lease._storeops import (
    STORE_FORMAT,
    Claimed,
    Initialised,
    LostHow,
    Renewed,
    StoreMissing,
    StoreOptions,
    StoreOutdated,
    outdated_reason,
    worker_ranges,
)
from snowid.lease._url import given

if TYPE_CHECKING:
    from snowid.lease._url import LeaseUrl

__all__ = [
    "Claimed",
    "Initialised",
    "LostHow",
    "Renewed",
    "StoreLease",
    "StoreMissing",
    "StoreOptions",
    "StoreOutdated",
    "close_quietly",
]

log = logging.getLogger("snowid.lease")

_NS_PER_MS = 1_000_000
_ABANDONED: list[object] = []  # connections inherited over fork: never closed by the child


def close_quietly(conn: Any) -> None:
    """Close a driver's connection that may already be broken."""
    if conn is not None:
        with contextlib.suppress(Exception):
            conn.close()


class StoreLease(Lease):
    """A worker identity in ``[first, last]`` leased from a networked store.

    The protocol's defaults live here, in the constructor, for every store: ``ttl`` 10 s,
    ``renew`` ttl/3, ``span`` ttl, ``max_skew`` 2 s, ``timeout`` renew (per operation),
    ``claim_wait`` ttl + span + max_skew + 1 s.
    """

    clock_step_ms = 0
    """How coarse the store's clock reads (etcd's: whole seconds): the skew check allows
    half of it more."""

    def __init__(
        self,
        *,
        first: int = 0,
        last: int = TWITTER.max_worker,
        ttl: float = 10.0,
        renew: float | None = None,
        span: float | None = None,
        max_skew: float = 2.0,
        timeout: float | None = None,
        claim_wait: float | None = None,
        url: str,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(url, clock)
        self.first, self.last = TWITTER.check_worker(first), TWITTER.check_worker(last)
        self.ttl_ms = round(ttl * 1000)
        self.renew_ms = round((renew if renew is not None else ttl / 3) * 1000)
        self.span_ms = round((span if span is not None else ttl) * 1000)
        self.max_skew_ms = round(max_skew * 1000)
        self.timeout_s = timeout if timeout is not None else self.renew_ms / 1000
        self.claim_wait_ms = round(
            claim_wait * 1000
            if claim_wait is not None
            else self.ttl_ms + self.span_ms + self.max_skew_ms + 1000
        )
        self.incarnation: str | None = None
        self.owner: str | None = None
        self.renewals = 0
        self.renew_failures = 0
        self.history: str | None = None
        """The store's history identity this holder claimed under (None: not tracked)."""
        self.failovers = 0
        """Failovers and rollbacks this process detected (a renewal or a claim)."""
        self.quarantine_until_ms: int | None = None
        """The end of the last failover quarantine this process met (Unix ms)."""
        self._clock_offset_ms: int | None = None
        self._fatal: LeaseError | None = None
        self._deadline_ns = 0
        self._next_renew_ns = 0
        self._store_down_until_ns = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: Any = None
        """The backend's connection (or client), opened on first use after a drop."""

    # --- for backends -----------------------------------------------------------------

    @staticmethod
    def read_options(url: LeaseUrl) -> StoreOptions:
        """The protocol's options given in the URL (range or datacenter, ttl, renew, span,
        max_skew, timeout, claim_wait), checked; those left out are not set."""
        first, last = url.worker_range() or (None, None)
        options = given(
            first=first,
            last=last,
            ttl=url.seconds("ttl", 0.05),
            renew=url.seconds("renew", 0.01),
            span=url.seconds("span", 0.01),
            max_skew=url.seconds("max_skew"),
            timeout=url.seconds("timeout", 0.01),
            claim_wait=url.seconds("claim_wait"),
        )
        return cast(StoreOptions, options)

    @property
    def clock_offset_ms(self) -> int | None:
        return self._clock_offset_ms

    @property
    def clock_tolerance_ms(self) -> int | None:
        return self.max_skew_ms

    @property
    def renewal_counts(self) -> tuple[int, int] | None:
        return self.renewals, self.renew_failures

    @property
    def failover_state(self) -> tuple[int, int] | None:
        return self.failovers, self.quarantine_until_ms or 0

    def _measured(self, before_ms: int, store_ms: int, after_ms: int) -> int:
        """This host's clock minus the store's, from a store reading taken between two
        readings of this host's clock (their midpoint); kept as ``clock_offset_ms``."""
        offset = (before_ms + after_ms) // 2 - store_ms
        self._clock_offset_ms = offset
        return offset

    @property
    def max_lead_ms(self) -> int:
        """``max_skew``: ids ahead of this host's clock by at most the skew the protocol
        already allows it (the store caps every ceiling at its own clock + max_skew)."""
        return self.max_skew_ms

    @property
    def quarantine_ms(self) -> int:
        """How far above now a fresh store raises every ceiling (docs/leases.md, "The protocol")."""
        return self.ttl_ms + self.span_ms + self.max_skew_ms

    sync_replication = False
    """``replication=sync`` in the URL (PostgreSQL, MariaDB): every claim and renewal is
    granted only where the store shows, in the same statement or batch, that it replicates
    synchronously (else StoreNotSynchronousError), so a failover loses no acknowledged
    ceiling and needs no quarantine."""

    @property
    def failover_quarantine_ms(self) -> int:
        """How far above the later of the store's clock and the last renewal it recorded a
        failover raises every ceiling: ``quarantine_ms`` + ``max_skew`` (the second
        ``max_skew`` for the clock difference between the old server and the new one); 0
        with ``replication=sync``, verified at every grant (the promoted server has every
        ceiling acknowledged)."""
        if self.sync_replication:
            return 0
        return self.quarantine_ms + self.max_skew_ms

    def _store_now_ms(self) -> int:
        raise NotImplementedError

    def _store_claim(self, owner: str, caller_ms: int, holder: str) -> Claimed | None:
        """Claim an expired worker in range (lowest ceiling first); None if all are held.

        A worker in range whose record is missing (a deleted row or key) is never free at
        ceiling 0: the claim rewrites it with its ceiling at store-now + ``quarantine_ms``
        (or finds none free only when every worker in range is truly held) and names it
        in ``Claimed.repaired``. On a store of an older format it raises StoreOutdated
        before writing anything (the caller upgrades the store and claims again)."""
        raise NotImplementedError

    def _store_renew(
        self, worker: int, owner: str, epoch: int, caller_ms: int, acked_ms: int
    ) -> Renewed:
        """CAS on (worker, owner, epoch); ``acked_ms`` is the ceiling acknowledged so far.
        On a store of an older format: writes nothing, and raises StoreOutdated or answers
        ``lost`` (``_store_lost_how`` then says ``outdated``)."""
        raise NotImplementedError

    def _store_release(self, worker: int, owner: str, epoch: int) -> None:
        raise NotImplementedError

    def _store_dropped(self, worker: int) -> None:
        """The holder dropped ``worker`` without a release (its record removed, edited or
        taken over): undo what this process alone still holds of it in the store. Nothing
        where the record is all there is; ZooKeeper deletes the held node of its session."""
        del worker

    def _store_incarnation(self) -> str | None:
        raise NotImplementedError

    def _store_release_mark(self, worker: int, owner: str, epoch: int, mark_ms: int) -> bool:
        """Release with a hand-over mark, in one compare-and-set on (worker, owner, epoch):
        expire the lease now and record ``mark_ms`` (kept at or above the grant's start - 1,
        written at claim), the epoch and the ceiling it belongs to; the ceiling untouched.
        False when the CAS failed (taken over, edited) or the store cannot record a mark:
        then nothing was written. Stores without marks raise NotImplementedError."""
        raise NotImplementedError

    def _store_void_marks(self) -> int:
        """Void every release mark in the store (all workers); how many were voided."""
        raise NotImplementedError

    def _store_lost_how(self, worker: int, owner: str, epoch: int, acked_ms: int) -> LostHow:
        """After a failed compare-and-set on (``worker``, ``owner``, ``epoch``), the
        incarnation unchanged, by a holder whose acknowledged ceiling is ``acked_ms``:
        why (see ``LostHow``). Stores whose renewal says it already answer ``claimed``."""
        del worker, owner, epoch, acked_ms
        return "claimed"

    def _store_init(self, quarantine_ms: int | None) -> Initialised:
        """Set the store up if it has no incarnation, writing a record for every worker
        with its ceiling at least store-now + ``quarantine_ms`` (None: a first deployment:
        0) and the store format; on a store already set up, rewrite every missing record
        with the ceiling store-now + ``self.quarantine_ms``, and upgrade an older format:
        every ceiling raised to at least store-now + ``self.quarantine_ms``, then the
        format recorded, in one transaction or script."""
        raise NotImplementedError

    # --- failover hooks (docs/leases.md, "A store that failed over") ----------------------

    def _store_history(self) -> str | None:
        """The server's history identity now (None: the store does not track one)."""
        return None

    def _store_quarantine(self, seen: str, found: str) -> Quarantine:
        """In one statement or script, only while the store's recorded history is not the
        server's: raise every ceiling to at least max(store-now, the last renewal it
        recorded) + ``failover_quarantine_ms``, free every lease, void every release mark,
        and record the server's history and the quarantine. The store's last quarantine
        (``done_here`` if this call made it)."""
        raise NotImplementedError

    def _store_last_quarantine(self) -> Quarantine | None:
        """The last failover or rollback the store recorded, if any (read only)."""
        return None

    def last_quarantine(self) -> Quarantine | None:
        """The last failover or rollback the store recorded; for ``snowid lease status``."""
        with self._lock:
            try:
                return self._store_last_quarantine()
            except StoreMissing:
                return None

    def _store_where(self) -> dict[str, object]:
        """Where in the store the leases live (a table, keys), for ``prepare`` and logs."""
        return {}

    def _store_missing(self) -> list[int]:
        """The workers in range whose record is missing (deleted), as far as the store can
        tell (read only)."""
        return []

    def missing(self) -> list[int]:
        """The workers in range whose lease record was deleted from the store and not yet
        written again (by a claim or ``snowid lease init``); for ``snowid lease status``."""
        with self._lock:
            try:
                return self._store_missing()
            except StoreMissing:
                return []

    def _store_setup(self) -> None:
        """Set up a store found empty at the first claim (with the quarantine)."""
        self.init_store()

    def _drop_connection(self) -> None:
        """Close the connection (the next operation opens a new one)."""
        conn, self._conn = self._conn, None
        close_quietly(conn)

    def _abandon_connection(self) -> None:
        """In a forked child: forget the parent's connection without using it.

        The parent's socket stays the parent's: the child keeps the object for good (so
        nothing here closes it or says goodbye on it, not even the garbage collector) and
        opens its own connection when needed."""
        if self._conn is not None:
            _ABANDONED.append(self._conn)
        self._conn = None

    def _timed_out(self) -> StoreUnreachableError:
        """The error of a store operation that got no answer within ``timeout``."""
        return StoreUnreachableError(
            store=self.url, reason=f"no answer within {self.timeout_s:g} s"
        )

    def _status_rows(self, rows: Iterable[Sequence[Any]]) -> list[IdentityStatus]:
        """``status()`` from the store's (worker, held, holder, epoch, ceiling, since,
        expires) rows, those in range (the times in Unix ms, or None)."""
        result = []
        for worker, held, holder, epoch, ceiling, since, expires in rows:
            number = int(worker)
            if self.first <= number <= self.last:
                datacenter, machine = TWITTER.split_worker(number)
                result.append(
                    IdentityStatus(
                        number, datacenter, machine, bool(held), str(holder), int(epoch),
                        int(ceiling), None if since is None else int(since),
                        None if expires is None else int(expires),
                    )
                )  # fmt: skip
        return result

    # --- set-up -------------------------------------------------------------------------

    def prepare(self, *, first_deployment: bool = False) -> dict[str, object]:
        """Set the store up if it has no incarnation (idempotent); a store set up now is
        quarantined unless ``first_deployment`` (see ``init_store``)."""
        done = self.init_store(first_deployment=first_deployment)
        return {
            "url": self.url,
            **self._store_where(),
            "incarnation": done.incarnation,
            "created": done.created,
            "quarantined": done.created and not first_deployment,
            "format": STORE_FORMAT,
            "upgraded": done.upgraded,
            "repaired": list(done.repaired),
            "quarantine_ms": self.quarantine_ms,
        }

    def init_store(self, *, first_deployment: bool = False) -> Initialised:
        """Set the store up if it has no incarnation, upgrade an older store format, and
        rewrite lost records (idempotent); what it did.

        Set up now, every ceiling is quarantined above now + ttl + span + max_skew, so
        holders left from a lost earlier store run out first; ``first_deployment`` (the
        operator vouches that there was none) skips it. A record missing from a store
        already set up was deleted under whoever held it: it is always rewritten
        quarantined, ``first_deployment`` or not. An upgrade quarantines every ceiling,
        ``first_deployment`` or not: holders of an older snowid may be alive, and an
        older store cannot show which of its ceilings they computed from a record they
        found missing and read as "never used".
        """
        quarantine = None if first_deployment else self.quarantine_ms
        with self._lock:
            done = self._store_init(quarantine)
        if done.created and quarantine is not None:
            log.warning(
                "snowid set up the lease store %s (%s): every ceiling is quarantined for %d ms,"
                " first claims wait that long (snowid lease init --first-deployment avoids it)",
                self.url,
                self._where_text(),
                quarantine,
            )
        if done.upgraded:
            log.warning(
                "snowid upgraded the lease store %s (%s) to store format %d: every ceiling"
                " was raised to at least now + %d ms (holders of an older snowid may still"
                " issue under any identity), so claims wait that long, once",
                self.url,
                self._where_text(),
                STORE_FORMAT,
                self.quarantine_ms,
            )
        self._log_repaired(done.repaired)
        return done

    def _where_text(self) -> str:
        """Where the leases live, as a log or message shows it (``table "public"."t"``)."""
        return ", ".join(
            f"{key} {', '.join(map(str, value)) if isinstance(value, list) else value}"
            for key, value in self._store_where().items()
        )

    def _log_repaired(self, workers: Sequence[int]) -> None:
        """Say once, for the claim or set-up that did it, that lost records were rewritten."""
        if workers:
            log.warning(
                "snowid lease store %s (%s) had lost the lease records of workers %s (%d in"
                " all): a row or key was deleted, or the table truncated, under whoever held"
                " them; they were rewritten with their ceilings quarantined to now + %d ms, so"
                " claims on them wait that long (snowid lease init URL repairs the whole store)",
                self.url,
                self._where_text(),
                worker_ranges(workers),
                len(workers),
                self.quarantine_ms,
            )

    # --- claim --------------------------------------------------------------------------

    def _claim(self, needed_ms: int) -> Grant:
        if self._fatal is not None:
            raise self._fatal
        try:
            return self._claim_once(needed_ms)
        except StoreMissing as missing:
            if self.incarnation is not None:
                self._fail(StoreRegressedError(worker="*", reason=missing.reason))
            self._store_setup()
        except StoreOutdated:
            self.init_store()  # the upgrade, quarantined (it says so)
        except HistoryChanged as changed:
            self._quarantine(changed)
        try:
            return self._claim_once(needed_ms)
        except (StoreMissing, StoreOutdated, HistoryChanged):  # again at once: refuse
            raise StoreRefusedError(
                store=self.url,
                reason="its lease records were gone, older than store format"
                f" {STORE_FORMAT}, or of another history, again right after snowid set it"
                " up, upgraded or quarantined it",
            ) from None

    def _quarantine(self, changed: HistoryChanged) -> None:
        """A claim met a store that failed over or went back in time: quarantine it (or
        find another process did), and say so once."""
        done = self._store_quarantine(changed.seen, changed.found)
        # A release mark is only as good as the ceiling written beside it, and a ceiling
        # already above the quarantine's end is not raised: void every mark explicitly.
        with contextlib.suppress(NotImplementedError, StoreMissing):
            self._store_void_marks()
        self.failovers += 1
        self.quarantine_until_ms = done.until_ms
        log.warning(
            "snowid lease store %s (%s): %s; %s, no operator action is needed",
            self.url,
            self._where_text(),
            describe(done, self._clock.time_ms()),
            (
                "replication=sync, verified at every grant: no quarantine; "
                if self.sync_replication
                else ""
            )
            + ("this process raised them" if done.done_here else "another process raised them"),
        )

    def _failed_over(self, worker: int, found: str) -> NoReturn:
        """A renewal met a server of another history: drop the identity, saying so."""
        self.failovers += 1
        error = StoreFailedOverError(
            worker=worker, store=self.url, seen=self.history or "?", found=found
        )
        self._lose(worker, "", error)

    def _check_skew(self) -> None:
        clock = self._clock
        before = clock.time_ms()
        store_ms = self._store_now_ms()
        after = clock.time_ms()
        skew = self._measured(before, store_ms, after)
        if abs(skew) > self.max_skew_ms + (after - before) // 2 + self.clock_step_ms // 2:
            raise ClockSkewError(skew_ms=skew, max_skew_ms=self.max_skew_ms)

    def _claim_once(self, needed_ms: int) -> Grant:
        del needed_ms
        self._check_skew()
        clock = self._clock
        owner = str(uuid.uuid4())
        sent_ns = clock.monotonic_ns()
        holder = f"{socket.gethostname()} pid {os.getpid()}"
        claimed = self._store_claim(owner, clock.time_ms(), holder)
        if claimed is None:
            raise NoFreeIdentityError(first=self.first, last=self.last, store=self.url)
        self._log_repaired(claimed.repaired)
        worker, epoch = claimed.worker, claimed.epoch
        datacenter, machine = TWITTER.split_worker(worker)
        grant = Grant(datacenter, machine, claimed.old_ceiling + 1, claimed.ceiling, epoch)
        if self.incarnation is not None and claimed.incarnation != self.incarnation:
            self._release_quietly(worker, owner, epoch)
            self._fail(StoreRegressedError(worker=worker, reason="the store's incarnation changed"))
        self.incarnation, self.owner = claimed.incarnation, owner
        self.history = claimed.history
        if claimed.quarantine_until_ms is not None:
            self.quarantine_until_ms = claimed.quarantine_until_ms
        self._grant, self._state = grant, "held"  # held, but not published until the clock is in
        self._renewed(sent_ns)
        try:
            self._wait_for_start(grant)
        except BaseException:
            self._abandon(worker, owner, epoch, grant.start_ms)
            self._set_unheld("unclaimed", "release", "claim abandoned")
            raise
        self._start_thread()
        grant = self._grant
        assert grant is not None
        return self._set_held(grant)

    def _wait_for_start(self, grant: Grant) -> None:
        """The claim starts above the old ceiling: wait (renewing) until the clock is there."""
        clock = self._clock
        limit = self._claim_wait_for(grant)
        give_up = clock.monotonic_ns() + limit * _NS_PER_MS
        ahead = grant.start_ms - clock.time_ms()
        if ahead <= limit:  # one further ahead is refused at once, below
            self._say_long_wait(TWITTER.worker(grant.datacenter, grant.machine), ahead)
        while (now := clock.time_ms()) < grant.start_ms:
            # Further ahead than the whole wait: refused at once, not after waiting in vain.
            ahead = grant.start_ms - now
            if ahead > limit or clock.monotonic_ns() >= give_up:
                raise CeilingAheadError(
                    worker=TWITTER.worker(grant.datacenter, grant.machine),
                    ceiling=grant.start_ms - 1,
                    ahead_ms=ahead,
                    max_ms=limit,
                )
            clock.sleep(min((grant.start_ms - now) / 1000, self.renew_ms / 1000))
            if clock.monotonic_ns() >= self._next_renew_ns:
                self._renew_now(publish=False)

    def _claim_wait_for(self, grant: Grant) -> int:
        """How long a claim may wait for its start: ``claim_wait``, or longer for a start
        a failover quarantine set (that quarantine plus this host's clock behind the
        store's by up to ``max_skew``, and a second to spare)."""
        until = self.quarantine_until_ms
        if until is None or grant.start_ms - 1 > until:
            return self.claim_wait_ms
        return max(self.claim_wait_ms, self.failover_quarantine_ms + self.max_skew_ms + 1000)

    def _abandon(self, worker: int, owner: str, epoch: int, start_ms: int) -> None:
        """Give back a claim that issued nothing (its start was too far ahead to wait for, or
        the wait was interrupted). Its compare-and-set raised the ceiling by a span, so a
        plain release would move the next claim's start a span further on: a process that
        kept retrying pushed the start ahead faster than the clock caught up, and the
        identity was never claimable again (found by bench/faults.py after a quarantine).
        Where the store keeps release marks the claim is released with the mark start - 1,
        so the next claim starts where this one would have: nothing was issued above it.
        Where that fails (taken over meanwhile), a plain release, as before."""
        try:
            if self._store_release_mark(worker, owner, epoch, start_ms - 1):
                return
        except (NotImplementedError, StoreOutdated, StoreMissing):
            pass
        except LeaseError:
            return  # quiet: the TTL frees the identity
        self._release_quietly(worker, owner, epoch)

    def _release_quietly(self, worker: int, owner: str, epoch: int) -> None:
        with contextlib.suppress(LeaseError):
            self._store_release(worker, owner, epoch)

    # --- renew --------------------------------------------------------------------------

    def _renewed(self, sent_ns: int) -> None:
        # Deadline from the boot clock read BEFORE sending: TTL*(1 - 1% drift) - 10% margin.
        self._deadline_ns = sent_ns + round(self.ttl_ms * 0.89) * _NS_PER_MS
        self._next_renew_ns = sent_ns + self.renew_ms * _NS_PER_MS
        self.renewals += 1

    def _renew_now(self, *, publish: bool = True) -> Grant:
        """One CAS renewal (caller holds the lock). Raises LeaseLost/StoreRegressed/Unreachable."""
        grant, owner = self._grant, self.owner
        assert grant is not None
        assert owner is not None
        worker = TWITTER.worker(grant.datacenter, grant.machine)
        clock = self._clock
        sent_ns = clock.monotonic_ns()
        sent_ms = clock.time_ms()
        try:
            answer = self._store_renew(worker, owner, grant.epoch, sent_ms, grant.ceiling_ms)
        except StoreUnreachableError:
            self.renew_failures += 1
            self._store_down_until_ns = clock.monotonic_ns() + self.renew_ms * _NS_PER_MS
            raise
        except StoreMissing as missing:
            self._fail(StoreRegressedError(worker=worker, reason=missing.reason))
        except StoreOutdated:
            self._outdated(worker, owner, grant.epoch)
        if answer.status == "removed":
            self._removed(worker)
        if answer.status == "modified":
            self._modified(worker)
        if answer.status == "lost":
            self._diagnose_lost(worker, owner, grant.epoch, grant.ceiling_ms)
        if answer.old_ceiling < grant.ceiling_ms:
            self._fail(
                StoreRegressedError(
                    worker=worker,
                    reason=f"ceiling {answer.old_ceiling} is below the acknowledged"
                    f" {grant.ceiling_ms}",
                )
            )
        if answer.status == "restarted":
            self._lose(worker, answer.reason)
        if answer.store_ms is not None:
            self._measured(sent_ms, answer.store_ms, clock.time_ms())
        self._renewed(sent_ns)
        self._store_down_until_ns = 0
        if not publish:
            self._grant = Grant(
                grant.datacenter, grant.machine, grant.start_ms, answer.ceiling, grant.epoch
            )
            return self._grant
        return self._raise_ceiling(answer.ceiling)

    def _diagnose_lost(self, worker: int, owner: str, epoch: int, acked_ms: int) -> NoReturn:
        try:
            incarnation = self._store_incarnation()
        except StoreMissing:
            incarnation = None
        if incarnation != self.incarnation:
            self._fail(StoreRegressedError(worker=worker, reason="the store's incarnation changed"))
        found = self._store_history() if self.history is not None else None
        if found is not None and found != self.history:
            self._failed_over(worker, found)
        how = self._store_lost_how(worker, owner, epoch, acked_ms)
        if how == "outdated":
            self._outdated(worker, owner, epoch)
        if how == "removed":
            self._removed(worker)
        if how == "modified":
            self._modified(worker)
        self._lose(worker, "another process claimed it (owner/epoch mismatch)")

    def _removed(self, worker: int) -> NoReturn:
        """The worker's record was deleted under this holder: drop the identity, saying so."""
        self._lose(
            worker, "", LeaseRemovedError(worker=worker, store=self.url, where=self._where_text())
        )

    def _outdated(self, worker: int, owner: str, epoch: int) -> NoReturn:
        """The renewal met a store of an older format and wrote nothing: give the lease
        back (a compare-and-set on the expiry alone, no ceiling touched) so the claim that
        follows, which upgrades the store, may take it again; drop the identity."""
        self._release_quietly(worker, owner, epoch)
        self._lose(worker, outdated_reason())

    def _modified(self, worker: int) -> NoReturn:
        """The worker's owner or epoch was edited under this holder: drop the identity."""
        self._lose(
            worker, "", LeaseModifiedError(worker=worker, store=self.url, where=self._where_text())
        )

    def _lose(self, worker: int, reason: str, error: LeaseLostError | None = None) -> NoReturn:
        """Drop the identity (the next acquire claims a new one)."""
        error = error or LeaseLostError(worker=worker, reason=reason)
        detail = reason or str(error)
        with contextlib.suppress(LeaseError):
            self._store_dropped(worker)
        self._set_unheld("lost", "lost", detail)
        log.warning("snowid lease on worker %s lost: %s", worker, detail)
        raise error

    def _fail(self, error: LeaseError) -> NoReturn:
        """Fail closed for good: the store broke its promises (wiped, rolled back)."""
        self._fatal = error
        self._set_unheld("lost", "lost", str(error))
        log.error("snowid lease failed closed: %s", error)
        raise error

    def _extend(self, grant: Grant, needed_ms: int) -> Grant:
        del needed_ms
        if self._fatal is not None:
            raise self._fatal
        if self._clock.monotonic_ns() < self._store_down_until_ns:
            self.ceiling_ms = -1 if self._past_deadline() else self.ceiling_ms
            raise StoreUnreachableError(store=self.url, reason="the last renewal failed")
        try:
            return self._renew_now()
        except StoreFailedOverError:
            raise  # said to the caller; the next acquire claims, quarantined
        except LeaseLostError:
            return self._claim(self._clock.time_ms())  # a new identity, starting afresh
        except StoreUnreachableError:
            if self._past_deadline():
                self.ceiling_ms = -1
            raise

    def _past_deadline(self) -> bool:
        return self._clock.monotonic_ns() >= self._deadline_ns

    # --- background renewal -------------------------------------------------------------

    def _start_thread(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew_loop, name="snowid-lease", daemon=True)
        self._thread.start()

    def _renew_loop(self) -> None:
        stop, clock = self._stop, self._clock
        while not stop.is_set():
            with self._lock:
                if self._state == "held" and not stop.is_set():
                    self._tick()
                wake = min(self._next_renew_ns, self._deadline_ns)
                if self._state != "held":
                    wake = clock.monotonic_ns() + self.renew_ms * _NS_PER_MS
            stop.wait(max(0.001, min((wake - clock.monotonic_ns()) / 1e9, self.renew_ms / 1000)))

    def _tick(self) -> None:
        if self._clock.monotonic_ns() >= self._next_renew_ns:
            try:
                self._renew_now()
            except StoreUnreachableError as error:
                log.warning("snowid lease renewal failed: %s", error)
                self._next_renew_ns = self._clock.monotonic_ns() + self.renew_ms * _NS_PER_MS // 3
            except LeaseError:
                return
        if self._past_deadline() and self.ceiling_ms != -1:
            self.ceiling_ms = -1
            grant = self._grant
            if grant is not None:
                self._event("expired", grant, "local deadline passed without renewal")

    # --- release / close / fork ---------------------------------------------------------

    def _release(self, grant: Grant) -> None:
        worker = TWITTER.worker(grant.datacenter, grant.machine)
        if self.owner is not None:
            self.release_error = None
            try:
                self._store_release(worker, self.owner, grant.epoch)
            except LeaseError as error:  # quiet, as before: the TTL frees the identity
                self.release_error = error

    def _release_marked(self, grant: Grant, mark_ms: int) -> None:
        worker = TWITTER.worker(grant.datacenter, grant.machine)
        owner = self.owner
        if owner is None:
            return
        self._stop.set()  # no renewal after this: a renewal would void the mark anyway
        self.release_error = None
        try:
            if self._store_release_mark(worker, owner, grant.epoch, mark_ms):
                self._event("release", grant, f"handed over after {mark_ms}")
                return
        except (NotImplementedError, StoreOutdated, StoreMissing):
            pass  # no mark here: released as before, below
        except LeaseError as error:  # quiet, as before: the TTL frees the identity
            self.release_error = error
            return
        super()._release_marked(grant, mark_ms)

    def void_release_marks(self) -> int:
        """Void every release mark of the store, so that every claim starts above its
        worker's ceiling again; how many were voided. For whatever learns that the store
        may have lost writes (a failover, a rollback): a mark is only as good as the
        ceiling it was written beside. Quarantines that raise ceilings void marks anyway
        (a mark counts only while its ceiling is the worker's ceiling)."""
        with self._lock:
            try:
                return self._store_void_marks()
            except (NotImplementedError, StoreMissing):
                return 0

    def _stop_renewing(self) -> None:
        self._stop.set()  # the loop checks it under the lock that retire holds

    def _close_resources(self) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            self._lock.release()  # let a renewal in progress finish
            try:
                thread.join(timeout=self.timeout_s + 1)
            finally:
                self._lock.acquire()
        self._drop_connection()

    def _drop_inherited(self) -> None:
        self._thread, self._stop = None, threading.Event()
        self.owner = None
        self._clock_offset_ms = None
        self._abandon_connection()
