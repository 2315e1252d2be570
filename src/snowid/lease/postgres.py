"""PostgreSQL leases for fleets (``postgresql://``), through psycopg 3 (imported lazily).

The protocol is the one every networked store shares (``_store.StoreLease``); this module
holds only what is PostgreSQL's: each store operation is ONE autocommit statement
(``_pgsql``; PgBouncer's transaction pooling works, psycopg's server-side prepare is off),
every write asks for ``synchronous_commit`` on, the store's ``clock_timestamp()`` is the
clock, and the tables plus a meta row with the store's incarnation are created on first
use. Every statement has a client-side timeout: a statement that does not answer in time
is cancelled on the server and its socket shut down, never waited on forever.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, Unpack

from snowid._exceptions import StoreNotSynchronousError, StoreUnreachableError, detached
from snowid.ids import Clock
from snowid.lease._base import IdentityStatus
from snowid.lease._failover import HistoryChanged, Quarantine, from_row, quarantined
from snowid.lease._pgconn import (
    LIBPQ_PARAMETERS,
    StatementTimer,
    abandon_inherited,
    libpq_conninfo,
    libpq_takes,
)
from snowid.lease._pgsql import Sql
from snowid.lease._redact import driver_detail, redact, scrub
from snowid.lease._store import (
    Claimed,
    Initialised,
    LostHow,
    Renewed,
    StoreLease,
    StoreMissing,
    StoreOptions,
    StoreOutdated,
    close_quietly,
)
from snowid.lease._storeops import REPLICATION, STORE_FORMAT, first_line, lost_how
from snowid.lease._url import LeaseUrl, given

_CANCEL_TIMEOUT_S = 1.0
"""How long a timed-out statement's cancel request may take before the socket is shut."""

__all__ = ["PostgresLease"]


