# ruff: noqa: S608 - identifiers are checked against [a-z_][a-z0-9_]*, values are parameters
"""The SQL of the MySQL / MariaDB lease store: schema, claim, renew, release, repair, status.

Each lease operation is ONE round trip: a batch of statements sent together
(``CLIENT.MULTI_STATEMENTS``), so a slow link costs one latency per operation, as
PostgreSQL's single statement does. Claim and renewal are one transaction each
(``START TRANSACTION`` … ``COMMIT`` inside the batch), carrying their values from
statement to statement in session variables (``@snowid_*``).

Times are Unix milliseconds from the server's clock, read with ``SYSDATE(6)`` (the
time the expression runs, not the statement's start) in a session whose time zone
is UTC, so ``UNIX_TIMESTAMP`` never meets a daylight-saving gap or overlap.

Why the ``by_ceiling`` index: InnoDB locks every row a locking read scans, and a
claim that sorted by ceiling with a filesort would lock every free row before
picking one, so concurrent claimers (``SKIP LOCKED``) would see none free. Scanning
the index in ceiling order stops at the first free row, and in READ COMMITTED the
rows it passed over are unlocked at once.
"""

from __future__ import annotations

from snowid.ids import TWITTER
from snowid.lease._storeops import STORE_FORMAT
from snowid.lease._url import check_identifier

__all__ = ["FAILOVER_COLUMNS", "HISTORY", "NOW_MS", "SEMI_SYNC_STATUS", "Sql"]

_BIGINT_MAX = 2**63 - 1
_INIT_LOCK = "LEFT(CONCAT('snowid:', DATABASE(), '.', %(table)s), 64)"
"""The name of the set-up lock: one per database and table (names are at most 64 long)."""

HANDOVER_COLUMNS = ("start_ms", "released_ms", "released_epoch", "released_ceiling")
"""The clean hand-over's columns (BIGINT NULL): the start of the grant a claim made, and
the mark a clean release wrote with the epoch and ceiling it belongs to. Added to a table
made before them by the next set-up (a claim that misses them triggers one: error 1054)."""

_MARKED = (
    "CASE WHEN released_ms IS NOT NULL AND released_epoch = epoch"
    " AND released_ceiling = ceiling_ms THEN released_ms ELSE ceiling_ms END"
)
"""Where a claim of the row starts, minus 1: the mark while the row is still that epoch's
release at that ceiling (a renewal, a quarantine or any claim since voids it), else the
ceiling."""

NOW_MS = "CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000) AS SIGNED)"
"""The server's clock in Unix milliseconds (the session's time zone is UTC)."""

HISTORY = "CAST(@@global.server_id AS CHAR)"
"""The server's history identity: its ``server_id``. Replication refuses two servers of
one id, so a promoted replica answers another one than the primary it replaced (its
GTID position keeps the old primary's server id until its first own write, and the GTID
domain does not change: neither tells a promotion). Any user may read it. Written into
the store through a user variable (``@snowid_h``), never as ``@@server_id`` in a
replicated statement: a statement-based binary log would replay it as the replica's."""

FAILOVER_COLUMNS = (
    ("history", "VARCHAR(64)"), ("quarantine_seen", "VARCHAR(64)"),
    ("quarantine_at_ms", "BIGINT"), ("quarantine_until_ms", "BIGINT"),
)  # fmt: skip
"""The meta table's columns of the failover check (docs/leases.md, "A store that failed
over"), added to a meta table made before them."""

_STATUS = (
    "(SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS"
    " WHERE VARIABLE_NAME = 'RPL_SEMI_SYNC_MASTER_{0}')"
)
SEMI_SYNC_STATUS = _STATUS.format("STATUS")
"""MariaDB's semi-synchronous replication now: ON while every commit waits for a replica's
acknowledgement, OFF after a wait timed out (it falls back to asynchronous silently, and
back on when a replica catches up). Any user may read it, as the wait point below."""
SEMI_SYNC_UNACKED = _STATUS.format("NO_TX")
"""How many commits were not acknowledged by a replica since the server started: one more
after a commit than before it, and that commit may not have been replicated."""
SEMI_SYNC_WAIT_POINT = "@@global.rpl_semi_sync_master_wait_point"
"""AFTER_SYNC: a commit is visible to other sessions only once a replica acknowledged it
(AFTER_COMMIT lets another claimant read a ceiling a failover can still lose)."""

