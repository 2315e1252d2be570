"""etcd leases for fleets (``etcd://HOST:PORT[,HOST:PORT…]/PREFIX``), through etcd's v3
JSON gateway, over the standard library (``_etcdgw``: no package to install).

The protocol is the one every networked store shares (``_store.StoreLease``); what is
etcd's (keys in ``_etcdkv``, requests in ``_etcdgw``):

- **claim**: one transaction per candidate worker, which creates the worker's ``held`` key
  only if it is absent (bound to an etcd lease of this holder's, so a crashed holder's key
  goes when etcd expires its lease) and writes the worker's record (ceiling, epoch, owner)
  only if its ``mod_revision`` is still the one read, with the meta record unchanged.
  A range of up to 64 workers is read whole and tried lowest start first, then in random
  order among those that can start at once; in a larger one a claim reads the records
  and ``held`` keys of a few consecutive workers at a place drawn at random (two key
  ranges) and tries those free that can start at once, in random order, so a thousand
  claimants neither read every key nor all race for one.
- **renewal**: the etcd lease kept alive, then the record rewritten with the raised
  ceiling by a compare-and-set on its ``mod_revision``. A holder stops issuing at its own
  deadline (boot clock, ``_store``), whatever etcd's lease says: etcd's expiry only frees
  the worker for the next claim, which starts above the record's ceiling anyway.
- **release**: the holder's etcd lease revoked (its ``held`` key goes with it); the
  ceiling stays. A clean stop (every generator sealed) instead writes the hand-over mark
  into the record and deletes the ``held`` key in one transaction that compares the
  record's and the meta key's ``mod_revision`` with this holder's last writes.
- etcd has no clock to read: the gateway's HTTP ``Date`` is the store's clock (whole
  seconds), so clock checks allow half a second more (``CLOCK_STEP_MS``).
- A record found deleted is written again quarantined (never read as "never used"), a
  write whose answer was lost is recognised by its owner and epoch, a prefix holding keys
  that are not snowid's is refused.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
import time
import uuid
from typing import Any, NoReturn, Unpack

from snowid._exceptions import StoreRefusedError, StoreUnreachableError
from snowid.ids import TWITTER, Clock
from snowid.lease._base import IdentityStatus
from snowid.lease._etcdgw import CLOCK_STEP_MS, Gateway
from snowid.lease._etcdkv import (
    MARK,
    MAX_CEILING,
    WHOLE,
    Keys,
    Kv,
    Record,
    RecordChecks,
    absent,
    at_once,
    candidates,
    delete,
    get,
    held_text,
    kvs,
    meta_text,
    put,
    read,
    removed_text,
    same_mod,
)
from snowid.lease._failover import HistoryChanged, Quarantine
from snowid.lease._store import (
    Claimed,
    Initialised,
    LostHow,
    Renewed,
    StoreLease,
    StoreOptions,
    StoreOutdated,
)
from snowid.lease._storeops import STORE_FORMAT
from snowid.lease._url import CLUSTER_OPTIONS, LeaseUrl, read_cluster_url

__all__ = ["OPTIONS", "EtcdLease"]

OPTIONS = CLUSTER_OPTIONS
_DEFAULT_PORT = 2379
_BATCH = 64  # compares and puts per transaction (etcd's --max-txn-ops is 128 by default)
_ROUNDS = 20  # snapshots a claim or set-up reads before it gives up on a store that churns
_SAMPLE = 8
"""Workers whose records (and ``held`` keys) a claim in a large range reads first, all in
one request: consecutive ones, from a place drawn at random, so that the request is two
key ranges, not sixteen keys (what a member's gateway and its consensus cost grows with
the operations in a request); ZooKeeper, a request per record, reads fewer."""
_THEN = 16
"""How many of the next workers to try a failed claim reads the ``held`` keys of (etcd
allows 128 operations a transaction)."""
_View = tuple[Kv | None, dict[str, Any], dict[int, Kv], dict[int, Record] | list[int]]
_AGAIN: _View = (None, {}, {}, {})  # a claim's view of a store that changed: read it again


class EtcdLease(RecordChecks, StoreLease):
    """A worker identity in ``[first, last]`` leased from etcd keys under ``prefix``."""

    clock_step_ms = CLOCK_STEP_MS

    def __init__(
        self,
        endpoints: list[tuple[str, int]],
        *,
        prefix: str = "snowid",
        user: str | None = None,
        password: str | None = None,
        connect_timeout: float = 2.0,
        url: str = "etcd://",
        clock: Clock | None = None,
        **options: Unpack[StoreOptions],
    ) -> None:
        super().__init__(url=url, clock=clock, **options)
        self.endpoints = list(endpoints)
        self.keys = Keys(prefix)
        self.user = user
        self._password = password
        self.connect_timeout = connect_timeout
        self.etcd_ttl = max(1, math.ceil(self.ttl_ms / 1000))
        self._etcd_lease = 0
        self._meta_rev = 0
        self._rev = 0  # our record's mod_revision, as we last wrote it
        self._record: Record | None = None
        self._cluster = ""  # the cluster_id of the last answer: the store's history
        self._seen_rev = 0  # the highest revision any answer of this store carried
        self._went_back: str | None = None  # how the store was seen going back (a restore)
        self._meta_quarantine: object = None  # the meta's last quarantine when we claimed
        # A claim's first read, made by the clock check just before it (``_store_now_ms``):
        # (the workers drawn, the answers), used by the claim's first round.
        self._first_read: list[dict[str, Any]] | None = None

    @classmethod
    def from_url(cls, url: LeaseUrl, *, clock: Clock | None = None) -> EtcdLease:
        """``etcd://[USER@]HOST:PORT[,HOST:PORT…]/PREFIX?range=…&ttl=…``; the password
        only from ``password_file=`` or ``ETCDCTL_PASSWORD`` (with ``ETCDCTL_USER``)."""
        where = read_cluster_url(url, _DEFAULT_PORT)
        options = cls.read_options(url)
        user, password = where.user, where.password
        env_user, _, env_password = os.environ.get("ETCDCTL_USER", "").partition(":")
        if user is None and env_user:
            user = env_user
        if password is None and user is not None:
            password = os.environ.get("ETCDCTL_PASSWORD") or env_password or None
        return cls(
            where.endpoints, prefix=where.path, user=user, password=password, url=url.shown,
            clock=clock, **where.own, **options,
        )  # fmt: skip

    # --- the connection -----------------------------------------------------------------

    def _gateway(self) -> Gateway:
        if self._conn is None:
            self._conn = Gateway(
                self.endpoints, timeout=self.timeout_s, connect_timeout=self.connect_timeout,
                store=self.url, user=self.user, password=self._password,
            )  # fmt: skip
        gateway: Gateway = self._conn
        return gateway

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._gateway().post(path, body)

    def _txn(
        self, compare: list[Any], success: list[Any], failure: list[Any] | None = None
    ) -> tuple[bool, list[dict[str, Any]], int]:
        """One transaction: whether it succeeded, its responses, its revision."""
        answer = self._post(
            "kv/txn", {"compare": compare, "success": success, "failure": failure or []}
        )
        header = answer.get("header", {})
        revision = int(header.get("revision", 0))
        if not revision or not header.get("cluster_id"):
            # No header to judge by (etcd always sends one): never read as a restore.
            return bool(answer.get("succeeded")), list(answer.get("responses", [])), revision
        self._cluster = str(header["cluster_id"])
        if revision < self._seen_rev and self._went_back is None:
            # Revisions only grow, and every request here is linearizable: an answer
            # below one already seen comes from a store restored from a snapshot.
            self._went_back = f"{self._cluster} at revision {revision} (after {self._seen_rev})"
        self._seen_rev = max(self._seen_rev, revision)
        return bool(answer.get("succeeded")), list(answer.get("responses", [])), revision

    def _store_ms(self, fallback: int) -> int:
        """The store's clock at its latest (the end of the last ``Date`` second seen): what
        quarantines and caps are computed from."""
        found = self._gateway().now_ms()
        return fallback if found is None else found + CLOCK_STEP_MS // 2

    def _drop_inherited(self) -> None:
        super()._drop_inherited()
        self._etcd_lease, self._rev, self._record = 0, 0, None

    # --- reading the store ----------------------------------------------------------------

    def _snapshot(self, first: int, last: int) -> tuple[Kv | None, dict[int, Kv], dict[int, Kv]]:
        """The meta record and the workers' records and held keys, from one revision."""
        keys = self.keys
        ok, responses, _ = self._txn(
            [],
            [
                get(keys.meta),
                get(keys.ceiling(first), keys.ceiling(last + 1)),
                get(keys.held(first), keys.held(last + 1)),
            ],
        )
        meta = next(iter(kvs(responses[0])), None)
        records = {keys.worker_of(kv.key): kv for kv in kvs(responses[1])}
        held = {keys.worker_of(kv.key): kv for kv in kvs(responses[2])}
        del ok
        return meta, records, held

    def _meta(self, kv: Kv | None) -> dict[str, Any]:
        return self._meta_data(self.keys.meta, None if kv is None else kv.value)

    def _parse(self, kv: Kv) -> Record:
        return self._record_at(kv.key, kv.value)

    # --- the store operations -----------------------------------------------------------

    def _store_now_ms(self) -> int:
        """The store's clock for the check before a claim: on a range the claim samples,
        from the claim's own first read, made now and kept for its first round (one
        request fewer a claim: a thousand claimants at once are CPU-bound); else from a
        status request. Only reads happen before the check, and a kept read that went
        stale meanwhile only fails the claim's compare-and-swap (read again)."""
        self._first_read = None
        if self.last - self.first + 1 > WHOLE:
            self._first_read = self._sample_read()
        else:
            self._post("maintenance/status", {})
        found = self._gateway().now_ms()
        return self._clock.time_ms() if found is None else found

    def _grant_etcd_lease(self) -> int:
        answer = self._post("lease/grant", {"TTL": self.etcd_ttl, "ID": 0})
        return int(answer["ID"])

    def _revoke(self, lease: int) -> None:
        if lease:
            try:
                self._post("lease/revoke", {"ID": str(lease)})
            except StoreRefusedError as error:
                if "lease not found" not in error.reason:
                    raise

    def _store_claim(self, owner: str, caller_ms: int, holder: str) -> Claimed | None:
        lease, granted = 0, 0.0
        repaired: list[int] = []
        try:
            for _ in range(_ROUNDS):
                meta_kv, meta, records, free = self._claim_view(caller_ms)
                if meta_kv is None:
                    continue  # the store changed (set up or repaired): read it again
                if isinstance(free, list):  # records missing: rewritten, quarantined
                    repaired += free
                    continue
                if not free:
                    return None
                if lease and time.monotonic() - granted > self.etcd_ttl / 2:
                    # Rounds on a busy store outlast the etcd lease: never put a held key
                    # on one that may have run out (etcd refuses it: not found).
                    self._revoke_quietly(lease)
                    lease = 0
                if not lease:
                    lease, granted = self._grant_etcd_lease(), time.monotonic()
                cluster, now = self._cluster, self._store_ms(caller_ms)
                pending = list(free)  # in the order to try them
                while pending:
                    worker = pending.pop(0)
                    claimed, taken = self._try_claim(
                        worker, records[worker], free[worker], meta_kv=meta_kv, owner=owner,
                        caller_ms=caller_ms, now=now, holder=holder, lease=lease, then=pending[:_THEN],
                    )  # fmt: skip
                    if claimed is None:
                        pending = [w for w in pending if w not in taken]
                        continue
                    assert claimed.start is not None
                    if self._cluster != cluster or self._went_back is not None:
                        # Restored between the read and the claim: a grant not to use.
                        self._record = None
                        raise HistoryChanged(cluster, self._went_back or self._cluster)
                    lease, self._etcd_lease = 0, lease
                    self._meta_quarantine = meta.get("quarantine_at_ms")
                    until = meta.get("quarantine_until_ms")
                    return Claimed(
                        worker, claimed.start - 1, claimed.ceiling, claimed.epoch,
                        str(meta["incarnation"]), tuple(repaired), cluster,
                        until if isinstance(until, int) else None,
                    )  # fmt: skip
            raise StoreUnreachableError(
                store=self.url,
                reason=f"every claim lost its race {_ROUNDS} times running: too many"
                " claimants at once for the range",
            )
        finally:
            if lease:
                self._revoke_quietly(lease)

    def _claim_view(self, caller_ms: int) -> _View:
        """What one round of a claim reads: the meta key (None: read again), its fields,
        and the free workers to try, in the order to try them, with their records; or the
        workers whose missing records it rewrote (a list).

        A range of up to ``WHOLE`` workers is read whole (``_full_view``). In a larger one,
        first the meta key, how many records there are, and the records and ``held`` keys
        of ``_SAMPLE`` consecutive workers from a place drawn at random, in one request
        (``_sample_read``); if none of those is free and
        can start at once, which workers are held (keys only), then the records of
        ``_SAMPLE`` free workers drawn at random: a thousand claimants at once read a few
        keys each, not every key each. Only when no worker of either sample can start at
        once (or records are missing) are all records read, so a claim still takes one
        that can start at once if there is one, else the one whose old grant runs out
        first."""
        keys = self.keys
        size = self.last - self.first + 1
        if size <= WHOLE:
            return self._full_view(caller_ms)
        responses = self._first_read or self._sample_read()
        self._first_read = None
        meta_kv = next(iter(kvs(responses[0])), None)
        meta = self._checked_meta(meta_kv)
        if meta is None:
            return _AGAIN
        present = int(responses[1].get("response_range", {}).get("count", 0))
        if present == size:
            records = {keys.worker_of(kv.key): kv for kv in kvs(responses[2])}
            held = {keys.worker_of(kv.key) for kv in kvs(responses[3])}
            blind_free = {w: self._parse(kv) for w, kv in records.items() if w not in held}
            if ready := at_once(blind_free, caller_ms):
                return meta_kv, meta, records, {w: blind_free[w] for w in ready}
            free = self._free()
            records, parsed = self._sample(free)
            if len(parsed) == len(free):  # every free worker, or none: all held
                return meta_kv, meta, records, _ordered(parsed, caller_ms)
            if ready := at_once(parsed, caller_ms):
                return meta_kv, meta, records, {w: parsed[w] for w in ready}
        return self._full_view(caller_ms)

    def _sample_read(self) -> list[dict[str, Any]]:
        """The first read of a claim on a large range (``_claim_view``): the answers for
        the meta key, how many records there are, and the records and ``held`` keys of
        ``_SAMPLE`` consecutive workers from a place drawn at random (two key ranges, not
        sixteen keys), from one revision. The place never runs past the range's end, so the
        first and last few workers are drawn less often; a claim that finds none of its
        sample free reads which workers are held, and finds them there."""
        keys = self.keys
        width = min(_SAMPLE, self.last - self.first + 1)
        start = random.randint(self.first, self.last + 1 - width)
        _, responses, _ = self._txn(
            [],
            [
                get(keys.meta),
                get(keys.ceiling(self.first), keys.ceiling(self.last + 1), count_only=True),
                get(keys.ceiling(start), keys.ceiling(start + width)),
                get(keys.held(start), keys.held(start + width), keys_only=True),
            ],
        )
        return responses

    def _free(self) -> list[int]:
        """The workers in range no ``held`` key names (read as keys only)."""
        keys = self.keys
        _, responses, _ = self._txn(
            [], [get(keys.held(self.first), keys.held(self.last + 1), keys_only=True)]
        )
        held = {keys.worker_of(kv.key) for kv in kvs(responses[0])}
        return [w for w in range(self.first, self.last + 1) if w not in held]

    def _full_view(self, caller_ms: int) -> _View:
        """``_claim_view`` from every record, read from one revision with the meta key:
        the free workers in the protocol's order (``_ordered``)."""
        meta_kv, records, held = self._snapshot(self.first, self.last)
        meta = self._checked_meta(meta_kv)
        if meta is None:
            return _AGAIN
        assert meta_kv is not None
        repaired = self._repair_missing(meta_kv, records)
        if repaired is None:
            return _AGAIN
        if repaired:
            return meta_kv, meta, {}, repaired
        parsed = {w: self._parse(kv) for w, kv in records.items() if w not in held}
        return meta_kv, meta, records, _ordered(parsed, caller_ms)

    def _sample(self, free: list[int]) -> tuple[dict[int, Kv], dict[int, Record]]:
        """The records of up to ``_SAMPLE`` of the ``free`` workers, drawn at random."""
        keys = self.keys
        sample = random.sample(free, min(_SAMPLE, len(free)))
        if not sample:
            return {}, {}
        _, responses, _ = self._txn([], [get(keys.ceiling(w)) for w in sample])
        records = {keys.worker_of(kv.key): kv for r in responses for kv in kvs(r)}
        return records, {w: self._parse(kv) for w, kv in records.items()}

    def _checked_meta(self, meta_kv: Kv | None) -> dict[str, Any] | None:
        """The meta key's fields, checked: StoreMissing, StoreOutdated, HistoryChanged;
        None when it was just given the cluster it lacked (read it again)."""
        meta = self._meta(meta_kv)
        assert meta_kv is not None
        if self._format(meta) < STORE_FORMAT:
            raise StoreOutdated
        return meta if self._same_history(meta_kv, meta) else None

    def _same_history(self, meta_kv: Kv, meta: dict[str, Any]) -> bool:
        """Whether the cluster that answered the last read is the one the store recorded;
        HistoryChanged if it is not, or if this process saw the store go back (a revision
        or a record of its own older than one it had seen). A store set up without a
        recorded cluster records this one (False: read it again)."""
        if self._went_back is not None:
            raise HistoryChanged(str(meta.get("history", self._cluster)), self._went_back)
        recorded = meta.get("history")
        if recorded is None:
            self._txn(
                [same_mod(self.keys.meta, meta_kv.mod)],
                [put(self.keys.meta, meta_text({**meta, "history": self._cluster}))],
            )
            return False
        if str(recorded) != self._cluster:
            raise HistoryChanged(str(recorded), self._cluster)
        return True

    def _revoke_quietly(self, lease: int) -> None:
        # Left alone, it runs out by itself, taking the held key it may have been given.
        with contextlib.suppress(StoreRefusedError, StoreUnreachableError):
            self._revoke(lease)

    def _try_claim(
        self, worker: int, kv: Kv, record: Record, *, meta_kv: Kv, owner: str,
        caller_ms: int, now: int, holder: str, lease: int, then: list[int],
    ) -> tuple[Record | None, set[int]]:  # fmt: skip
        """The record written for ``worker`` claimed (its grant: ``start`` to ``ceiling``),
        or None if another claimant was first, with which of the workers to try ``then``
        are held by now (read in the same transaction when it fails: a crowd does not
        spend a compare-and-swap on a worker taken since its read)."""
        proposal = min(caller_ms, now + self.max_skew_ms)
        written = record.claimed(proposal, self.span_ms, owner=owner, holder=holder, now=now)
        held = held_text(owner, written.epoch, now + self.ttl_ms)
        keys = self.keys
        ok, responses, revision = self._txn(
            [same_mod(keys.meta, meta_kv.mod), same_mod(kv.key, kv.mod), absent(keys.held(worker))],
            [put(kv.key, written.text()), put(keys.held(worker), held, lease)],
            _held_reads(keys, then),
        )
        if not ok:
            taken = {keys.worker_of(found.key) for r in responses for found in kvs(r)}
            return None, taken & set(then)
        self._meta_rev, self._rev, self._record = meta_kv.mod, revision, written
        return written, set()

    def _repair_missing(self, meta_kv: Kv, records: dict[int, Kv]) -> list[int] | None:
        """Write the records missing in range again, quarantined; the workers (None: the
        store changed meanwhile)."""
        missing = [w for w in range(self.first, self.last + 1) if w not in records]
        if not missing:
            return []
        floor = self._store_ms(self._clock.time_ms()) + self.quarantine_ms
        writes = [
            (absent(self.keys.ceiling(w)), put(self.keys.ceiling(w), removed_text(floor)))
            for w in missing
        ]
        if not self._write(writes, same_mod(self.keys.meta, meta_kv.mod)):
            return None
        return missing

    def _write(self, writes: list[tuple[Any, Any]], *guards: Any) -> bool:
        """(compare, put) pairs in transactions of ``_BATCH``; False if one failed."""
        for start in range(0, len(writes), _BATCH):
            batch = writes[start : start + _BATCH]
            ok, _, _ = self._txn([*guards, *(c for c, _ in batch)], [p for _, p in batch])
            if not ok:
                return False
        return True

    def _store_renew(
        self, worker: int, owner: str, epoch: int, caller_ms: int, acked_ms: int
    ) -> Renewed:
        record = self._record
        if record is None or record.owner != owner or record.epoch != epoch:
            return Renewed("lost")
        self._keep_alive()
        now = self._store_ms(caller_ms)
        proposal = min(caller_ms + self.span_ms, now + self.span_ms + self.max_skew_ms)
        keys = self.keys
        for _ in range(2):
            record = self._record
            assert record is not None
            ceiling = max(record.ceiling, min(proposal, MAX_CEILING))
            written = record.renewed(ceiling)
            ok, responses, revision = self._txn(
                [same_mod(keys.meta, self._meta_rev), same_mod(keys.ceiling(worker), self._rev)],
                [
                    put(keys.ceiling(worker), written.text()),
                    put(
                        keys.held(worker),
                        held_text(owner, epoch, now + self.ttl_ms),
                        self._etcd_lease,
                    ),
                ],
                [get(keys.meta), get(keys.ceiling(worker))],
            )
            self._check_history(worker)
            if ok:
                self._rev, self._record = revision, written
                seen = self._gateway().now_ms()  # the middle of the Date second: the offset's
                return Renewed("ok", record.ceiling, ceiling, store_ms=seen)
            meta_kv = next(iter(kvs(responses[0])), None)
            found = next(iter(kvs(responses[1])), None)
            answer = self._failed_renewal(worker, acked_ms, meta_kv, found)
            if answer is not None:
                if answer.status != "ok":  # the worker is not ours: free its held key now
                    self._revoke_quietly(self._etcd_lease)
                    self._etcd_lease = 0
                return answer
        return Renewed("lost")

    def _failed_renewal(
        self, worker: int, acked_ms: int, meta_kv: Kv | None, found: Kv | None
    ) -> Renewed | None:
        """Why the renewal's compare-and-set failed; None when it was our own write whose
        answer was lost, or an edit that kept its owner and epoch (adopted: the renewal
        tries again)."""
        meta = self._meta(meta_kv)
        assert meta_kv is not None
        if str(meta["incarnation"]) != self.incarnation:
            return Renewed("lost")
        if self._format(meta) < STORE_FORMAT:
            raise StoreOutdated
        if found is not None and found.mod < self._rev:
            # A key's mod_revision only grows: this one is older than our own last write.
            self._went_back = (
                f"{self._cluster}: the record of worker {worker} went back from revision"
                f" {self._rev} to {found.mod}"
            )
            self._check_history(worker)
        if meta.get("quarantine_at_ms") != self._meta_quarantine:
            # Another process quarantined the store (it saw it go back): every lease freed.
            self._went_back = None
            self._lost_history(worker, str(meta.get("quarantine_found", self._cluster)))
        self._meta_rev = meta_kv.mod  # a meta change that kept all of that (its cluster)
        if found is None:
            floor = self._store_ms(self._clock.time_ms()) + self.quarantine_ms
            key = self.keys.ceiling(worker)
            self._write([(absent(key), put(key, removed_text(max(floor, acked_ms))))])
            return Renewed("removed")
        record = self._parse(found)
        if record.owner == self.owner and record.epoch == self._record_epoch():
            # Still ours: a write of ours whose answer was lost, or an edit of the ceiling
            # that kept owner and epoch. A ceiling below the acknowledged one is a store
            # that went back: answered as it is, so the holder fails closed.
            if record.ceiling < acked_ms:
                return Renewed("ok", record.ceiling, acked_ms)
            self._rev, self._record = found.mod, record
            return None
        return Renewed("lost")

    def _check_history(self, worker: int) -> None:
        """After a renewal's request: StoreFailedOverError if the store went back or
        another cluster answered (a restore), whether the compare-and-set held or not."""
        found = self._went_back
        if found is None and self.history is not None and self._cluster != self.history:
            found = self._cluster
        if found is not None:
            self._lost_history(worker, found)

    def _lost_history(self, worker: int, found: str) -> NoReturn:
        """Drop the worker of a store restored under it (the next claim quarantines)."""
        self._revoke_quietly(self._etcd_lease)
        self._etcd_lease, self._record = 0, None
        self._failed_over(worker, found)

    def _record_epoch(self) -> int:
        return -1 if self._record is None else self._record.epoch

    def _keep_alive(self) -> None:
        """Keep this holder's etcd lease alive; a new one if etcd let it run out (the
        renewal's compare-and-set, not the etcd lease, says whether the worker is ours).

        Past the holder's own deadline the old etcd lease is left to run out: a slow
        network delivers keep-alives long after they timed out here, and they would keep
        the worker held for a holder that no longer issues."""
        if self._etcd_lease and not self._past_deadline():
            answer = self._post("lease/keepalive", {"ID": str(self._etcd_lease)})
            if int(answer.get("result", {}).get("TTL", 0)) > 0:
                return
        self._etcd_lease = self._grant_etcd_lease()

    def _store_release(self, worker: int, owner: str, epoch: int) -> None:
        del worker, owner, epoch
        lease, self._etcd_lease = self._etcd_lease, 0
        self._record = None
        self._revoke(lease)

    def _store_release_mark(self, worker: int, owner: str, epoch: int, mark_ms: int) -> bool:
        """The mark written and the ``held`` key deleted in one transaction, only while the
        record and the meta key are as this holder last wrote or read them (their
        ``mod_revision``: any write since, a claim's, a quarantine's, an edit's, fails it and
        nothing is written); then the etcd lease revoked."""
        record = self._record
        marked = None if record is None else record.released_by(owner, epoch, mark_ms)
        if marked is None:
            return False
        keys = self.keys
        ok, _, _ = self._txn(
            [same_mod(keys.meta, self._meta_rev), same_mod(keys.ceiling(worker), self._rev)],
            [put(keys.ceiling(worker), marked.text()), delete(keys.held(worker))],
        )
        if not ok:
            return False
        lease, self._etcd_lease, self._record = self._etcd_lease, 0, None
        self._revoke_quietly(lease)  # its held key is gone already
        return True

    def _store_void_marks(self) -> int:
        voided = 0
        for _ in range(_ROUNDS):
            meta_kv, records, _ = self._snapshot(0, TWITTER.max_worker)
            self._meta(meta_kv)  # StoreMissing on a store with no meta key
            writes = [
                (same_mod(kv.key, kv.mod), put(kv.key, record.unmarked().text()))
                for kv in records.values()
                if (record := self._parse(kv)).released is not None
            ]
            if not writes:
                return voided
            for start in range(0, len(writes), _BATCH):
                batch = writes[start : start + _BATCH]
                if not self._write(batch):
                    break  # a record changed meanwhile: read them again
                voided += len(batch)
            else:
                return voided
        return voided

    # --- failover: a restore (docs/lease-etcd.md, "A store restored from a snapshot") ----

    def _store_history(self) -> str | None:
        self._txn([], [get(self.keys.meta)])
        return self._cluster or None

    def _store_quarantine(self, seen: str, found: str) -> Quarantine:
        """Every ceiling raised to at least max(store-now, the last renewal recorded) +
        ``failover_quarantine_ms``, every held key deleted, then the cluster and the
        quarantine recorded in the meta key: each transaction guarded by the meta key, the
        meta written last, so a quarantine cut short is done again by the next claim."""
        keys = self.keys
        for _ in range(_ROUNDS):
            meta_kv, records, held = self._snapshot(0, TWITTER.max_worker)
            meta = self._meta(meta_kv)
            assert meta_kv is not None
            if self._went_back is None and str(meta.get("history")) == self._cluster:
                done = _quarantine_of(meta)  # another claimant quarantined it first
                if done is not None:
                    return done
            now = self._store_ms(self._clock.time_ms())
            renewed = [
                expires - self.ttl_ms
                for kv in held.values()
                if isinstance(expires := (read(kv.value) or {}).get("expires_ms"), int)
            ]
            until = max([now, *renewed]) + self.failover_quarantine_ms
            writes = []
            for worker in range(TWITTER.max_worker + 1):
                key, kv = keys.ceiling(worker), records.get(worker)
                if kv is None:
                    writes.append((absent(key), put(key, removed_text(until))))
                elif (record := self._parse(kv)).ceiling < until:
                    raised = Record(until, record.epoch, record.owner, record.holder, record.since)
                    writes.append((same_mod(key, kv.mod), put(key, raised.text())))
                elif record.released is not None:  # above the quarantine: its mark voided
                    writes.append((same_mod(key, kv.mod), put(key, record.unmarked().text())))
            if not self._write(writes, same_mod(keys.meta, meta_kv.mod)):
                continue
            recorded = {
                **meta, "history": self._cluster, "quarantine_seen": seen,
                "quarantine_found": found, "quarantine_at_ms": now, "quarantine_until_ms": until,
            }  # fmt: skip
            ok, _, revision = self._txn(
                [same_mod(keys.meta, meta_kv.mod)],
                [
                    delete(keys.held(0), keys.held(TWITTER.max_worker + 1)),
                    put(keys.meta, meta_text(recorded)),
                ],
            )
            if ok:
                self._went_back, self._seen_rev = None, revision  # this history from here on
                return Quarantine(seen, found, now, until, True)
        raise StoreRefusedError(
            store=self.url, reason="its keys kept changing while snowid quarantined it"
        )

    def _store_last_quarantine(self) -> Quarantine | None:
        _, responses, _ = self._txn([], [get(self.keys.meta)])
        meta_kv = next(iter(kvs(responses[0])), None)
        return None if meta_kv is None else _quarantine_of(self._meta(meta_kv))

    def _store_incarnation(self) -> str | None:
        _, responses, _ = self._txn([], [get(self.keys.meta)])
        meta_kv = next(iter(kvs(responses[0])), None)
        if meta_kv is None:
            return None
        return str(self._meta(meta_kv)["incarnation"])

    def _store_lost_how(self, worker: int, owner: str, epoch: int, acked_ms: int) -> LostHow:
        meta_kv, records, _ = self._snapshot(worker, worker)
        kv = records.get(worker)
        meta, text = (None if x is None else x.value for x in (meta_kv, kv))
        return self._lost(
            meta, self.keys.ceiling(worker), text, owner=owner, epoch=epoch, acked_ms=acked_ms
        )

    # --- set-up and status --------------------------------------------------------------

    def _store_init(self, quarantine_ms: int | None) -> Initialised:
        for _ in range(_ROUNDS):
            meta_kv, records, _ = self._snapshot(0, TWITTER.max_worker)
            now = self._store_ms(self._clock.time_ms())
            if meta_kv is not None:
                done = self._init_again(meta_kv, records, now)
            else:
                done = self._init_new(records, now, quarantine_ms)
            if done is not None:
                return done
        raise StoreRefusedError(
            store=self.url, reason="its keys kept changing while snowid set it up"
        )

    def _init_again(self, meta_kv: Kv, records: dict[int, Kv], now: int) -> Initialised | None:
        meta = self._meta(meta_kv)
        upgraded = self._format(meta) < STORE_FORMAT
        floor = now + self.quarantine_ms
        writes, repaired = [], []
        for worker in range(TWITTER.max_worker + 1):
            key = self.keys.ceiling(worker)
            kv = records.get(worker)
            if kv is None:
                writes.append((absent(key), put(key, removed_text(floor))))
                repaired.append(worker)
            elif upgraded and (record := self._parse(kv)).ceiling < floor:
                raised = Record(floor, record.epoch, record.owner, record.holder, record.since)
                writes.append((same_mod(key, kv.mod), put(key, raised.text())))
        if not self._write(writes, same_mod(self.keys.meta, meta_kv.mod)):
            return None
        if upgraded:
            ok, _, _ = self._txn(
                [same_mod(self.keys.meta, meta_kv.mod)],
                [put(self.keys.meta, meta_text({**meta, "format": STORE_FORMAT}))],
            )
            if not ok:
                return None
        return Initialised(str(meta["incarnation"]), False, upgraded, tuple(repaired))

    def _init_new(
        self, records: dict[int, Kv], now: int, quarantine_ms: int | None
    ) -> Initialised | None:
        self._check_prefix_is_ours()
        floor = 0 if quarantine_ms is None else now + quarantine_ms
        writes = []
        for worker in range(TWITTER.max_worker + 1):
            key = self.keys.ceiling(worker)
            kv = records.get(worker)
            if kv is None:
                writes.append((absent(key), put(key, Record(floor).text())))
            elif (record := self._parse(kv)).ceiling < floor:
                raised = Record(floor, record.epoch, record.owner, record.holder, record.since)
                writes.append((same_mod(key, kv.mod), put(key, raised.text())))
        if not self._write(writes, absent(self.keys.meta)):
            return None
        incarnation = str(uuid.uuid4())
        meta = {
            "snowid": MARK, "incarnation": incarnation, "layout": "twitter", "created_ms": now,
            "format": STORE_FORMAT, "history": self._cluster,
        }  # fmt: skip
        ok, _, _ = self._txn([absent(self.keys.meta)], [put(self.keys.meta, meta_text(meta))])
        if not ok:
            return None
        return Initialised(incarnation, True)

    def _check_prefix_is_ours(self) -> None:
        answer = self._post(
            "kv/range",
            {
                "key": get(self.keys.all)["request_range"]["key"],
                "range_end": get(self.keys.all, self.keys.prefix + "0")["request_range"][
                    "range_end"
                ],
                "keys_only": True,
                "limit": 4096,
            },
        )
        for kv in kvs({"response_range": answer}):
            if not self.keys.ours(kv.key):
                raise self._foreign(kv.key)

    def _store_where(self) -> dict[str, object]:
        return {"keys": f"{self.keys.all}*"}

    def _store_missing(self) -> list[int]:
        meta_kv, records, _ = self._snapshot(self.first, self.last)
        if meta_kv is None or self._format(self._meta(meta_kv)) < STORE_FORMAT:
            return []
        return [w for w in range(self.first, self.last + 1) if w not in records]

    def status(self) -> list[IdentityStatus]:
        """Every identity ever claimed: holder, epoch, ceiling (read only)."""
        with self._lock:
            meta_kv, records, held = self._snapshot(self.first, self.last)
        if meta_kv is None:
            return []
        texts = {w: (kv.key, kv.value) for w, kv in records.items()}
        rows = self._rows(texts, {w: kv.value for w, kv in held.items()})
        return self._status_rows(rows)


