"""PostgreSQL leases for fleets (``postgresql://``), through psycopg 3 (imported lazily).

Protocol (docs/leases.md, "The protocol"): each claim of worker ``w`` gets a new owner token and
``epoch + 1`` and starts above the highest ceiling ever granted for ``w``; the ceiling
rises only through an acknowledged compare-and-set on (worker, owner, epoch); a daemon
thread renews every ``renew`` seconds. The hot-path bound ``ceiling_ms`` is the last
acknowledged ceiling, and drops to -1 when the lease is lost or when the local
deadline (boot clock before the last good renewal + TTL*0.89) passes unrenewed. Every
operation has a client-side timeout: a stalled store socket is shut down, never waited
on forever.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import socket
import threading
import uuid
from typing import Any, NoReturn

from snowid._clock import Clock
from snowid._fence import Grant
from snowid._layout import TWITTER
from snowid._redact import redact, scrub
from snowid.errors import (
    CeilingAheadError,
    ClockSkewError,
    LeaseError,
    LeaseLostError,
    NoFreeIdentityError,
    StoreRegressedError,
    StoreUnreachableError,
)
from snowid.lease._base import IdentityStatus, Lease
from snowid.lease._pgconn import StatementTimer, abandon_inherited, libpq_conninfo
from snowid.lease._pgsql import Sql
from snowid.lease._url import LeaseUrl

_CANCEL_TIMEOUT_S = 1.0
"""How long a timed-out statement's cancel request may take before the socket is shut."""

__all__ = ["PostgresLease"]

log = logging.getLogger("snowid.lease")


