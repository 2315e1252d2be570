# ruff: noqa: S608 - identifiers are checked against [a-z_][a-z0-9_]*, values are parameters
"""The SQL of the PostgreSQL lease store: schema, claim, renew, release, repair, status.

Every lease operation is ONE autocommit statement (PgBouncer transaction pooling
works; psycopg's server-side prepare is off). Times come from the store's
``clock_timestamp()``; ceilings are Unix milliseconds. No advisory locks hold leases
(session-scoped, invisible when a pooler drops the session): only the schema set-up
takes a transaction-scoped one so two first users do not race.
"""

from __future__ import annotations

import uuid
from typing import Any

from snowid.ids import TWITTER
from snowid.lease._storeops import STORE_FORMAT, Initialised
from snowid.lease._url import check_identifier

__all__ = ["Sql"]

_NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
_MS = "CASE WHEN isfinite({0}) THEN (extract(epoch FROM {0}) * 1000)::bigint END"
INIT_LOCK_KEY = 0x736E6F776964  # "snowid"
HANDOVER_COLUMNS = ("start_ms", "released_ms", "released_epoch", "released_ceiling")
"""The clean hand-over's columns (bigint, NULL): the start of the grant a claim made, and
the mark a clean release wrote with the epoch and ceiling it belongs to. Added to a table
made before them by the next set-up (a claim that misses them triggers one)."""
_MARKED = (
    "CASE WHEN released_ms IS NOT NULL AND released_epoch = epoch"
    " AND released_ceiling = ceiling_ms THEN released_ms ELSE ceiling_ms END"
)
"""Where a claim of the row starts, minus 1: the mark while the row is still that epoch's
release at that ceiling (a renewal, a quarantine or any claim since voids it), else the
ceiling."""
_BIGINT_MAX = 2**63 - 1
# Every write is durable before it is acknowledged, whatever the server, role or database
# sets: with synchronous_commit off a crash loses acknowledged ceilings, and a successor
# could then start below ids already issued. Set per transaction (PgBouncer-safe).
_DURABLE = "durable AS (SELECT set_config('synchronous_commit', 'on', true))"
# The server's history identity: its system identifier (a new cluster: initdb, a restore
# into one) and the timeline it writes WAL on (a new one at every promotion or
# point-in-time recovery, at once, before the first checkpoint), read in the statement
# that claims or renews (behind a pooler or a virtual IP the server can change between
# statements). Both are open to any role; on a standby it fails (recovery in progress).
HISTORY = (
    "((SELECT system_identifier FROM pg_control_system())::text || '/' ||"
    " ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint::text)"
)
# The meta columns of the failover check (docs/leases.md, "A store that failed over"),
# added to a meta table made before them.
FAILOVER_COLUMNS = (
    ("history", "text"), ("quarantine_seen", "text"), ("quarantine_at_ms", "bigint"),
    ("quarantine_until_ms", "bigint"),
)  # fmt: skip


SYNC_NAMES = "current_setting('synchronous_standby_names')"
"""The standbys a commit waits for (empty: none, asynchronous). Any role may read it;
``pg_stat_replication``'s sync_state is hidden from a role without pg_read_all_stats, and
needs no reading: with a standby named, a commit under ``synchronous_commit = on`` (set in
every snowid transaction) waits for its flush, and waits on when none is connected, so a
statement that answered in time was replicated."""