def _ordered(free: dict[int, Record], caller_ms: int) -> dict[int, Record]:
    """Free workers in the order to try them (``candidates``: the lowest start first,
    then those a claim may start at once in random order, then the rest)."""
    return {w: free[w] for w in candidates(list(free), free, caller_ms)}


def _quarantine_of(meta: dict[str, Any]) -> Quarantine | None:
    """The last quarantine the meta record keeps, if any."""
    at_ms, until_ms = meta.get("quarantine_at_ms"), meta.get("quarantine_until_ms")
    if not isinstance(at_ms, int) or not isinstance(until_ms, int):
        return None
    seen, found = meta.get("quarantine_seen", ""), meta.get("quarantine_found", "")
    return Quarantine(str(seen), str(found or meta.get("history", "")), at_ms, until_ms)


def _held_reads(keys: Keys, workers: list[int]) -> list[dict[str, Any]]:
    """Reads of the ``held`` keys of ``workers`` (keys only): one key range when they lie
    close together (a claim's candidates from one sample), else one read each."""
    if not workers:
        return []
    low, high = min(workers), max(workers)
    if high - low < 2 * _THEN:
        return [get(keys.held(low), keys.held(high + 1), keys_only=True)]
    return [get(keys.held(w), keys_only=True) for w in workers]