class PostgresLease(Lease):
    """A worker identity in ``[first, last]`` leased from a PostgreSQL table."""

    options = (
        "range", "datacenter", "schema", "table", "ttl", "renew", "span", "max_skew", "timeout",
        "claim_wait", "connect_timeout",
    )  # fmt: skip
    """The URL's options for snowid; every other query parameter goes to libpq."""

    def __init__(
        self,
        conninfo: str,
        *,
        first: int = 0,
        last: int = TWITTER.max_worker,
        schema: str = "public",
        table: str = "snowid_leases",
        ttl: float = 10.0,
        renew: float | None = None,
        span: float | None = None,
        max_skew: float = 2.0,
        timeout: float | None = None,
        claim_wait: float | None = None,
        connect_timeout: int = 2,
        url: str | None = None,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(url or redact(conninfo), clock)
        self.conninfo = conninfo
        self.first, self.last = TWITTER.check_worker(first), TWITTER.check_worker(last)
        self.sql = Sql(schema, table)
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
        self.connect_timeout = connect_timeout
        self.incarnation: str | None = None
        self.owner: str | None = None
        self.renewals = 0
        self.renew_failures = 0
        self._conn: Any = None
        self._fatal: LeaseError | None = None
        self._deadline_ns = 0
        self._next_renew_ns = 0
        self._store_down_until_ns = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def from_url(cls, url: LeaseUrl, *, clock: Clock | None = None) -> PostgresLease:
        """``postgresql://user@host:port/db?range=A-B&ttl=S...``; libpq gets the rest of
        the URL as its connection string, built here once."""
        url.check_ports()
        first, last = url.worker_range() or (None, None)
        given: dict[str, Any] = {
            "first": first,
            "last": last,
            "schema": url.identifier("schema"),
            "table": url.identifier("table"),
            "ttl": url.seconds("ttl", 0.05),
            "renew": url.seconds("renew", 0.01),
            "span": url.seconds("span", 0.01),
            "max_skew": url.seconds("max_skew"),
            "timeout": url.seconds("timeout", 0.01),
            "claim_wait": url.seconds("claim_wait"),
            "connect_timeout": url.integer("connect_timeout", 1),
        }
        options = {key: value for key, value in given.items() if value is not None}
        conninfo = libpq_conninfo(url.parts, [(k, v) for k, v in url.query if k not in cls.options])
        return cls(conninfo, url=url.shown, clock=clock, **options)

    # --- connection and one statement -------------------------------------------

    def _connect(self) -> Any:
        if self._conn is not None and not self._conn.closed:
            return self._conn
        import psycopg

        try:
            self._conn = psycopg.connect(
                self.conninfo,
                autocommit=True,
                prepare_threshold=None,  # no server-side prepare: PgBouncer transaction mode
                connect_timeout=self.connect_timeout,
                application_name="snowid-lease",
            )
        except psycopg.Error as error:
            raise self._unreachable(error) from None
        return self._conn

    def _unreachable(self, error: BaseException) -> StoreUnreachableError:
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
        # libpq quotes what it could not read, which may be a piece of the password
        return StoreUnreachableError(store=self.url, reason=scrub(reason, self.conninfo))

    def _run(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        """Execute one autocommit statement with a client-side timeout; its rows."""
        import psycopg

        conn = self._connect()
        try:
            fd = conn.pgconn.socket
        except psycopg.Error as error:
            self._drop_conn()
            raise self._unreachable(error) from None
        op = StatementTimer(fd, functools.partial(conn.cancel_safe, timeout=_CANCEL_TIMEOUT_S))
        timer = threading.Timer(self.timeout_s, op.abort)
        timer.daemon = True
        timer.start()
        try:
            cur = conn.execute(sql, params)
            return list(cur.fetchall()) if cur.description else []
        except psycopg.errors.UndefinedTable:
            raise
        except psycopg.Error as error:
            timed_out = op.finish()
            self._drop_conn()
            if timed_out:
                raise StoreUnreachableError(
                    store=self.url, reason=f"no answer within {self.timeout_s:g} s"
                ) from None
            raise self._unreachable(error) from None
        finally:
            op.finish()  # before the connection can be closed and its fd number reused
            timer.cancel()

    def _drop_conn(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # already broken
                conn.close()

    # --- schema -----------------------------------------------------------------

    def prepare(self, *, first_deployment: bool = False) -> dict[str, object]:
        """Create the tables if missing (idempotent); a store created now is quarantined
        unless ``first_deployment`` (see ``init_schema``)."""
        incarnation, created = self.init_schema(first_deployment=first_deployment)
        return {
            "url": self.url,
            "table": self.sql.table,
            "incarnation": incarnation,
            "created": created,
            "quarantined": created and not first_deployment,
        }

    def init_schema(self, *, first_deployment: bool = False) -> tuple[str, bool]:
        """Create the tables if missing (idempotent); (incarnation, created)."""
        import psycopg

        quarantine = None if first_deployment else self.ttl_ms + self.span_ms + self.max_skew_ms
        with self._lock:
            conn = self._connect()
            try:
                with conn.transaction(), conn.cursor() as cur:
                    incarnation, created = self.sql.init(cur, quarantine_ms=quarantine)
            except psycopg.Error as error:
                self._drop_conn()
                raise self._unreachable(error) from None
        if created and quarantine is not None:
            log.warning(
                "snowid created the lease tables %s: every ceiling is quarantined for %d ms,"
                " first claims wait that long (snowid lease init --first-deployment avoids it)",
                self.sql.table,
                quarantine,
            )
        return incarnation, created

    def status(self) -> list[IdentityStatus]:
        import psycopg

        with self._lock:
            try:
                rows = self._run(self.sql.status)
            except psycopg.errors.UndefinedTable:
                return []
        result = []
        for worker, live, holder, epoch, ceiling, since, expires in rows:
            if not self.first <= worker <= self.last:
                continue
            datacenter, machine = TWITTER.split_worker(worker)
            result.append(
                IdentityStatus(
                    worker, datacenter, machine, bool(live), holder, epoch, ceiling, since, expires
                )
            )
        return result

    # --- claim ------------------------------------------------------------------

    def _claim(self, needed_ms: int) -> Grant:
        import psycopg

        if self._fatal is not None:
            raise self._fatal
        try:
            return self._claim_once(needed_ms)
        except psycopg.errors.UndefinedTable:
            if self.incarnation is not None:
                self._fail(StoreRegressedError(worker="*", reason="the leases table is gone"))
            self.init_schema()
            return self._claim_once(needed_ms)

    def _claim_once(self, needed_ms: int) -> Grant:
        clock = self._clock
        before = clock.time_ms()
        (store_ms,) = self._run(self.sql.now)[0]
        after = clock.time_ms()
        skew = (before + after) // 2 - store_ms
        if abs(skew) > self.max_skew_ms + (after - before) // 2:
            raise ClockSkewError(skew_ms=skew, max_skew_ms=self.max_skew_ms)
        owner = str(uuid.uuid4())
        sent_ns = clock.monotonic_ns()
        params = {
            "first": self.first, "last": self.last, "owner": owner, "ttl": self.ttl_ms / 1000,
            "holder": f"{socket.gethostname()} pid {os.getpid()}", "caller_ms": clock.time_ms(),
            "max_skew": self.max_skew_ms, "span": self.span_ms,
        }  # fmt: skip
        rows = self._run(self.sql.claim, params)
        if not rows:
            if not self._run(self.sql.incarnation):
                self._fail(StoreRegressedError(worker="*", reason="the store's meta row is gone"))
            raise NoFreeIdentityError(first=self.first, last=self.last, store=self.url)
        worker, old_ceiling, ceiling, epoch, _store_ms, incarnation = rows[0]
        datacenter, machine = TWITTER.split_worker(worker)
        grant = Grant(datacenter, machine, old_ceiling + 1, ceiling, epoch)
        if self.incarnation is not None and incarnation != self.incarnation:
            self._release_quietly(worker, owner, epoch)
            self._fail(StoreRegressedError(worker=worker, reason="the store's incarnation changed"))
        self.incarnation, self.owner = incarnation, owner
        self._grant, self._state = grant, "held"  # held, but not published until the clock is in
        self._renewed(sent_ns)
        try:
            self._wait_for_start(grant)
        except BaseException:
            self._release_quietly(worker, owner, epoch)
            self._set_unheld("unclaimed", "release", "claim abandoned")
            raise
        self._start_thread()
        grant = self._grant
        assert grant is not None
        return self._set_held(grant)

    def _wait_for_start(self, grant: Grant) -> None:
        """The claim starts above the old ceiling: wait (renewing) until the clock is there."""
        clock = self._clock
        give_up = clock.monotonic_ns() + self.claim_wait_ms * 1_000_000
        while (now := clock.time_ms()) < grant.start_ms:
            # Further ahead than the whole wait: refused at once, not after waiting in vain.
            ahead = grant.start_ms - now
            if ahead > self.claim_wait_ms or clock.monotonic_ns() >= give_up:
                raise CeilingAheadError(
                    worker=TWITTER.worker(grant.datacenter, grant.machine),
                    ceiling=grant.start_ms - 1,
                    ahead_ms=ahead,
                    max_ms=self.claim_wait_ms,
                )
            clock.sleep(min((grant.start_ms - now) / 1000, self.renew_ms / 1000))
            if clock.monotonic_ns() >= self._next_renew_ns:
                self._renew_now(publish=False)

    def _release_quietly(self, worker: int, owner: str, epoch: int) -> None:
        with contextlib.suppress(LeaseError):
            self._run(self.sql.release, {"worker": worker, "owner": owner, "epoch": epoch})

    # --- renew ------------------------------------------------------------------

    def _renewed(self, sent_ns: int) -> None:
        # Deadline from the boot clock read BEFORE sending: TTL*(1 - 1% drift) - 10% margin.
        self._deadline_ns = sent_ns + round(self.ttl_ms * 0.89) * 1_000_000
        self._next_renew_ns = sent_ns + self.renew_ms * 1_000_000
        self.renewals += 1

    def _renew_now(self, *, publish: bool = True) -> Grant:
        """One CAS renewal (caller holds the lock). Raises LeaseLost/StoreRegressed/Unreachable."""
        import psycopg

        grant, owner = self._grant, self.owner
        assert grant is not None
        assert owner is not None
        worker = TWITTER.worker(grant.datacenter, grant.machine)
        clock = self._clock
        sent_ns = clock.monotonic_ns()
        params = {
            "worker": worker, "owner": owner, "epoch": grant.epoch, "ttl": self.ttl_ms / 1000,
            "caller_ms": clock.time_ms(), "span": self.span_ms, "max_skew": self.max_skew_ms,
            "incarnation": self.incarnation,
        }  # fmt: skip
        try:
            rows = self._run(self.sql.renew, params)
        except StoreUnreachableError:
            self.renew_failures += 1
            self._store_down_until_ns = clock.monotonic_ns() + self.renew_ms * 1_000_000
            raise
        except psycopg.errors.UndefinedTable:
            self._fail(StoreRegressedError(worker=worker, reason="the leases table is gone"))
        if not rows:
            self._diagnose_lost(worker)
        old_ceiling, ceiling, _store_ms = rows[0]
        if old_ceiling < grant.ceiling_ms:
            self._fail(
                StoreRegressedError(
                    worker=worker,
                    reason=f"ceiling {old_ceiling} is below the acknowledged {grant.ceiling_ms}",
                )
            )
        self._renewed(sent_ns)
        self._store_down_until_ns = 0
        if not publish:
            self._grant = Grant(
                grant.datacenter, grant.machine, grant.start_ms, ceiling, grant.epoch
            )
            return self._grant
        return self._raise_ceiling(ceiling)

    def _diagnose_lost(self, worker: int) -> NoReturn:
        rows = self._run(self.sql.incarnation)
        if not rows or rows[0][0] != self.incarnation:
            self._fail(StoreRegressedError(worker=worker, reason="the store's incarnation changed"))
        reason = "another process claimed it (owner/epoch mismatch)"
        self._set_unheld("lost", "lost", reason)
        log.warning("snowid lease on worker %s lost: %s", worker, reason)
        raise LeaseLostError(worker=worker, reason=reason)

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
        except LeaseLostError:
            return self._claim(self._clock.time_ms())  # a new identity, starting afresh
        except StoreUnreachableError:
            if self._past_deadline():
                self.ceiling_ms = -1
            raise

    def _past_deadline(self) -> bool:
        return self._clock.monotonic_ns() >= self._deadline_ns

    # --- background renewal -------------------------------------------------------

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
                    wake = clock.monotonic_ns() + self.renew_ms * 1_000_000
            stop.wait(max(0.001, min((wake - clock.monotonic_ns()) / 1e9, self.renew_ms / 1000)))

    def _tick(self) -> None:
        if self._clock.monotonic_ns() >= self._next_renew_ns:
            try:
                self._renew_now()
            except StoreUnreachableError as error:
                log.warning("snowid lease renewal failed: %s", error)
                self._next_renew_ns = self._clock.monotonic_ns() + self.renew_ms * 1_000_000 // 3
            except LeaseError:
                return
        if self._past_deadline() and self.ceiling_ms != -1:
            self.ceiling_ms = -1
            grant = self._grant
            if grant is not None:
                self._event("expired", grant, "local deadline passed without renewal")

    # --- release / close / fork -----------------------------------------------------

    def _release(self, grant: Grant) -> None:
        worker = TWITTER.worker(grant.datacenter, grant.machine)
        if self.owner is not None:
            self._release_quietly(worker, self.owner, grant.epoch)

    def _close_resources(self) -> None:
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            self._lock.release()  # let a renewal in progress finish
            try:
                thread.join(timeout=self.timeout_s + 1)
            finally:
                self._lock.acquire()
        self._drop_conn()

    def __del__(self) -> None:
        # An unclosed lease that is collected: close its connection quietly (not in a child).
        conn = getattr(self, "_conn", None)
        if conn is not None and os.getpid() == self._pid:
            with contextlib.suppress(Exception):
                conn.close()

    def _drop_inherited(self) -> None:
        conn, self._conn = self._conn, None
        self._thread, self._stop = None, threading.Event()
        self.owner = None
        if conn is not None:
            abandon_inherited(conn)
