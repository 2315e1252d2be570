"""ZooKeeper leases for fleets (``zookeeper://HOST:PORT[,HOST:PORT…]/PATH``), through kazoo
(imported lazily; ``pip install 'snowid[zookeeper]'``).

The protocol is the one every networked store shares (``_store.StoreLease``); what is
ZooKeeper's (the session in ``_zkconn``; the records are etcd's, ``_etcdkv.Record``):

- nodes under ``/PATH``: ``meta`` (the store's incarnation and format, written once),
  ``ceiling/WWWW`` (the worker's record, persistent: ceiling, epoch, owner, hand-over
  mark), ``held/WWWW`` (ephemeral, of the holder's session: who holds the worker now) and
  ``clock`` (written to read the leader's clock);
- **claim**: one multi-op transaction per candidate worker: the meta node's version
  checked, the record rewritten only if its version is still the one read, and the
  ``held`` node created (it must be absent), ephemeral. In a range of more than 64, a
  claim first reads, side by side, the meta node, how many records there are (the
  ``ceiling`` node's child count) and the record and ``held`` node of a few workers drawn
  at random, and tries those free that can start at once, in random order; if none can
  (or records are missing), it lists the workers with a record and those held (names
  only), reads the records of a few free ones drawn at random and tries those that can
  start at once; so a thousand claimants neither read every record, nor each list 2,048
  names, nor all race for one node. Only when none of them can (or in a range of up to
  64) are all free records read and tried lowest start first, then those that can start
  at once in random order, then the rest.
- **renewal**: the record rewritten with the raised ceiling by a compare-and-set on its
  version, the ``held`` node's expiry with it (made again if the session that held it
  expired). A holder stops issuing at its own deadline (boot clock, ``_store``), whatever
  its session says: the session's expiry only frees the worker for the next claim, which
  starts above the record's ceiling anyway. Requests wait at most ``timeout``.
- **release**: the ``held`` node deleted in a transaction that checks the record is still
  this claim's; a clean stop writes the hand-over mark in the same transaction.
- ZooKeeper's clock is the leader's, read from the ``mtime`` of the nodes written.
- A record found deleted is written again quarantined (never read as "never used"); a
  write whose answer was lost is recognised by its owner and epoch; a path holding nodes
  that are not snowid's is refused.
"""

from __future__ import annotations

import contextlib
import random
import uuid
from dataclasses import dataclass
from typing import Any, Unpack

from snowid._exceptions import LeaseError, StoreRefusedError, StoreUnreachableError
from snowid.ids import TWITTER, Clock
from snowid.lease._base import IdentityStatus
from snowid.lease._etcdkv import (
    MARK,
    MAX_CEILING,
    WHOLE,
    Keys,
    Record,
    RecordChecks,
    at_once,
    candidates,
    held_text,
    meta_text,
    removed_text,
)
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
from snowid.lease._zkconn import Session

__all__ = ["OPTIONS", "ZookeeperLease"]

OPTIONS = CLUSTER_OPTIONS
_DEFAULT_PORT = 2181
_BATCH = 128  # operations per multi-op transaction (well under jute.maxbuffer's 1 MB)
_MIN_SESSION_S = 3.0
_ROUNDS = 20  # reads a claim or set-up makes before it gives up on a store that churns
_OURS = ("meta", "ceiling", "held", "clock")
_WORKER_OF = {f"{w:04d}": w for w in range(TWITTER.max_worker + 1)}
"""A worker's node name (``0042``) to its number: a claim that lists names reads up to 2,048."""
_BLIND = 8
"""Workers drawn at random whose records and ``held`` nodes a claim in a large range reads
first, before any list of names: 1,024 claimants at once that each listed the 2,048 names
first took about half again as long (bench/README.md)."""
_SAMPLE = 3
"""Free workers whose records a claim reads once it has listed the names (each record is a
request of its own here; etcd reads its larger sample in one)."""
Op = tuple[str, tuple[Any, ...], dict[str, Any]]
"""One operation of a multi-op transaction: kazoo's method name, its arguments."""


@dataclass(frozen=True, slots=True)
class Node:
    """A node as ZooKeeper answered it: its data (text) and version."""

    path: str
    value: str
    version: int


