"""MySQL / MariaDB leases for fleets (``mysql://``, ``mariadb://``), through PyMySQL (lazily).

The protocol is the PostgreSQL backend's (see ``_store.StoreLease``): one table of
1024 rows and a meta row holding the incarnation; a claim picks the free row with the
lowest ceiling (``FOR UPDATE SKIP LOCKED``) in one transaction; a renewal is a
compare-and-set on (worker, owner, epoch); times come from the server's clock. Each
operation is one round trip (``_mysqlsql``). What MySQL adds:

- **Servers**: MariaDB 10.6 or later, MySQL 8.0.1 or later (``SKIP LOCKED``); an older
  one is refused with StoreVersionError, a read-only one (a replica) with
  StoreRefusedError, tables in an engine other than InnoDB likewise.
- **Strict mode** (the default): every new connection first checks that a commit is
  durable when acknowledged - ``innodb_flush_log_at_trx_commit = 1`` and, when the
  binary log is on, ``sync_binlog = 1`` - before any lease statement runs, so a server
  that can lose acknowledged ceilings is refused (StoreNotDurableError naming the
  setting) before it is set up or quarantined. ``durability=best_effort`` accepts it,
  with one loud warning per process and store.
- **Timeouts**: every round trip has a client-side timeout (``timeout``, the renewal
  interval by default); a statement the client gave up on is ended on the server by
  ``KILL`` from a short-lived second connection, so a stalled row lock does not pile
  up abandoned sessions.

Driver: PyMySQL, a pure-Python wheel (no libmysqlclient to build), maintained, with
client-side read and write timeouts and multi-statement batches.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from typing import Any, NoReturn, Unpack

from snowid._exceptions import (
    StoreNotSynchronousError,
    StoreRefusedError,
    StoreUnreachableError,
    StoreVersionError,
    detached,
)
from snowid.ids import TWITTER, Clock
from snowid.lease._base import IdentityStatus
from snowid.lease._failover import HistoryChanged, Quarantine, from_row, quarantined
from snowid.lease._mysqlconn import (
    MIN_VERSION,
    connection_class,
    kill_session,
    parse_version,
    tls_options,
    weak_settings,
)
from snowid.lease._mysqlconn import reason as reason_of
from snowid.lease._mysqlsql import FAILOVER_COLUMNS, HANDOVER_COLUMNS, SESSION, Sql
from snowid.lease._redact import driver_detail, scrub
from snowid.lease._store import (
    Claimed,
    Initialised,
    LostHow,
    Renewed,
    StoreLease,
    StoreMissing,
    StoreOptions,
    StoreOutdated,
)
from snowid.lease._storeops import (
    DURABILITY,
    REPLICATION,
    STORE_FORMAT,
    check_durability,
    lost_how,
)
from snowid.lease._url import LeaseUrl, given

__all__ = ["OPTIONS", "MysqlLease"]

OPTIONS = (
    "range", "datacenter", "table", "ttl", "renew", "span", "max_skew", "timeout",
    "claim_wait", "connect_timeout", "durability", "unix_socket", "ssl_mode", "ssl_ca",
    "ssl_cert", "ssl_key", "password_file", "replication",
)  # fmt: skip
_SETTINGS = (
    "innodb_flush_log_at_trx_commit", "log_bin", "sync_binlog", "read_only",
    "super_read_only", "innodb_read_only",
)  # fmt: skip
_NO_SUCH_TABLE = 1146
_NO_SUCH_COLUMN = 1054  # ER_BAD_FIELD_ERROR: a meta table made before store formats


class MysqlLease(StoreLease):
    """A worker identity in ``[first, last]`` leased from a MySQL or MariaDB table."""

    def __init__(
        self,
        connection: dict[str, Any],
        *,
        table: str = "snowid_leases",
        connect_timeout: float = 2.0,
        durability: str = "strict",
        replication: str = "async",
        url: str = "mysql://",
        clock: Clock | None = None,
        **options: Unpack[StoreOptions],
    ) -> None:
        super().__init__(url=url, clock=clock, **options)
        self.connection = dict(connection)  # host, port, user, password, database, ssl, ...
        self.sync_replication = replication == "sync"
        self.sql = Sql(table, sync=self.sync_replication)
        self.connect_timeout = connect_timeout
        self.strict = durability == "strict"
        self._thread_id = 0

    @classmethod
    def from_url(cls, url: LeaseUrl, *, clock: Clock | None = None) -> MysqlLease:
        """``mysql://user[:password]@host[:port]/database?range=…&ttl=…`` (or ``mariadb://``)."""
        url.check_ports()
        url.check_known(OPTIONS)
        host, port, user = url.endpoint()[:3]
        database = url.path.strip("/")
        if not database or "/" in database:
            raise url.fail("database_missing")
        connection: dict[str, Any] = {
            "host": host or "localhost",
            "port": port or 3306,
            "database": database,
            "user": user or "root",
        }
        if "unix_socket" in url.options:
            connection["unix_socket"] = url.local_path(url.options["unix_socket"])
        connection.update(tls_options(url))
        own = given(
            table=url.identifier("table"),
            connect_timeout=url.seconds("connect_timeout", 0.01),
            durability=url.choice("durability", DURABILITY),
            replication=url.choice("replication", REPLICATION),
        )
        options = cls.read_options(url)
        # Read last (from the URL or password_file=): no refusal above runs with the
        # password among its frame's variables.
        password = url.password()
        if password is not None:
            connection["password"] = password
        return cls(connection, url=url.shown, clock=clock, **own, **options)

    # --- connection ---------------------------------------------------------------------

    def _open(self) -> Any:
        """A new PyMySQL connection (not yet checked)."""
        from pymysql.constants import CLIENT

        return connection_class()(
            **self.connection,
            connect_timeout=self.connect_timeout,
            read_timeout=self.timeout_s,
            write_timeout=self.timeout_s,
            autocommit=True,
            client_flag=CLIENT.MULTI_STATEMENTS,
            charset="utf8mb4",
            program_name="snowid-lease",
        )

    def _connect(self, *, check: bool = True) -> Any:
        """The connection, opened and (``check``) vouched for after a drop."""
        if self._conn is not None:
            return self._conn
        conn = self._call(self._open)
        try:
            self._conn = conn
            self._handshake(check)
        except BaseException:
            self._drop_connection()
            raise
        return conn

    def _handshake(self, check: bool) -> None:
        """Before any lease statement on a new connection: the session's settings, then
        (``check``) the server's version, role and durability and our tables' engine."""
        lock_wait = max(1, int(self.timeout_s + 0.999))
        settings = ", ".join(f"'{name}'" for name in _SETTINGS)
        (ident,), variables = self._batch(
            f"{SESSION.format(lock_wait=lock_wait)};"
            " SELECT VERSION(), CONNECTION_ID();"
            f" SHOW GLOBAL VARIABLES WHERE Variable_name IN ({settings})"
        )
        version, self._thread_id = str(ident[0]), int(ident[1])
        product, numbers = parse_version(version)
        if not check:
            return
        if self.sync_replication and product != "MariaDB":
            raise StoreRefusedError(
                store=self.url,
                reason="replication=sync is verified through MariaDB's semi-synchronous"
                f" replication status; {product} is not supported with it",
            )
        required = MIN_VERSION[product]
        if numbers < required:
            raise StoreVersionError(
                store=self.url,
                product=product,
                version=version,
                required=f"{product} {'.'.join(map(str, required))}",
            )
        found = {str(name).lower(): str(value) for name, value in variables}
        for name in ("read_only", "super_read_only", "innodb_read_only"):
            if found.get(name, "OFF").upper() in ("ON", "1"):
                raise StoreRefusedError(
                    store=self.url, reason=f"the server is read-only ({name}=ON): a replica?"
                )
        self._check_engines()
        risk = "a crash that loses acknowledged commits"
        check_durability(self.url, "MySQL", self.strict, weak_settings(found), risk)

    def _check_engines(self) -> None:
        """Our tables, where they exist, are InnoDB (transactions, row locks, crash-safe)."""
        (engines,) = self._batch(self.sql.engines, self.sql.names)
        for table, engine in engines:
            if str(engine).lower() != "innodb":
                raise StoreRefusedError(
                    store=self.url,
                    reason=f"table {table} uses the {engine} engine; leases need InnoDB"
                    " (transactions and row locks)",
                )

    @detached()
    def _call(self, func: Any, *args: Any) -> Any:
        """One round trip; PyMySQL's errors become snowid's (the connection is dropped).

        A missing lease table becomes StoreMissing (a store never set up, or wiped), a
        missing column StoreOutdated (a store of an older format).
        """
        import pymysql

        started = time.monotonic()
        try:
            return func(*args)
        except pymysql.err.OperationalError as error:
            if error.args and error.args[0] == _NO_SUCH_COLUMN:
                self._drop_connection()
                raise StoreOutdated from None
            timed_out = time.monotonic() - started >= self.timeout_s * 0.9
            self._drop_connection(kill=timed_out)
            code = error.args[0] if error.args else 0
            if timed_out and code >= 2000:  # a client error: the read timed out
                raise self._timed_out() from None
            raise StoreUnreachableError(**self._detail(error)) from None
        except pymysql.err.MySQLError as error:
            self._drop_connection()
            if error.args and error.args[0] == _NO_SUCH_TABLE:
                raise StoreMissing from None
            raise StoreRefusedError(**self._detail(error)) from None
        except OSError as error:  # pragma: no cover - PyMySQL wraps socket errors
            self._drop_connection()
            raise StoreUnreachableError(**self._detail(error)) from None

    def _detail(self, error: BaseException) -> dict[str, str]:
        """The store, PyMySQL's message in one line and the driver's detail, without the
        password (or any quoted name)."""
        password = self.connection.get("password")
        secrets = [password] if password else []
        reason = reason_of(error)
        return {
            "store": self.url,
            "reason": scrub(reason, self.url, secrets),
            **driver_detail(error, self.url, secrets, message=reason),
        }

    def _batch(self, sql: str, params: Any = None) -> list[list[tuple[Any, ...]]]:
        """Send ``sql`` (one or more statements) in one round trip; every result set."""
        conn = self._connect()

        def run() -> list[list[tuple[Any, ...]]]:
            with conn.cursor() as cur:
                cur.execute(sql, params)
                results = []
                while True:
                    if cur.description:
                        results.append(list(cur.fetchall()))
                    if not cur.nextset():
                        return results

        result: list[list[tuple[Any, ...]]] = self._call(run)
        return result

    def _drop_connection(self, *, kill: bool = False) -> None:
        super()._drop_connection()
        if kill and self._thread_id:
            # The server may still run what we gave up on (a lock wait): end that session.
            threading.Thread(
                target=kill_session,
                args=(self.connection, self._thread_id),
                name="snowid-kill",
                daemon=True,
            ).start()
        self._thread_id = 0

    def _abandon_connection(self) -> None:
        super()._abandon_connection()
        self._thread_id = 0

    # --- the store operations -----------------------------------------------------------

    def _store_now_ms(self) -> int:
        ((row,),) = self._batch(self.sql.now)
        return int(row[0])

    def _store_claim(self, owner: str, caller_ms: int, holder: str) -> Claimed | None:
        params = {
            "first": self.first, "last": self.last, "owner": owner, "ttl": self.ttl_ms,
            "holder": holder[:255], "caller_ms": caller_ms, "max_skew": self.max_skew_ms,
            "span": self.span_ms,
        }  # fmt: skip
        worker, old, ceiling, epoch, _now, incarnation, found, seen, history, until, *sync = (
            self._claim_batch(owner, params)
        )
        if incarnation is None:
            if worker is not None:  # the claim committed before the missing meta row showed
                self._store_release(int(worker), owner, int(epoch))
            raise StoreMissing
        if found is None or int(found) < STORE_FORMAT:
            raise StoreOutdated  # nothing claimed
        if worker is None:
            self._check_sync(*sync)  # nothing claimed: say so if that was why
        if worker is None and seen != history:  # nothing claimed: another history
            if seen is not None:
                raise HistoryChanged(str(seen), str(history))
            self._batch(self.sql.adopt_history)  # set up by an older snowid: adopted
            worker, old, ceiling, epoch, _now, incarnation, _f, seen, history, until, *_ = (
                self._claim_batch(owner, params)
            )
        repaired: tuple[int, ...] = ()
        if worker is None:  # every worker held, or rows deleted: write those again
            repaired = self._repair(self.first, self.last)
            if not repaired:
                return None
            worker, old, ceiling, epoch, _now, incarnation, _f, seen, history, until, *_ = (
                self._claim_batch(owner, params)
            )
            if worker is None or incarnation is None:  # taken by others meanwhile
                self._log_repaired(repaired)
                return None
        return Claimed(
            int(worker), int(old), int(ceiling), int(epoch), str(incarnation), repaired,
            str(history), None if until is None else int(until),
        )  # fmt: skip

    def _claim_batch(self, owner: str, params: dict[str, Any]) -> tuple[Any, ...]:
        """One claim batch; its row. With ``replication=sync``, a claim whose own commit a
        replica may not have acknowledged is given back and refused."""
        results = self._batch(self.sql.claim, params)
        row = results[0][0]
        if self.sync_replication and row[0] is not None:
            try:
                self._check_acked(results[1][0])
            except StoreNotSynchronousError:
                self._release_quietly(int(row[0]), owner, int(row[3]))
                raise
        return row

    # --- replication=sync (docs/leases.md, "Synchronous replication") ---------------------

    def _check_sync(self, status: Any, wait_point: Any) -> None:
        """With ``replication=sync``, after a claim or renewal that wrote nothing: raise
        StoreNotSynchronousError if semi-synchronous replication was off or waited at
        another point (why it wrote nothing)."""
        if not self.sync_replication:
            return
        if str(wait_point).upper() != "AFTER_SYNC":
            self._not_sync("rpl_semi_sync_master_wait_point", str(wait_point), "AFTER_SYNC")
        if str(status).upper() != "ON":
            self._not_sync("Rpl_semi_sync_master_status", str(status or "OFF"), "ON")

    def _check_acked(self, after: tuple[Any, ...]) -> None:
        """After a claim's or renewal's commit: semi-sync still on, and no commit went
        unacknowledged meanwhile (one that timed out switches it off; ours may be it)."""
        status, unacked = after
        if str(status).upper() != "ON" or int(unacked or 0) > 0:
            self._not_sync(
                "Rpl_semi_sync_master_status",
                f"{status or 'OFF'} after the commit, {int(unacked or 0)} commit(s) not"
                " acknowledged by a replica meanwhile",
                "ON, every commit acknowledged",
            )

    def _not_sync(self, setting: str, found: str, required: str) -> NoReturn:
        raise StoreNotSynchronousError(
            store=self.url, setting=setting, found=found, required=required
        )

    def _repair(self, first: int, last: int) -> tuple[int, ...]:
        """Write again the rows of ``first..last`` found missing, quarantined; which."""
        (rows,) = self._batch(self.sql.present, {"first": first, "last": last})
        missing = sorted(set(range(first, last + 1)) - {int(row[0]) for row in rows})
        if missing:
            self._batch(self.sql.repair(missing), {"ms": self.quarantine_ms})
        return tuple(missing)

    def _store_renew(
        self, worker: int, owner: str, epoch: int, caller_ms: int, acked_ms: int
    ) -> Renewed:
        del acked_ms  # the regression check is the caller's
        params = {
            "worker": worker, "owner": owner, "epoch": epoch, "ttl": self.ttl_ms,
            "caller_ms": caller_ms, "span": self.span_ms, "max_skew": self.max_skew_ms,
            "incarnation": self.incarnation or "", "history": self.history,
        }  # fmt: skip
        results = self._batch(self.sql.renew, params)
        old, ceiling, now, incarnation, *sync = results[0][0]
        if incarnation is None:
            raise StoreMissing
        if old is None or ceiling is None:
            self._check_sync(*sync)  # (with replication=sync, nothing written: semi-sync off)
            return Renewed("lost")
        if self.sync_replication:
            self._check_acked(results[1][0])  # the new ceiling is not used otherwise
        return Renewed("ok", int(old), int(ceiling), store_ms=int(now))

    # --- failover (docs/leases.md, "A store that failed over") ---------------------------

    def _store_history(self) -> str | None:
        ((row,),) = self._batch(self.sql.server_history)
        return str(row[0])

    def _store_quarantine(self, seen: str, found: str) -> Quarantine:
        ((row,),) = self._batch(self.sql.failover_quarantine, {"ms": self.failover_quarantine_ms})
        return quarantined(row, self._store_last_quarantine, seen, found)

    def _store_last_quarantine(self) -> Quarantine | None:
        opened = self._conn is None
        try:
            if opened:  # reading needs no durability (a connection of its own, dropped)
                self._connect(check=False)
            (rows,) = self._batch(self.sql.last_quarantine)
        except StoreOutdated:  # a meta table made before the failover check
            return None
        finally:
            if opened:
                self._drop_connection()
        return from_row(rows[0]) if rows else None

    def _store_release(self, worker: int, owner: str, epoch: int) -> None:
        self._batch(self.sql.release, {"worker": worker, "owner": owner, "epoch": epoch})

    def _store_release_mark(self, worker: int, owner: str, epoch: int, mark_ms: int) -> bool:
        params = {"worker": worker, "owner": owner, "epoch": epoch, "mark": mark_ms}
        ((row,),) = self._batch(self.sql.release_mark, params)
        return int(row[0]) > 0

    def _store_void_marks(self) -> int:
        ((row,),) = self._batch(self.sql.void_marks)
        return int(row[0])

    def _store_incarnation(self) -> str | None:
        rows = self._batch(self.sql.incarnation)
        return str(rows[0][0][0]) if rows and rows[0] else None

    def _store_lost_how(self, worker: int, owner: str, epoch: int, acked_ms: int) -> LostHow:
        try:
            (rows,) = self._batch(self.sql.lost_row, {"worker": worker})
        except StoreOutdated:
            return "outdated"
        return lost_how(rows[0], owner, epoch, acked_ms) if rows else "claimed"

    # --- set-up and status --------------------------------------------------------------

    def _store_init(self, quarantine_ms: int | None) -> Initialised:
        """Create the tables if missing, then the meta row (with the quarantine) under a
        named lock, so two first users do not race; on a store set up before, write
        lost rows again (quarantined) and upgrade an older format (every ceiling
        quarantined, then the format recorded, in one transaction)."""
        self._batch(self.sql.init_lock, self.sql.names)
        try:
            for statement in self.sql.create:
                self._batch(statement)
            self._check_engines()  # CREATE TABLE may have substituted another engine
            if not self._batch(self.sql.has_format, self.sql.names)[0]:
                self._batch(self.sql.add_format)  # a meta table made before formats
            (columns,) = self._batch(self.sql.meta_columns, self.sql.names)
            have = {str(row[0]).lower() for row in columns}
            lacking = [column for column in FAILOVER_COLUMNS if column[0] not in have]
            if lacking:  # a meta table made before the failover check
                self._batch(self.sql.add_meta_columns(lacking))
            (columns,) = self._batch(self.sql.columns, self.sql.names)
            have = {str(row[0]).lower() for row in columns}
            missing = [name for name in HANDOVER_COLUMNS if name not in have]
            if missing:  # a table made before the clean hand-over
                self._batch(self.sql.add_columns(missing))
            return self._init_meta(quarantine_ms)
        finally:
            if self._conn is not None:
                with contextlib.suppress(StoreUnreachableError, StoreRefusedError):
                    self._batch(self.sql.init_unlock, self.sql.names)

    def _store_where(self) -> dict[str, object]:
        return {"table": self.sql.table_name}

    def _store_missing(self) -> list[int]:
        try:
            self._connect(check=False)  # reading needs no durability
            (rows,) = self._batch(self.sql.present, {"first": self.first, "last": self.last})
        finally:
            self._drop_connection()
        return sorted(set(range(self.first, self.last + 1)) - {int(row[0]) for row in rows})

    def _init_meta(self, quarantine: int | None) -> Initialised:
        (found,) = self._batch(f"START TRANSACTION; {self.sql.meta_row}")
        if found:
            self._batch(f"{self.sql.adopt_history}; COMMIT")
            repaired = self._repair(0, TWITTER.max_worker)
            stored = found[0][1]
            upgraded = stored is None or int(stored) < STORE_FORMAT
            if upgraded:
                self._batch(
                    f"START TRANSACTION; {self.sql.quarantine}; {self.sql.set_format}; COMMIT",
                    {"quarantine": self.quarantine_ms, "format": STORE_FORMAT},
                )
            return Initialised(str(found[0][0]), False, upgraded, repaired)
        incarnation = str(uuid.uuid4())
        statements = [self.sql.fill]
        if quarantine is not None:
            statements.append(self.sql.quarantine)
        statements += [self.sql.insert_meta, "COMMIT"]
        params = {"quarantine": quarantine, "incarnation": incarnation, "format": STORE_FORMAT}
        self._batch("; ".join(statements), params)
        return Initialised(incarnation, True)

    def status(self) -> list[IdentityStatus]:
        """Every identity in range ever claimed: holder, epoch, ceiling."""
        with self._lock:
            try:
                self._connect(check=False)  # reading needs no durability
                (rows,) = self._batch(self.sql.status, {"first": self.first, "last": self.last})
            except StoreMissing:
                return []
            finally:
                self._drop_connection()
        return self._status_rows(rows)