SESSION = (
    "SET time_zone = '+00:00', innodb_lock_wait_timeout = {lock_wait};"
    " SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"
)
"""Sent once per connection (PyMySQL's init_command): UTC for UNIX_TIMESTAMP, READ
COMMITTED so scanned-but-skipped rows are not kept locked, and a lock wait bounded
near the client's timeout so a stalled statement does not linger on the server."""


class Sql:
    """Statements for one ``table`` (and its ``table_meta``) in the URL's database."""

    def __init__(self, table: str, *, sync: bool = False) -> None:
        self.sync = sync
        """``replication=sync``: claims and renewals are written only while semi-synchronous
        replication is on at AFTER_SYNC, and report whether their own commit was
        acknowledged (a result set after the COMMIT: status, unacknowledged commits since
        the batch began)."""
        self.table_name = check_identifier("table", table)
        self.names = {"table": table, "meta": f"{table}_meta"}
        """The parameters of the statements that name our tables (engines, init_lock)."""
        self.table = f"`{table}`"
        self.meta = f"`{table}_meta`"

    # --- replication=sync ----------------------------------------------------------------

    @property
    def _sync_vars(self) -> str:
        """Set first in a claim or renewal batch: @snowid_sync (whether to write at all) and
        @snowid_unacked (the server's count of unacknowledged commits before ours)."""
        if not self.sync:
            return " @snowid_sync = TRUE, @snowid_unacked = 0"
        return (
            f" @snowid_sync = ({SEMI_SYNC_STATUS} = 'ON' AND {SEMI_SYNC_WAIT_POINT} = 'AFTER_SYNC'),"
            f" @snowid_unacked = {SEMI_SYNC_UNACKED}"
        )

    @property
    def _sync_columns(self) -> str:
        """The last columns of a claim's or renewal's row: the semi-sync status and wait
        point it was checked against (NULLs without ``replication=sync``)."""
        return f", {SEMI_SYNC_STATUS}, {SEMI_SYNC_WAIT_POINT}" if self.sync else ", NULL, NULL"

    @property
    def _sync_after(self) -> str:
        """After the COMMIT: whether semi-sync is still on and how many commits went
        unacknowledged meanwhile (ours among them, maybe)."""
        if not self.sync:
            return ""
        return f"; SELECT {SEMI_SYNC_STATUS}, {SEMI_SYNC_UNACKED} - @snowid_unacked"

    # --- set-up -------------------------------------------------------------------------

    @property
    def create(self) -> list[str]:
        """CREATE TABLE IF NOT EXISTS, each its own statement (DDL commits implicitly)."""
        return [
            f"CREATE TABLE IF NOT EXISTS {self.meta} ("
            " id TINYINT NOT NULL PRIMARY KEY, incarnation CHAR(36) NOT NULL,"
            " layout VARCHAR(32) NOT NULL, created_ms BIGINT NOT NULL, format INT NULL,"
            " history VARCHAR(64) NULL, quarantine_seen VARCHAR(64) NULL,"
            " quarantine_at_ms BIGINT NULL, quarantine_until_ms BIGINT NULL,"
            " CHECK (id = 1)) ENGINE=InnoDB",
            f"CREATE TABLE IF NOT EXISTS {self.table} ("
            " worker SMALLINT NOT NULL PRIMARY KEY, owner CHAR(36) NULL,"
            " epoch BIGINT NOT NULL DEFAULT 0, ceiling_ms BIGINT NOT NULL DEFAULT 0,"
            " expires_ms BIGINT NOT NULL DEFAULT 0, claimed_ms BIGINT NULL,"
            " renewed_ms BIGINT NULL, holder VARCHAR(255) NOT NULL DEFAULT '',"
            " start_ms BIGINT NULL, released_ms BIGINT NULL, released_epoch BIGINT NULL,"
            " released_ceiling BIGINT NULL,"
            " KEY by_ceiling (ceiling_ms, worker),"
            f" CHECK (worker BETWEEN 0 AND {TWITTER.max_worker})) ENGINE=InnoDB",
        ]

    @property
    def engines(self) -> str:
        """The storage engine of each of our tables (both must be InnoDB)."""
        return (
            "SELECT table_name, engine FROM information_schema.tables"
            " WHERE table_schema = DATABASE() AND table_name IN (%(table)s, %(meta)s)"
        )

    @property
    def init_lock(self) -> str:
        """A named lock (server-wide, held by the session) so two first users do not race."""
        return f"SELECT GET_LOCK({_INIT_LOCK}, 10)"

    @property
    def init_unlock(self) -> str:
        return f"SELECT RELEASE_LOCK({_INIT_LOCK})"

    @property
    def has_format(self) -> str:
        """One row when the meta table has its ``format`` column (made before: none)."""
        return (
            "SELECT 1 FROM information_schema.columns WHERE table_schema = DATABASE()"
            " AND table_name = %(meta)s AND column_name = 'format'"
        )

    @property
    def add_format(self) -> str:
        return f"ALTER TABLE {self.meta} ADD COLUMN format INT NULL"

    @property
    def columns(self) -> str:
        """The columns of the leases table."""
        return (
            "SELECT column_name FROM information_schema.columns WHERE table_schema = DATABASE()"
            " AND table_name = %(table)s"
        )

    @property
    def meta_columns(self) -> str:
        """The columns of the meta table."""
        return (
            "SELECT column_name FROM information_schema.columns WHERE table_schema = DATABASE()"
            " AND table_name = %(meta)s"
        )

    def add_meta_columns(self, columns: list[tuple[str, str]]) -> str:
        """Add the failover check's ``columns`` (name, type) to a meta table made before."""
        return f"ALTER TABLE {self.meta} " + ", ".join(
            f"ADD COLUMN {check_identifier('column', name)} {kind} NULL" for name, kind in columns
        )

    def add_columns(self, names: list[str]) -> str:
        """Add the hand-over's columns ``names`` to a table made before them."""
        return f"ALTER TABLE {self.table} " + ", ".join(
            f"ADD COLUMN {check_identifier('column', name)} BIGINT NULL" for name in names
        )

    @property
    def meta_row(self) -> str:
        return f"SELECT incarnation, format FROM {self.meta} WHERE id = 1 FOR UPDATE"

    @property
    def set_format(self) -> str:
        return f"UPDATE {self.meta} SET format = %(format)s WHERE id = 1"

    @property
    def fill(self) -> str:
        rows = ",".join(f"({w})" for w in range(TWITTER.max_worker + 1))
        return f"INSERT INTO {self.table} (worker) VALUES {rows} ON DUPLICATE KEY UPDATE worker = worker"

    @property
    def quarantine(self) -> str:
        """Every ceiling raised to the store's now + %(quarantine)s (a fresh or wiped store)."""
        return (
            f"UPDATE {self.table} SET ceiling_ms = GREATEST(ceiling_ms, {NOW_MS} + %(quarantine)s)"
        )

    @property
    def insert_meta(self) -> str:
        return (
            f"SET @snowid_h = {HISTORY};"
            f" INSERT INTO {self.meta} (id, incarnation, layout, created_ms, format, history)"
            f" VALUES (1, %(incarnation)s, 'twitter', {NOW_MS}, %(format)s, @snowid_h)"
        )

    # --- failover (docs/leases.md, "A store that failed over") ---------------------------

    @property
    def adopt_history(self) -> str:
        """A store whose history was never recorded (set up by an older snowid) takes the
        server's: nothing tells whether it failed over before."""
        return (
            f"SET @snowid_h = {HISTORY};"
            f" UPDATE {self.meta} SET history = @snowid_h WHERE id = 1 AND history IS NULL"
        )

    @property
    def server_history(self) -> str:
        return f"SELECT {HISTORY}"

    @property
    def failover_quarantine(self) -> str:
        """Only while the recorded history is not the server's (checked in this batch, the
        meta row locked, so two claimants quarantine once): every ceiling raised to at
        least max(store-now, the last renewal recorded) + %(ms)s, every lease freed (its
        holder fails at its next renewal on the history check) and every release mark
        voided, and the server's history recorded with the quarantine. One row: (seen,
        found, at, until), seen NULL when nothing was done (another process did it)."""
        return (
            "SET @snowid_seen = NULL, @snowid_until = NULL,"
            f" @snowid_h = {HISTORY};"
            " START TRANSACTION;"
            f" SELECT history INTO @snowid_seen FROM {self.meta}"
            " WHERE id = 1 AND history <> @snowid_h FOR UPDATE;"
            f" SET @snowid_now = {NOW_MS};"
            " SELECT GREATEST(@snowid_now, COALESCE(MAX(renewed_ms), 0)) + %(ms)s"
            f" INTO @snowid_until FROM {self.table} WHERE @snowid_seen IS NOT NULL;"
            f" UPDATE {self.table} SET ceiling_ms = GREATEST(ceiling_ms, @snowid_until),"
            " expires_ms = LEAST(expires_ms, @snowid_now - 1), released_ms = NULL"
            " WHERE @snowid_seen IS NOT NULL;"
            f" UPDATE {self.meta} SET history = @snowid_h, quarantine_seen = @snowid_seen,"
            " quarantine_at_ms = @snowid_now, quarantine_until_ms = @snowid_until"
            " WHERE id = 1 AND @snowid_seen IS NOT NULL;"
            " SELECT @snowid_seen, @snowid_h, @snowid_now, @snowid_until;"
            " COMMIT"
        )

    @property
    def last_quarantine(self) -> str:
        return (
            "SELECT quarantine_seen, history, quarantine_at_ms, quarantine_until_ms"
            f" FROM {self.meta} WHERE id = 1 AND quarantine_until_ms IS NOT NULL"
        )

    # --- lost rows ----------------------------------------------------------------------

    @property
    def present(self) -> str:
        """The workers of %(first)s..%(last)s that have a row."""
        return f"SELECT worker FROM {self.table} WHERE worker BETWEEN %(first)s AND %(last)s"

    def repair(self, workers: list[int]) -> str:
        """Write again the rows of ``workers`` (found missing: deleted, or the table
        truncated), free, with the ceiling at the store's now + %(ms)s; a row written by
        someone else meanwhile is left as it is."""
        rows = ",".join(f"({int(w)}, @snowid_floor)" for w in workers)
        return (
            f"SET @snowid_floor = {NOW_MS} + %(ms)s;"
            f" INSERT INTO {self.table} (worker, ceiling_ms) VALUES {rows}"
            " ON DUPLICATE KEY UPDATE worker = worker"
        )

    @property
    def lost_row(self) -> str:
        """After a failed compare-and-set: the store's format and %(worker)s's owner,
        epoch and ceiling (NULLs: no such row)."""
        return (
            f"SELECT m.format, l.owner, l.epoch, l.ceiling_ms FROM {self.meta} AS m"
            f" LEFT JOIN {self.table} AS l ON l.worker = %(worker)s WHERE m.id = 1"
        )

    # --- the lease operations (each one round trip) ---------------------------------------

    @property
    def now(self) -> str:
        return f"SELECT {NOW_MS}"

    @property
    def incarnation(self) -> str:
        return f"SELECT incarnation FROM {self.meta} WHERE id = 1"

    @property
    def claim(self) -> str:
        """Lowest ceiling first (the successor most likely to start at once); one row of
        (worker, old ceiling, ceiling, epoch, store now, incarnation, format, recorded
        history, the server's history, the last quarantine's end, semi-sync status, wait
        point): worker NULL when every identity in range is held, the store is of an older
        format (format NULL or lower: nothing is claimed there), its recorded history is
        not the server's (a failover: nothing is claimed before the quarantine) or, with
        ``sync``, semi-sync is off; incarnation NULL when the meta row is gone. With
        ``sync``, a second result set after the COMMIT (``_sync_after``). A meta table made before formats (no format column) fails at once, error
        1054, before anything is written.

        The span is added in DECIMAL up to BIGINT's top, never past it: a stored ceiling
        near 2^63 (a tampered or corrupt row) is claimed unchanged and refused by the
        claimant as ceiling-ahead, instead of failing as "BIGINT value is out of range".
        The new ceiling is a span above where the grant starts (the mark), never below the
        stored one: a claim given back unused and retried raises it once, not a span at
        each try (which a quarantine's voided marks would expose as the next start)."""
        return (
            "SET @snowid_w = NULL, @snowid_old = NULL, @snowid_floor = NULL,"
            f" @snowid_format = (SELECT format FROM {self.meta} WHERE id = 1),"
            f" @snowid_seen = (SELECT history FROM {self.meta} WHERE id = 1),"
            f" @snowid_h = {HISTORY},{self._sync_vars};"
            " START TRANSACTION;"
            f" SELECT worker, ceiling_ms, {_MARKED} INTO @snowid_w, @snowid_old, @snowid_floor"
            f" FROM {self.table} FORCE INDEX (by_ceiling)"
            " WHERE worker BETWEEN %(first)s AND %(last)s"
            f" AND @snowid_format >= {STORE_FORMAT} AND @snowid_seen = @snowid_h AND @snowid_sync"
            f" AND expires_ms < {NOW_MS}"
            " ORDER BY ceiling_ms, worker LIMIT 1 FOR UPDATE SKIP LOCKED;"
            f" SET @snowid_now = {NOW_MS};"
            f" UPDATE {self.table} SET owner = %(owner)s, epoch = epoch + 1,"
            " expires_ms = @snowid_now + %(ttl)s, claimed_ms = @snowid_now,"
            " renewed_ms = @snowid_now, holder = %(holder)s, released_ms = NULL,"
            f" start_ms = LEAST(@snowid_floor, {_BIGINT_MAX - 1}) + 1,"
            " ceiling_ms = GREATEST(ceiling_ms, LEAST(GREATEST(@snowid_floor,"
            " LEAST(%(caller_ms)s, @snowid_now + %(max_skew)s)) + CAST(%(span)s AS DECIMAL(20)),"
            f" {_BIGINT_MAX}))"
            " WHERE worker = @snowid_w;"
            " SELECT @snowid_w, @snowid_floor,"
            f" (SELECT ceiling_ms FROM {self.table} WHERE worker = @snowid_w),"
            f" (SELECT epoch FROM {self.table} WHERE worker = @snowid_w),"
            f" @snowid_now, (SELECT incarnation FROM {self.meta} WHERE id = 1), @snowid_format,"
            " @snowid_seen, @snowid_h,"
            f" (SELECT quarantine_until_ms FROM {self.meta} WHERE id = 1){self._sync_columns};"
            f" COMMIT{self._sync_after}"
        )

    @property
    def renew(self) -> str:
        """Compare-and-set on (worker, owner, epoch), the incarnation and the server's
        history (%(history)s: the server the lease was claimed on); one row of (old
        ceiling, ceiling, store now, incarnation, semi-sync status, wait point): old
        ceiling NULL when the CAS failed (or the store is of an older format, another
        server answers, or with ``sync`` semi-sync is off: nothing is written); with
        ``sync``, a second result set after the COMMIT. The proposal is
        capped by the store's clock: a client far ahead cannot poison the worker."""
        cas = "worker = %(worker)s AND owner = %(owner)s AND epoch = %(epoch)s"
        return (
            f"SET @snowid_old = NULL,{self._sync_vars};"
            " START TRANSACTION;"
            f" SELECT ceiling_ms INTO @snowid_old FROM {self.table} WHERE {cas}"
            f" AND EXISTS (SELECT 1 FROM {self.meta} WHERE id = 1"
            f" AND incarnation = %(incarnation)s AND format >= {STORE_FORMAT})"
            f" AND {HISTORY} = %(history)s AND @snowid_sync FOR UPDATE;"
            f" SET @snowid_now = {NOW_MS};"
            f" UPDATE {self.table} SET renewed_ms = @snowid_now,"
            " expires_ms = @snowid_now + %(ttl)s,"
            " ceiling_ms = GREATEST(ceiling_ms,"
            " LEAST(%(caller_ms)s + %(span)s, @snowid_now + %(span)s + %(max_skew)s))"
            f" WHERE {cas} AND @snowid_old IS NOT NULL;"
            f" SELECT @snowid_old, (SELECT ceiling_ms FROM {self.table} WHERE {cas}),"
            f" @snowid_now, (SELECT incarnation FROM {self.meta} WHERE id = 1){self._sync_columns};"
            f" COMMIT{self._sync_after}"
        )

    @property
    def release(self) -> str:
        return (
            f"UPDATE {self.table} SET expires_ms = {NOW_MS} - 1"
            " WHERE worker = %(worker)s AND owner = %(owner)s AND epoch = %(epoch)s"
        )

    @property
    def release_mark(self) -> str:
        """The clean release: expire the lease and record the mark %(mark)s (never below
        the grant's start - 1), its epoch and ceiling, in one compare-and-set on (worker,
        owner, epoch); the ceiling untouched. One row: 1 if written, 0 if not (taken
        over, or a mark above the ceiling, which no sealed holder can have)."""
        return (
            f"UPDATE {self.table} SET expires_ms = {NOW_MS} - 1,"
            " released_ms = GREATEST(%(mark)s, start_ms - 1), released_epoch = epoch,"
            " released_ceiling = ceiling_ms"
            " WHERE worker = %(worker)s AND owner = %(owner)s AND epoch = %(epoch)s"
            " AND start_ms IS NOT NULL AND %(mark)s <= ceiling_ms;"
            " SELECT ROW_COUNT()"
        )

    @property
    def void_marks(self) -> str:
        return (
            f"UPDATE {self.table} SET released_ms = NULL WHERE released_ms IS NOT NULL;"
            " SELECT ROW_COUNT()"
        )

    @property
    def status(self) -> str:
        return (
            f"SELECT worker, expires_ms > {NOW_MS}, holder, epoch, ceiling_ms, claimed_ms,"
            f" expires_ms FROM {self.table}"
            " WHERE epoch > 0 AND worker BETWEEN %(first)s AND %(last)s ORDER BY worker"
        )