class Sql:
    """Statements for one ``schema.table`` (and its ``_meta`` table); ``sync``: claims and
    renewals are made only while a synchronous standby is named (``replication=sync``)."""

    def __init__(self, schema: str, table: str, *, sync: bool = False) -> None:
        self.sync_check = f" AND {SYNC_NAMES} <> ''" if sync else ""
        self.schema = check_identifier("schema", schema)
        self.meta_name = f"{check_identifier('table', table)}_meta"
        self.table_name = table
        self.table = f'"{schema}"."{table}"'
        self.meta = f'"{schema}"."{table}_meta"'

    def init(self, cur: Any, *, quarantine_ms: int | None, repair_ms: int) -> Initialised:
        """Create what is missing, inside the caller's transaction; what it did.

        A missing meta row means a fresh or wiped store: every ceiling is raised to
        ``now + quarantine_ms`` (unless None: a first deployment the operator vouches
        for), so holders left from a lost earlier incarnation cannot be overtaken. With
        the meta row there, a lease row missing was deleted (set-up writes all of them):
        it is written again with its ceiling at now + ``repair_ms``; and a store of an
        older format is upgraded: every ceiling raised to at least now + ``repair_ms``
        (holders of an older snowid may be alive), then the format recorded.
        """
        cur.execute("SET LOCAL synchronous_commit = on")
        cur.execute("SELECT pg_advisory_xact_lock(%s)", (INIT_LOCK_KEY,))
        cur.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
        cur.execute(
            f"CREATE TABLE IF NOT EXISTS {self.meta} ("
            " id smallint PRIMARY KEY CHECK (id = 1), incarnation uuid NOT NULL,"
            " layout text NOT NULL, created_at timestamptz NOT NULL DEFAULT clock_timestamp(),"
            " format integer)"
        )
        cur.execute(  # a meta table made before formats were recorded gets the column
            "SELECT 1 FROM information_schema.columns WHERE table_schema = %s"
            " AND table_name = %s AND column_name = 'format'",
            (self.schema, self.meta_name),
        )
        if cur.fetchone() is None:
            cur.execute(f"ALTER TABLE {self.meta} ADD COLUMN format integer")
        self._add_failover_columns(cur)
        cur.execute(
            f"CREATE TABLE IF NOT EXISTS {self.table} ("
            f" worker smallint PRIMARY KEY CHECK (worker BETWEEN 0 AND {TWITTER.max_worker}),"
            " owner uuid, epoch bigint NOT NULL DEFAULT 0,"
            " ceiling_ms bigint NOT NULL DEFAULT 0,"
            " expires_at timestamptz NOT NULL DEFAULT '-infinity',"
            " claimed_at timestamptz, renewed_at timestamptz, holder text NOT NULL DEFAULT '',"
            " start_ms bigint, released_ms bigint, released_epoch bigint, released_ceiling bigint)"
        )
        self._add_handover_columns(cur)
        cur.execute(f"SELECT incarnation, format FROM {self.meta} WHERE id = 1")
        row = cur.fetchone()
        if row is not None:
            cur.execute(self.repair, {"first": 0, "last": TWITTER.max_worker, "ms": repair_ms})
            repaired = tuple(sorted(int(r[0]) for r in cur.fetchall()))
            upgraded = row[1] is None or int(row[1]) < STORE_FORMAT
            if upgraded:
                cur.execute(
                    f"UPDATE {self.table} SET ceiling_ms = GREATEST(ceiling_ms, {_NOW_MS} + %s)",
                    (repair_ms,),
                )
                cur.execute(f"UPDATE {self.meta} SET format = %s WHERE id = 1", (STORE_FORMAT,))
            cur.execute(self.adopt_history)
            return Initialised(str(row[0]), False, upgraded, repaired)
        cur.execute(
            f"INSERT INTO {self.table} (worker) SELECT generate_series(0, {TWITTER.max_worker})"
            " ON CONFLICT (worker) DO NOTHING"
        )
        if quarantine_ms is not None:
            cur.execute(
                f"UPDATE {self.table} SET ceiling_ms = GREATEST(ceiling_ms, {_NOW_MS} + %s)",
                (quarantine_ms,),
            )
        incarnation = str(uuid.uuid4())
        cur.execute(
            f"INSERT INTO {self.meta} (id, incarnation, layout, format, history)"
            f" VALUES (1, %s, 'twitter', %s, {HISTORY})",
            (incarnation, STORE_FORMAT),
        )
        return Initialised(incarnation, True)

    # --- failover (docs/leases.md, "A store that failed over") ---------------------------

    def _add_failover_columns(self, cur: Any) -> None:
        for name, kind in FAILOVER_COLUMNS:
            cur.execute(f"ALTER TABLE {self.meta} ADD COLUMN IF NOT EXISTS {name} {kind}")

    @property
    def adopt_history(self) -> str:
        """A store whose history was never recorded (set up by an older snowid) takes the
        server's: nothing tells whether it failed over before."""
        return f"UPDATE {self.meta} SET history = {HISTORY} WHERE id = 1 AND history IS NULL"

    @property
    def history_state(self) -> str:
        """(recorded history, the server's) of the meta row."""
        return f"SELECT history, {HISTORY} FROM {self.meta} WHERE id = 1"

    @property
    def server_history(self) -> str:
        return f"SELECT {HISTORY}"

    @property
    def sync_state(self) -> str:
        return f"SELECT {SYNC_NAMES}"

    @property
    def quarantine(self) -> str:
        """Only while the recorded history is not the server's (checked in this statement,
        the meta row locked, so two claimants quarantine once): every ceiling raised to at
        least max(store-now, the last renewal recorded) + %(ms)s, every lease freed (its
        holder fails at its next renewal on the history check), and the server's history
        recorded with the quarantine. A release mark, where one is kept, is void from here
        on: a claim starts above the raised ceiling. Returns (seen, found, at, until)."""
        return (
            f"WITH {_DURABLE}, now AS (SELECT {_NOW_MS} AS ms), cur AS (SELECT {HISTORY} AS h),"
            f" m AS (SELECT meta.history FROM {self.meta} AS meta, cur WHERE meta.id = 1"
            "  AND meta.history IS DISTINCT FROM cur.h FOR UPDATE OF meta),"
            " base AS (SELECT GREATEST(now.ms, COALESCE((extract(epoch FROM"
            f"  max(l.renewed_at)) * 1000)::bigint, 0)) + %(ms)s AS until FROM {self.table} AS l,"
            "  now GROUP BY now.ms),"
            f" raised AS (UPDATE {self.table} AS l SET ceiling_ms = GREATEST(l.ceiling_ms,"
            "  base.until), expires_at = LEAST(l.expires_at,"
            "  clock_timestamp() - interval '1 millisecond') FROM base, m RETURNING 1)"
            f" UPDATE {self.meta} AS meta SET history = cur.h, quarantine_seen = m.history,"
            "  quarantine_at_ms = now.ms, quarantine_until_ms = base.until"
            " FROM m, cur, now, base, durable WHERE meta.id = 1"
            " RETURNING meta.quarantine_seen, meta.history, meta.quarantine_at_ms,"
            " meta.quarantine_until_ms"
        )

    @property
    def last_quarantine(self) -> str:
        return (
            "SELECT quarantine_seen, history, quarantine_at_ms, quarantine_until_ms"
            f" FROM {self.meta} WHERE id = 1 AND quarantine_until_ms IS NOT NULL"
        )

    def _add_handover_columns(self, cur: Any) -> None:
        """Add the clean hand-over's columns to a table made before them (older snowids
        ignore them; their claims bump the epoch, which voids any mark)."""
        cur.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = %s"
            " AND table_name = %s",
            (self.schema, self.table_name),
        )
        have = {str(row[0]) for row in cur.fetchall()}
        missing = [name for name in HANDOVER_COLUMNS if name not in have]
        if missing:
            cur.execute(
                f"ALTER TABLE {self.table} "
                + ", ".join(f"ADD COLUMN IF NOT EXISTS {name} bigint" for name in missing)
            )

    @property
    def release_mark(self) -> str:
        """The clean release: expire the lease and record the mark %(mark)s (never below
        the grant's start - 1), its epoch and ceiling, in one compare-and-set on (worker,
        owner, epoch); the ceiling untouched. No row: nothing written (taken over, or a
        mark above the ceiling, which no sealed holder can have)."""
        return (
            f"WITH {_DURABLE} UPDATE {self.table}"
            " SET expires_at = clock_timestamp() - interval '1 millisecond',"
            "  released_ms = GREATEST(%(mark)s, start_ms - 1), released_epoch = epoch,"
            "  released_ceiling = ceiling_ms FROM durable"
            " WHERE worker = %(worker)s AND owner = %(owner)s AND epoch = %(epoch)s"
            "  AND start_ms IS NOT NULL AND %(mark)s <= ceiling_ms"
            " RETURNING released_ms"
        )

    @property
    def void_marks(self) -> str:
        return (
            f"WITH {_DURABLE} UPDATE {self.table} SET released_ms = NULL FROM durable"
            " WHERE released_ms IS NOT NULL RETURNING worker"
        )

    @property
    def now(self) -> str:
        return f"SELECT {_NOW_MS}"

    @property
    def incarnation(self) -> str:
        return f"SELECT incarnation::text FROM {self.meta} WHERE id = 1"

    @property
    def meta_state(self) -> str:
        """(incarnation, format) of the meta row; no row: a wiped store. On a meta table
        made before formats (no such column) it fails: UndefinedColumn."""
        return f"SELECT incarnation::text, format FROM {self.meta} WHERE id = 1"

    @property
    def lost_row(self) -> str:
        """After a failed compare-and-set: the store's format and %(worker)s's owner,
        epoch and ceiling (NULLs: no such row)."""
        return (
            f"SELECT m.format, l.owner::text, l.epoch, l.ceiling_ms FROM {self.meta} AS m"
            f" LEFT JOIN {self.table} AS l ON l.worker = %(worker)s WHERE m.id = 1"
        )

    @property
    def claim(self) -> str:
        # Lowest ceiling first: the successor most likely to start at once. The span is
        # added up to bigint's top, never past it: a stored ceiling near 2^63 (a tampered
        # or corrupt row) is claimed unchanged and refused by the claimant as ceiling-ahead
        # (and given back), instead of failing as "bigint out of range". Nothing is claimed
        # on a store of an older format (no row comes back; no format column: an error).
        # The new ceiling is a span above where the grant starts (the mark) and never below
        # the stored one: a claim given back unused and retried raises it once, not a span
        # at each try (which a quarantine's voided marks would expose as the next start).
        return (
            f"WITH {_DURABLE}, now AS (SELECT {_NOW_MS} AS ms),"
            f" meta AS (SELECT incarnation, history, quarantine_until_ms FROM {self.meta}"
            f"  WHERE id = 1 AND format >= {STORE_FORMAT} AND history = {HISTORY}"
            f"{self.sync_check}),"
            f" pick AS (SELECT worker, {_MARKED} AS old_ceiling FROM {self.table}"
            "  WHERE worker BETWEEN %(first)s AND %(last)s AND expires_at < clock_timestamp()"
            f"  ORDER BY {_MARKED}, worker LIMIT 1 FOR UPDATE SKIP LOCKED)"
            f" UPDATE {self.table} AS l SET owner = %(owner)s, epoch = l.epoch + 1,"
            "  expires_at = clock_timestamp() + make_interval(secs => %(ttl)s),"
            "  claimed_at = clock_timestamp(), renewed_at = clock_timestamp(),"
            "  holder = %(holder)s, released_ms = NULL,"
            f"  start_ms = LEAST(pick.old_ceiling, {_BIGINT_MAX - 1}) + 1,"
            "  ceiling_ms = GREATEST(l.ceiling_ms, LEAST(GREATEST(pick.old_ceiling,"
            "   LEAST(%(caller_ms)s, now.ms + %(max_skew)s))::numeric + %(span)s,"
            f"   {_BIGINT_MAX})::bigint)"
            " FROM pick, now, meta, durable WHERE l.worker = pick.worker"
            " RETURNING l.worker, pick.old_ceiling, l.ceiling_ms, l.epoch, now.ms,"
            " meta.incarnation::text, meta.history, meta.quarantine_until_ms"
        )

    @property
    def renew(self) -> str:
        # The proposal is capped by the store's clock: a client far ahead cannot poison w.
        # Nothing is written on a store of an older format (as the claim).
        return (
            f"WITH {_DURABLE}, now AS (SELECT {_NOW_MS} AS ms),"
            f" cur AS (SELECT worker, ceiling_ms AS old_ceiling FROM {self.table}"
            "  WHERE worker = %(worker)s AND owner = %(owner)s AND epoch = %(epoch)s FOR UPDATE)"
            f" UPDATE {self.table} AS l SET renewed_at = clock_timestamp(),"
            "  expires_at = clock_timestamp() + make_interval(secs => %(ttl)s),"
            "  ceiling_ms = GREATEST(l.ceiling_ms,"
            "   LEAST(%(caller_ms)s + %(span)s, now.ms + %(span)s + %(max_skew)s))"
            " FROM cur, now, durable WHERE l.worker = cur.worker"
            f" AND EXISTS (SELECT 1 FROM {self.meta} WHERE id = 1"
            f"  AND incarnation = %(incarnation)s::uuid AND format >= {STORE_FORMAT})"
            f" AND {HISTORY} = %(history)s{self.sync_check}"
            " RETURNING cur.old_ceiling, l.ceiling_ms, now.ms"
        )

    @property
    def repair(self) -> str:
        """Write again the rows of %(first)s..%(last)s found missing (deleted, or the table
        truncated), free, with the ceiling at store-now + %(ms)s; the workers written."""
        return (
            f"WITH {_DURABLE}, now AS (SELECT {_NOW_MS} AS ms)"
            f" INSERT INTO {self.table} (worker, ceiling_ms)"
            " SELECT w, now.ms + %(ms)s"
            " FROM generate_series(%(first)s::int, %(last)s::int) AS w, now, durable"
            " ON CONFLICT (worker) DO NOTHING RETURNING worker"
        )

    @property
    def present(self) -> str:
        """The workers of %(first)s..%(last)s that have a row."""
        return f"SELECT worker FROM {self.table} WHERE worker BETWEEN %(first)s AND %(last)s"

    @property
    def release(self) -> str:
        return (
            f"WITH {_DURABLE} UPDATE {self.table}"
            " SET expires_at = clock_timestamp() - interval '1 millisecond' FROM durable"
            " WHERE worker = %(worker)s AND owner = %(owner)s AND epoch = %(epoch)s"
        )

    @property
    def status(self) -> str:
        return (
            "SELECT worker, expires_at > clock_timestamp(), holder, epoch, ceiling_ms,"
            f" {_MS.format('claimed_at')}, {_MS.format('expires_at')}"
            f" FROM {self.table} WHERE epoch > 0 ORDER BY worker"
        )