class PostgresLease(StoreLease):
    """A worker identity in ``[first, last]`` leased from a PostgreSQL table."""

    options = (
        "range", "datacenter", "schema", "table", "ttl", "renew", "span", "max_skew", "timeout",
        "claim_wait", "connect_timeout", "replication",
    )  # fmt: skip
    """The URL's options for snowid; libpq's parameters (``_pgconn.LIBPQ_PARAMETERS``) go
    to libpq; any other is refused, by name."""

    def __init__(
        self,
        conninfo: str,
        *,
        schema: str = "public",
        table: str = "snowid_leases",
        connect_timeout: int = 2,
        replication: str = "async",
        url: str | None = None,
        clock: Clock | None = None,
        **options: Unpack[StoreOptions],
    ) -> None:
        super().__init__(url=url or redact(conninfo), clock=clock, **options)
        self.conninfo = conninfo
        self.sync_replication = replication == "sync"
        self.sql = Sql(schema, table, sync=self.sync_replication)
        self.connect_timeout = connect_timeout

    @classmethod
    def from_url(cls, url: LeaseUrl, *, clock: Clock | None = None) -> PostgresLease:
        """``postgresql://user@host:port/db?range=A-B&ttl=S...``; libpq gets the rest of
        the URL as its connection string, built here once."""
        url.check_ports()
        # What libpq would refuse in its own words (hidden by the scrubber) is named here.
        libpq = libpq_takes(key for key in url.options if key not in cls.options)
        passed = ("libpq", {*LIBPQ_PARAMETERS, *libpq})
        url.check_known(cls.options, {"password_file": "passfile"}, passed)
        own = given(
            schema=url.identifier("schema"),
            table=url.identifier("table"),
            connect_timeout=url.integer("connect_timeout", 1),
            replication=url.choice("replication", REPLICATION),
        )
        conninfo = libpq_conninfo(url.parts, [(k, v) for k, v in url.query if k not in cls.options])
        return cls(conninfo, url=url.shown, clock=clock, **own, **cls.read_options(url))

    # --- connection and one statement ---------------------------------------------------

    @detached()
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
        # libpq quotes what it could not read, which may be a piece of the password
        return StoreUnreachableError(
            store=self.url,
            reason=scrub(first_line(error), self.conninfo),
            **driver_detail(error, self.conninfo),
        )

    @detached()
    def _run(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        """Execute one autocommit statement with a client-side timeout; its rows."""
        import psycopg

        conn = self._connect()
        try:
            fd = conn.pgconn.socket
        except psycopg.Error as error:
            self._drop_connection()
            raise self._unreachable(error) from None
        op = StatementTimer(fd, functools.partial(conn.cancel_safe, timeout=_CANCEL_TIMEOUT_S))
        timer = threading.Timer(self.timeout_s, op.abort)
        timer.daemon = True
        timer.start()
        try:
            cur = conn.execute(sql, params)
            rows = list(cur.fetchall()) if cur.description else []
            if op.finish():
                # An answer after the timeout fired is never used: the cancel may have cut
                # short a commit's wait for a synchronous standby, and the server then
                # reports success (with a warning: "committed locally") for a write the
                # standby may never get. The connection goes too (a cancel may be in flight).
                self._drop_connection()
                raise self._timed_out()
            return rows
        except psycopg.errors.UndefinedTable:
            raise StoreMissing("the leases table is gone") from None
        except psycopg.errors.UndefinedColumn:  # a meta table made before store formats
            raise StoreOutdated from None
        except psycopg.Error as error:
            timed_out = op.finish()
            self._drop_connection()
            if timed_out:
                raise self._timed_out() from None
            raise self._unreachable(error) from None
        finally:
            op.finish()  # before the connection can be closed and its fd number reused
            timer.cancel()

    def _abandon_connection(self) -> None:
        conn = self._conn
        super()._abandon_connection()
        if conn is not None:  # psycopg says goodbye when it is finished: to /dev/null
            abandon_inherited(conn)

    def __del__(
        self,
        _finalizing: Callable[[], bool] = sys.is_finalizing,
        _getpid: Callable[[], int] = os.getpid,
        _close: Callable[[Any], None] = close_quietly,
    ) -> None:
        # An unclosed lease that is collected: close its connection quietly (not in a
        # child). Never at interpreter exit: module globals may already be None then (so
        # nothing here reads one: the defaults were bound when the class was made), and
        # the process's sockets close with it anyway.
        if not _finalizing() and _getpid() == getattr(self, "_pid", None):
            _close(getattr(self, "_conn", None))

    # --- the store operations -----------------------------------------------------------

    def _store_now_ms(self) -> int:
        ((store_ms,),) = self._run(self.sql.now)
        return int(store_ms)

    def _store_claim(self, owner: str, caller_ms: int, holder: str) -> Claimed | None:
        params = {
            "first": self.first, "last": self.last, "owner": owner, "ttl": self.ttl_ms / 1000,
            "holder": holder, "caller_ms": caller_ms, "max_skew": self.max_skew_ms,
            "span": self.span_ms,
        }  # fmt: skip
        rows = self._run(self.sql.claim, params)
        repaired: tuple[int, ...] = ()
        if not rows:
            self._check_sync()  # nothing claimed: say so if that was why
        if not rows:  # every worker held, rows deleted, no meta row (a wiped store), older
            state = self._run(self.sql.meta_state)
            if not state:
                raise StoreMissing("the store's meta row is gone")
            if state[0][1] is None or int(state[0][1]) < STORE_FORMAT:
                raise StoreOutdated
            if self._history_differs():
                rows = self._run(self.sql.claim, params)
        if not rows:
            written = self._run(
                self.sql.repair, {"first": self.first, "last": self.last, "ms": self.quarantine_ms}
            )
            if not written:
                return None
            repaired = tuple(sorted(int(row[0]) for row in written))
            rows = self._run(self.sql.claim, params)
            if not rows:  # taken by others meanwhile: all held now
                self._log_repaired(repaired)
                return None
        worker, old_ceiling, ceiling, epoch, _store_ms, incarnation, history, until = rows[0]
        return Claimed(
            worker, old_ceiling, ceiling, epoch, incarnation, repaired, history,
            None if until is None else int(until),
        )  # fmt: skip

    # --- failover (docs/leases.md, "A store that failed over") ---------------------------

    def _check_sync(self) -> None:
        """With ``replication=sync``, after a claim or renewal that wrote nothing: raise
        StoreNotSynchronousError if no synchronous standby is named (why it wrote nothing)."""
        if self.sync_replication:
            ((names,),) = self._run(self.sql.sync_state)
            if not str(names).strip():
                raise StoreNotSynchronousError(
                    store=self.url, setting="synchronous_standby_names", found="''",
                    required="a synchronous standby named",
                )  # fmt: skip

    def _history_differs(self) -> bool:
        """After a claim that found nothing: whether the store's recorded history was
        not the server's and is now (adopted: it had none; True, so claim again); raises
        HistoryChanged when it is another one (the store failed over or went back)."""
        rows = self._run(self.sql.history_state)  # no such column: StoreOutdated, set up
        if not rows:
            return False
        seen, found = rows[0]
        if seen is None:
            self._run(self.sql.adopt_history)
            return True
        if seen != found:
            raise HistoryChanged(str(seen), str(found))
        return False

    def _store_history(self) -> str | None:
        ((found,),) = self._run(self.sql.server_history)
        return str(found)

    def _store_quarantine(self, seen: str, found: str) -> Quarantine:
        rows = self._run(self.sql.quarantine, {"ms": self.failover_quarantine_ms})
        return quarantined(rows[0] if rows else None, self._store_last_quarantine, seen, found)

    def _store_last_quarantine(self) -> Quarantine | None:
        try:
            rows = self._run(self.sql.last_quarantine)
        except StoreOutdated:
            return None
        return from_row(rows[0]) if rows else None

    def _store_renew(
        self, worker: int, owner: str, epoch: int, caller_ms: int, acked_ms: int
    ) -> Renewed:
        del acked_ms  # the CAS needs no repair: a restarted PostgreSQL keeps its commits
        params = {
            "worker": worker, "owner": owner, "epoch": epoch, "ttl": self.ttl_ms / 1000,
            "caller_ms": caller_ms, "span": self.span_ms, "max_skew": self.max_skew_ms,
            "incarnation": self.incarnation, "history": self.history,
        }  # fmt: skip
        rows = self._run(self.sql.renew, params)
        if not rows:  # owner, epoch, incarnation or history no longer match
            self._check_sync()  # (or, with replication=sync, nothing written: no standby)
            return Renewed("lost")
        old_ceiling, ceiling, store_ms = rows[0]
        return Renewed("ok", old_ceiling, ceiling, store_ms=int(store_ms))

    def _store_release(self, worker: int, owner: str, epoch: int) -> None:
        self._run(self.sql.release, {"worker": worker, "owner": owner, "epoch": epoch})

    def _store_release_mark(self, worker: int, owner: str, epoch: int, mark_ms: int) -> bool:
        params = {"worker": worker, "owner": owner, "epoch": epoch, "mark": mark_ms}
        return bool(self._run(self.sql.release_mark, params))

    def _store_void_marks(self) -> int:
        return len(self._run(self.sql.void_marks))

    def _store_incarnation(self) -> str | None:
        rows = self._run(self.sql.incarnation)
        return str(rows[0][0]) if rows else None

    def _store_lost_how(self, worker: int, owner: str, epoch: int, acked_ms: int) -> LostHow:
        try:
            rows = self._run(self.sql.lost_row, {"worker": worker})
        except StoreOutdated:
            return "outdated"
        return lost_how(rows[0], owner, epoch, acked_ms) if rows else "claimed"

    # --- set-up and status --------------------------------------------------------------

    @detached()
    def _store_init(self, quarantine_ms: int | None) -> Initialised:
        """Create the tables and the meta row if missing, or repair (one transaction)."""
        import psycopg

        conn = self._connect()
        try:
            with conn.transaction(), conn.cursor() as cur:
                return self.sql.init(cur, quarantine_ms=quarantine_ms, repair_ms=self.quarantine_ms)
        except psycopg.Error as error:
            self._drop_connection()
            raise self._unreachable(error) from None

    def _store_where(self) -> dict[str, object]:
        return {"table": self.sql.table}

    def _store_missing(self) -> list[int]:
        rows = self._run(self.sql.present, {"first": self.first, "last": self.last})
        return sorted(set(range(self.first, self.last + 1)) - {int(row[0]) for row in rows})

    def status(self) -> list[IdentityStatus]:
        with self._lock:
            try:
                rows = self._run(self.sql.status)
            except StoreMissing:
                return []
        return self._status_rows(rows)