_View = tuple[Node, dict[str, Any], dict[int, Node], dict[int, Record], list[int], list[int]]
"""What a round of a claim read: the meta node and its fields, the records read and parsed,
the workers to try in order, and those whose missing records it wrote again."""


class ZookeeperLease(RecordChecks, StoreLease):
    """A worker identity in ``[first, last]`` leased from ZooKeeper nodes under ``path``."""

    noun, place = "node", "path"

    def __init__(
        self,
        endpoints: list[tuple[str, int]],
        *,
        path: str = "snowid",
        user: str | None = None,
        password: str | None = None,
        connect_timeout: float = 5.0,
        url: str = "zookeeper://",
        clock: Clock | None = None,
        **options: Unpack[StoreOptions],
    ) -> None:
        super().__init__(url=url, clock=clock, **options)
        self.endpoints = list(endpoints)
        self.keys = Keys("/" + path.strip("/"))
        self.user = user
        self._password = password
        self.connect_timeout = connect_timeout
        # The session only frees a crashed holder's worker (the holder itself stops at its
        # own deadline; a successor starts above the ceiling it acknowledged): one and a
        # half TTLs, so that the worker is free for a claim within two TTLs (ZooKeeper ends
        # a session at its next tick after the timeout), and 3 s at least, so that kazoo's
        # heartbeats (a third of it apart, less up to 0.4 s of jitter) ride out a slow
        # network or a busy server instead of dropping the connection.
        self.session_s = max(1.5 * self.ttl_ms / 1000, _MIN_SESSION_S)
        self._meta_version = 0
        self._version = -1  # our record's version, as we last wrote it
        self._record: Record | None = None

    @classmethod
    def from_url(cls, url: LeaseUrl, *, clock: Clock | None = None) -> ZookeeperLease:
        """``zookeeper://[USER@]HOST:PORT[,HOST:PORT…]/PATH?range=…&ttl=…``; the digest
        password only from ``password_file=``."""
        where = read_cluster_url(url, _DEFAULT_PORT)
        if where.path.split("/")[0] == "zookeeper":  # ZooKeeper's own (quotas, config)
            raise url.fail("key_prefix", text=url.path)
        return cls(
            where.endpoints, path=where.path, user=where.user, password=where.password,
            url=url.shown, clock=clock, **where.own, **cls.read_options(url),
        )  # fmt: skip

    # --- the session ----------------------------------------------------------------------

    def _zk(self) -> Session:
        if self._conn is None:
            self._conn = Session(
                self.endpoints, session_s=self.session_s, timeout=self.timeout_s,
                connect_timeout=max(self.connect_timeout, self.timeout_s), store=self.url,
                user=self.user, password=self._password,
            )  # fmt: skip
        session: Session = self._conn
        return session

    def _get(self, path: str) -> Node | None:
        return self._got(path, self._zk().client.get_async(path))

    def _got(self, path: str, result: Any) -> Node | None:
        from kazoo.exceptions import NoNodeError

        try:
            data, stat = self._zk().wait(result)
        except NoNodeError:
            return None
        try:
            text = (data or b"").decode()
        except UnicodeDecodeError:
            raise self._foreign(path) from None
        return Node(path, text, int(stat.version))

    def _gets(self, paths: list[str]) -> dict[str, Node]:
        """Nodes read side by side (one round trip's wait); the absent ones left out."""
        client = self._zk().client
        pending = [(path, client.get_async(path)) for path in paths]
        found = {}
        for path, result in pending:
            node = self._got(path, result)
            if node is not None:
                found[path] = node
        return found

    def _children(self, path: str) -> list[str] | None:
        return self._children_of(self._zk().client.get_children_async(path))

    def _children_of(self, result: Any) -> list[str] | None:
        from kazoo.exceptions import NoNodeError

        try:
            names: list[str] = self._zk().wait(result)
        except NoNodeError:
            return None
        return names

    def _workers(self, path: str, first: int, last: int) -> set[int]:
        """The workers in ``first..last`` that have a node under ``path``."""
        return self._workers_of(self._zk().client.get_children_async(path), first, last)

    def _workers_of(self, result: Any, first: int, last: int) -> set[int]:
        workers = (_WORKER_OF.get(name) for name in self._children_of(result) or ())
        return {w for w in workers if w is not None and first <= w <= last}

    def _commit(self, ops: list[Op]) -> list[Any] | None:
        """One transaction: its results, or None when a compare failed (nothing written)."""
        results = self._zk().commit(ops)
        if any(isinstance(item, Exception) for item in results):
            return None
        return results

    def _store_ms(self, fallback: int) -> int:
        found = self._zk().now_ms()
        return fallback if found is None else found

    def _drop_inherited(self) -> None:
        super()._drop_inherited()
        self._version, self._record = -1, None

    # --- reading the store ----------------------------------------------------------------

    def _meta(self, node: Node | None) -> dict[str, Any]:
        return self._meta_data(self.keys.meta, None if node is None else node.value)

    def _parse(self, node: Node) -> Record:
        return self._record_at(node.path, node.value)

    def _records(self, workers: set[int]) -> dict[int, Node]:
        found = self._gets([self.keys.ceiling(w) for w in sorted(workers)])
        return {self.keys.worker_of(path): node for path, node in found.items()}

    # --- the store operations -----------------------------------------------------------

    def _store_now_ms(self) -> int:
        from kazoo.exceptions import NoNodeError

        session = self._zk()
        try:
            stat = session.call("set", f"{self.keys.prefix}/clock", b"")
        except NoNodeError:
            return self._clock.time_ms()  # not set up yet: the claim sets it up first
        session.saw(stat)
        return int(stat.mtime)

    def _store_claim(self, owner: str, caller_ms: int, holder: str) -> Claimed | None:
        for _ in range(_ROUNDS):
            view = self._blind_view(caller_ms) or self._listed_view(caller_ms)
            if view is None:
                continue  # the store changed under the repair: read it again
            meta_node, meta, records, parsed, order, repaired = view
            if not order:
                return None
            now = self._store_ms(caller_ms)
            for worker in order:
                claimed = self._try_claim(
                    worker, records[worker], parsed[worker], meta=meta_node, owner=owner,
                    caller_ms=caller_ms, now=now, holder=holder,
                )  # fmt: skip
                if claimed is not None:
                    base, ceiling = claimed
                    return Claimed(
                        worker, base, ceiling, parsed[worker].epoch + 1,
                        str(meta["incarnation"]), tuple(repaired),
                    )  # fmt: skip
        raise StoreUnreachableError(
            store=self.url,
            reason=f"every claim lost its race {_ROUNDS} times running: too many claimants at"
            " once for the range",
        )

    def _blind_view(self, caller_ms: int) -> _View | None:
        """A claim's first read in a range of more than ``WHOLE`` workers (None in a
        smaller one): the meta node, the ``ceiling`` node's child count and the records
        and ``held`` nodes of ``_BLIND`` workers drawn at random, side by side; the view of
        those free that can start at once, in random order. None as well when none can,
        or records are missing (fewer children than workers, or a drawn record absent):
        ``_listed_view`` then reads the names, and repairs."""
        size = self.last - self.first + 1
        if size <= WHOLE:
            return None
        keys, session = self.keys, self._zk()
        client = session.client
        blind = random.sample(range(self.first, self.last + 1), min(_BLIND, size))
        meta_read = client.get_async(keys.meta)
        count_read = client.exists_async(f"{keys.prefix}/ceiling")
        record_reads = [(w, client.get_async(keys.ceiling(w))) for w in blind]
        held_reads = [(w, client.exists_async(keys.held(w))) for w in blind]
        meta_node = self._got(keys.meta, meta_read)
        counted = session.wait(count_read)
        nodes = {w: self._got(keys.ceiling(w), read) for w, read in record_reads}
        held = {w for w, read in held_reads if session.wait(read) is not None}
        meta = self._checked_meta(meta_node)
        records = {w: node for w, node in nodes.items() if node is not None}
        if (
            counted is None
            or counted.numChildren <= TWITTER.max_worker
            or len(records) < len(nodes)
        ):
            return None
        free = {w: self._parse(node) for w, node in records.items() if w not in held}
        ready = at_once(free, caller_ms)
        if not ready:
            return None
        assert meta_node is not None
        return meta_node, meta, records, free, ready, []

    def _listed_view(self, caller_ms: int) -> _View | None:
        """A claim's read from the lists of names (those with a record, those held): the
        free workers, in the order to try them (``_candidates``), after the missing
        records are written again, quarantined (None: the store changed meanwhile)."""
        meta_node, present, held = self._claim_reads()
        meta = self._checked_meta(meta_node)
        assert meta_node is not None
        repaired = self._repair_missing(meta_node, present)
        if repaired is None:
            return None
        free = sorted((present | set(repaired)) - held)
        if not free:
            return meta_node, meta, {}, {}, [], repaired
        records, parsed, order = self._candidates(free, caller_ms)
        return meta_node, meta, records, parsed, order, repaired

    def _checked_meta(self, meta_node: Node | None) -> dict[str, Any]:
        """The meta node's fields: StoreMissing if it is gone, StoreOutdated if the store
        is of an older format."""
        meta = self._meta(meta_node)
        if self._format(meta) < STORE_FORMAT:
            raise StoreOutdated
        return meta

    def _claim_reads(self) -> tuple[Node | None, set[int], set[int]]:
        """The meta node, the workers with a record and those held, read side by side."""
        keys, client = self.keys, self._zk().client
        meta = client.get_async(keys.meta)
        records = client.get_children_async(f"{keys.prefix}/ceiling")
        held = client.get_children_async(f"{keys.prefix}/held")
        return (
            self._got(keys.meta, meta),
            self._workers_of(records, self.first, self.last),
            self._workers_of(held, self.first, self.last),
        )

    def _candidates(
        self, free: list[int], caller_ms: int
    ) -> tuple[dict[int, Node], dict[int, Record], list[int]]:
        """The records of the free workers to try, parsed, and the order to try them in.

        In a range of more than ``WHOLE`` workers, first the records of ``_SAMPLE`` free
        workers drawn at random, and those that can start at once in random order: a
        thousand claimants at once read a few records each, not every record each. When
        none of them can (or in a smaller range), every free worker's record, in the
        protocol's order (``candidates``): one that can start at once if there is one,
        else the one whose old grant runs out first."""
        if self.last - self.first + 1 > WHOLE and len(free) > _SAMPLE:
            records = self._records(set(random.sample(free, _SAMPLE)))
            parsed = {w: self._parse(node) for w, node in records.items()}
            if ready := at_once(parsed, caller_ms):
                return records, parsed, ready
        records = self._records(set(free))
        parsed = {w: self._parse(node) for w, node in records.items()}
        return records, parsed, candidates(list(parsed), parsed, caller_ms)

    def _try_claim(
        self, worker: int, node: Node, record: Record, *, meta: Node, owner: str,
        caller_ms: int, now: int, holder: str,
    ) -> tuple[int, int] | None:  # fmt: skip
        """(where the grant starts - 1, its ceiling), or None if another claimant was first."""
        proposal = min(caller_ms, now + self.max_skew_ms)
        written = record.claimed(proposal, self.span_ms, owner=owner, holder=holder, now=now)
        base, ceiling, epoch = record.base, written.ceiling, written.epoch
        session = self._zk()
        results = self._commit(
            [
                ("check", (self.keys.meta, meta.version), {}),
                ("set_data", (node.path, written.text().encode(), node.version), {}),
                (
                    "create",
                    (self.keys.held(worker), held_text(owner, epoch, now + self.ttl_ms).encode()),
                    {"ephemeral": True, "acl": session.acl},
                ),
            ]
        )
        if results is None:
            return None
        session.saw(results[1])
        self._meta_version, self._version, self._record = meta.version, results[1].version, written
        return base, ceiling

    def _repair_missing(self, meta: Node, present: set[int]) -> list[int] | None:
        """Write the records missing in range again, quarantined; the workers (None: the
        store changed meanwhile)."""
        missing = [w for w in range(self.first, self.last + 1) if w not in present]
        if not missing:
            return []
        floor = self._store_ms(self._clock.time_ms()) + self.quarantine_ms
        creates = [(self.keys.ceiling(w), removed_text(floor)) for w in missing]
        if not self._create_all(creates, meta.version):
            return None
        return missing

    def _create_all(self, creates: list[tuple[str, str]], meta_version: int | None) -> bool:
        """Create the nodes (each must be absent), in transactions of ``_BATCH`` that check
        the meta node's version (None: none); False if one failed."""
        acl = self._zk().acl
        return self._run_all(
            [("create", (path, text.encode()), {"acl": acl}) for path, text in creates],
            meta_version,
        )

    def _run_all(self, ops: list[Op], meta_version: int | None) -> bool:
        guard: list[Op] = (
            [] if meta_version is None else [("check", (self.keys.meta, meta_version), {})]
        )
        for start in range(0, len(ops), _BATCH):
            if self._commit([*guard, *ops[start : start + _BATCH]]) is None:
                return False
        return True

    def _store_renew(
        self, worker: int, owner: str, epoch: int, caller_ms: int, acked_ms: int
    ) -> Renewed:
        record = self._record
        if record is None or record.owner != owner or record.epoch != epoch:
            return Renewed("lost")
        now = self._store_ms(caller_ms)
        proposal = min(caller_ms + self.span_ms, now + self.span_ms + self.max_skew_ms)
        keys = self.keys
        session = self._zk()
        held = held_text(owner, epoch, now + self.ttl_ms).encode()
        for _ in range(3):
            record = self._record
            assert record is not None
            ceiling = max(record.ceiling, min(proposal, MAX_CEILING))
            written = record.renewed(ceiling)
            record_ops: list[Op] = [
                ("check", (keys.meta, self._meta_version), {}),
                ("set_data", (keys.ceiling(worker), written.text().encode(), self._version), {}),
            ]
            results = session.commit([*record_ops, ("set_data", (keys.held(worker), held), {})])
            if _held_gone(results):  # the session that held it expired: hold it again
                results = session.commit(
                    [*record_ops, ("create", (keys.held(worker), held), {"ephemeral": True})]
                )
            if not any(isinstance(item, Exception) for item in results):
                session.saw(results[1])
                self._version, self._record = results[1].version, written
                return Renewed("ok", record.ceiling, ceiling, store_ms=int(results[1].mtime))
            answer = self._failed_renewal(worker, acked_ms)
            if answer is not None:
                return answer
        return Renewed("lost")

    def _failed_renewal(self, worker: int, acked_ms: int) -> Renewed | None:
        """Why the renewal's compare-and-set failed; None when it was our own write whose
        answer was lost, or an edit that kept its owner and epoch (adopted: the renewal
        tries again)."""
        meta_node = self._get(self.keys.meta)
        meta = self._meta(meta_node)
        assert meta_node is not None
        if str(meta["incarnation"]) != self.incarnation:
            return Renewed("lost")
        if self._format(meta) < STORE_FORMAT:
            raise StoreOutdated
        found = self._get(self.keys.ceiling(worker))
        if found is None:
            floor = self._store_ms(self._clock.time_ms()) + self.quarantine_ms
            key = self.keys.ceiling(worker)
            self._create_all([(key, removed_text(max(floor, acked_ms)))], None)
            return Renewed("removed")
        record = self._parse(found)
        mine = self._record
        if mine is not None and record.owner == mine.owner and record.epoch == mine.epoch:
            # Still ours: a write of ours whose answer was lost, or an edit that kept owner
            # and epoch. A ceiling below the acknowledged one is a store that went back:
            # answered as it is, so the holder fails closed.
            if record.ceiling < acked_ms:
                return Renewed("ok", record.ceiling, acked_ms)
            self._meta_version, self._version, self._record = (
                meta_node.version,
                found.version,
                record,
            )
            return None
        return Renewed("lost")

    def _store_release(self, worker: int, owner: str, epoch: int) -> None:
        del owner, epoch
        self._store_dropped(worker)

    def _store_dropped(self, worker: int) -> None:
        """Release and drop alike: the held node goes if this session made it (whatever
        became of the record meanwhile); a request that cannot reach the ensemble ends the
        session instead, so the node goes when it expires."""
        self._record = None
        try:
            self._release_own_held(worker)
        except LeaseError:
            self._end_session()
            raise

    def _release_own_held(self, worker: int) -> None:
        """Delete ``worker``'s held node if this session made it, never another session's:
        when the record changed under the holder (removed and written again, edited, or
        claimed over after our session expired), a held node left to this live session would
        keep the worker from every claim, this process's own too, until the process ended."""
        from kazoo.exceptions import NoNodeError

        session, path = self._zk(), self.keys.held(worker)
        try:
            _data, stat = session.wait(session.client.get_async(path))
        except NoNodeError:
            return
        if stat.ephemeralOwner == session.session_id:
            session.commit([("delete", (path, stat.version), {})])

    def _end_session(self) -> None:
        """End this lease's session (the next request opens a new one): a release that did
        not reach the store leaves its held node to the session, and ZooKeeper deletes a
        session's nodes when it ends, at once or when it expires unheard."""
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def _store_release_mark(self, worker: int, owner: str, epoch: int, mark_ms: int) -> bool:
        record = self._record
        marked = None if record is None else record.released_by(owner, epoch, mark_ms)
        if marked is None:
            return False
        write: Op = (
            "set_data",
            (self.keys.ceiling(worker), marked.text().encode(), self._version),
            {},
        )
        session = self._zk()
        results = session.commit([write, ("delete", (self.keys.held(worker),), {})])
        if _held_gone(results, at=1):
            results = session.commit([write])
        if any(isinstance(item, Exception) for item in results):
            return False
        self._record = None
        return True

    def _store_void_marks(self) -> int:
        voided = 0
        for _ in range(_ROUNDS):
            present = self._workers(f"{self.keys.prefix}/ceiling", 0, TWITTER.max_worker)
            ops: list[Op] = []
            for node in self._records(present).values():
                record = self._parse(node)
                if record.released is not None:
                    cleared = record.unmarked().text().encode()
                    ops.append(("set_data", (node.path, cleared, node.version), {}))
            if not ops:
                return voided
            if self._run_all(ops, None):
                return voided + len(ops)
        return voided

    def _store_incarnation(self) -> str | None:
        node = self._get(self.keys.meta)
        return None if node is None else str(self._meta(node)["incarnation"])

    def _store_lost_how(self, worker: int, owner: str, epoch: int, acked_ms: int) -> LostHow:
        meta, node = self._get(self.keys.meta), self._get(self.keys.ceiling(worker))
        meta_text, text = (None if x is None else x.value for x in (meta, node))
        return self._lost(
            meta_text, self.keys.ceiling(worker), text, owner=owner, epoch=epoch, acked_ms=acked_ms
        )

    # --- set-up and status --------------------------------------------------------------

    def _store_init(self, quarantine_ms: int | None) -> Initialised:
        for _ in range(_ROUNDS):
            meta_node = self._get(self.keys.meta)
            if meta_node is None:
                self._check_path_is_ours()
                self._make_path()
            now = self._store_ms(self._store_now_ms())
            present = self._workers(f"{self.keys.prefix}/ceiling", 0, TWITTER.max_worker)
            records = self._records(present)
            if meta_node is not None:
                done = self._init_again(meta_node, records, now)
            else:
                done = self._init_new(records, now, quarantine_ms)
            if done is not None:
                return done
        raise StoreRefusedError(
            store=self.url, reason="its nodes kept changing while snowid set it up"
        )

    def _make_path(self) -> None:
        """The path, its ``ceiling`` and ``held`` parents and its ``clock`` node."""
        from kazoo.exceptions import NodeExistsError

        session = self._zk()
        client = session.client
        prefix = self.keys.prefix
        with contextlib.suppress(NodeExistsError):
            session.wait(client.ensure_path_async(prefix, acl=session.acl))
        for name in ("ceiling", "held", "clock"):
            if self._get(f"{prefix}/{name}") is None:
                self._commit([("create", (f"{prefix}/{name}", b""), {"acl": session.acl})])

    def _init_again(
        self, meta_node: Node, records: dict[int, Node], now: int
    ) -> Initialised | None:
        meta = self._meta(meta_node)
        upgraded = self._format(meta) < STORE_FORMAT
        floor = now + self.quarantine_ms
        creates: list[tuple[str, str]] = []
        ops: list[Op] = []
        repaired: list[int] = []
        for worker in range(TWITTER.max_worker + 1):
            node = records.get(worker)
            if node is None:
                creates.append((self.keys.ceiling(worker), removed_text(floor)))
                repaired.append(worker)
            elif upgraded and (record := self._parse(node)).ceiling < floor:
                raised = Record(floor, record.epoch, record.owner, record.holder, record.since)
                ops.append(("set_data", (node.path, raised.text().encode(), node.version), {}))
        if not self._create_all(creates, meta_node.version):
            return None
        if not self._run_all(ops, meta_node.version):
            return None
        if upgraded:
            text = meta_text({**meta, "format": STORE_FORMAT}).encode()
            if self._commit([("set_data", (self.keys.meta, text, meta_node.version), {})]) is None:
                return None
        return Initialised(str(meta["incarnation"]), False, upgraded, tuple(repaired))

    def _init_new(
        self, records: dict[int, Node], now: int, quarantine_ms: int | None
    ) -> Initialised | None:
        floor = 0 if quarantine_ms is None else now + quarantine_ms
        creates: list[tuple[str, str]] = []
        ops: list[Op] = []
        for worker in range(TWITTER.max_worker + 1):
            node = records.get(worker)
            if node is None:
                creates.append((self.keys.ceiling(worker), Record(floor).text()))
            elif (record := self._parse(node)).ceiling < floor:
                raised = Record(floor, record.epoch, record.owner, record.holder, record.since)
                ops.append(("set_data", (node.path, raised.text().encode(), node.version), {}))
        if not self._create_all(creates, None) or not self._run_all(ops, None):
            return None
        incarnation = str(uuid.uuid4())
        meta = {
            "snowid": MARK, "incarnation": incarnation, "layout": "twitter", "created_ms": now,
            "format": STORE_FORMAT,
        }  # fmt: skip
        created = self._create_all([(self.keys.meta, meta_text(meta))], None)
        return Initialised(incarnation, True) if created else None

    def _check_path_is_ours(self) -> None:
        """Refuse a path whose nodes are not snowid's (someone else's data)."""
        prefix = self.keys.prefix
        for name in self._children(prefix) or []:
            if name not in _OURS:
                raise self._foreign(f"{prefix}/{name}")
        for parent in ("ceiling", "held"):
            for name in self._children(f"{prefix}/{parent}") or []:
                if not (len(name) == 4 and name.isdigit() and int(name) <= TWITTER.max_worker):
                    raise self._foreign(f"{prefix}/{parent}/{name}")

    def _store_where(self) -> dict[str, object]:
        return {"nodes": f"{self.keys.prefix}/*"}

    def _store_missing(self) -> list[int]:
        meta_node = self._get(self.keys.meta)
        if meta_node is None or self._format(self._meta(meta_node)) < STORE_FORMAT:
            return []
        present = self._workers(f"{self.keys.prefix}/ceiling", self.first, self.last)
        return [w for w in range(self.first, self.last + 1) if w not in present]

    def status(self) -> list[IdentityStatus]:
        """Every identity ever claimed: holder, epoch, ceiling (read only)."""
        with self._lock:
            if self._get(self.keys.meta) is None:
                return []
            present = self._workers(f"{self.keys.prefix}/ceiling", self.first, self.last)
            records = self._records(present)
            holding = self._workers(f"{self.keys.prefix}/held", self.first, self.last)
            held = self._gets([self.keys.held(w) for w in sorted(holding)])
        texts = {w: (node.path, node.value) for w, node in records.items()}
        rows = self._rows(texts, {self.keys.worker_of(p): n.value for p, n in held.items()})
        return self._status_rows(rows)


def _held_gone(results: list[Any], at: int = 2) -> bool:
    """Whether a transaction failed only because the ``held`` node (op ``at``) is gone."""
    from kazoo.exceptions import NoNodeError, RolledBackError

    return isinstance(results[at], NoNodeError) and all(
        isinstance(item, RolledBackError) for item in results[:at]
    )
