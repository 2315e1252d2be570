"""Key benchmark: what a primary key's source does to PostgreSQL (and MariaDB), measured
from real writer processes.

    python bench/bench_keys.py                    # 200,000 rows per key source, ~3 min
    python bench/bench_keys.py --rows 2000000     # the run in docs/keys.md
    python bench/bench_keys.py --only client-16,uuid7 --no-mariadb

It starts its own PostgreSQL cluster (``fsync`` off: the figures compare key handling,
not disks; no checkpoint during a run) and, unless ``--no-mariadb``, its own MariaDB
(InnoDB, the primary key is the clustered index), and a ``snowid serve`` for the
client sources, all on loopback. For each key source a fresh table
``(id KEY PRIMARY KEY, payload text)`` with a 32-byte payload gets ``--rows`` rows from
real writer processes (forked), each with its own connection, 100 rows per transaction,
each key made just before its insert and used in the order its writer got it. The
writers share one counter of rows to insert, so a faster writer inserts more rows.

Key sources (``--only`` takes these names):

* ``default-1``: ``snowid.next_id()`` (the process-wide default) in one process;
* ``default-8``: 8 processes, each ``snowid.next_id()`` with its own identity (file slots);
* ``client-16``: 16 processes of ``snowid.client.Client`` (blocks of 4,096 ids, the
  default) on one ``snowid serve``, at equal rates;
* ``client-16-uneven``: the same, 8 of them at half the rate of the other 8 (each slow
  writer sleeps as long as its last transaction took): 2:1;
* ``bigserial``: 8 processes, the database's sequence (``BIGSERIAL``/``AUTO_INCREMENT``);
* ``uuid4``: 8 processes, ``uuid.uuid4()``;
* ``uuid7``: 8 processes, ``uuid_utils.compat.uuid7()`` (uuid-utils 1.2.0: RFC 9562 with
  a counter, so one process's UUIDs are increasing and carry the clock's millisecond);
* ``uuid7-1``: the same in one process: one monotonic UUIDv7 sequence, the reference the
  issue's 16-client target is held to (what PostgreSQL 18's ``uuidv7()`` gives one session).

Measured: insert throughput (rows / wall time from the start signal to the last commit),
WAL bytes (``pg_current_wal_insert_lsn`` before and after) or MariaDB's redo log bytes
(``Innodb_os_log_written``), the primary key's size and leaf density (``pgstatindex``;
on MariaDB the table's ``DATA_LENGTH``, the clustered index, and its pages' average fill:
the bytes of records over 16 KiB, summed over its pages in ``INNODB_BUFFER_PAGE``; the
buffer pool holds the whole table at 10 M rows), and the buffers a time-window scan
touches: the rows keyed in the middle 10 % of the time the table's keys span, per 1,000
rows found (PostgreSQL: ``EXPLAIN (ANALYZE, BUFFERS)``; MariaDB: the query's
``Innodb_buffer_pool_read_requests``). UUIDv4 has no time in its key, so no key range
serves such a query.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing as mp
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # tests.support.servers starts the databases
    sys.path.insert(0, str(ROOT))

BATCH = 100  # rows per transaction
PAYLOAD = "p" * 32
HOST = "127.0.0.1"


@dataclass(frozen=True)
class Source:
    name: str
    kind: str  # snowid, client, bigserial, uuid4, uuid7
    writers: int
    uneven: bool = False
    what: str = ""
    batch: int = 4096  # client sources: the Client's batch
    max_age_ms: int | None = None  # client sources: time-bounded batches


SOURCES = [
    Source("default-1", "snowid", 1, what="snowid.next_id(), 1 process"),
    Source("default-8", "snowid", 8, what="snowid.next_id(), 8 processes, one identity each"),
    Source("client-16", "client", 16, what="16 snowid.client processes (blocks of 4,096), equal"),
    Source(
        "client-16-uneven",
        "client",
        16,
        uneven=True,
        what="16 snowid.client processes (blocks of 4,096), 2:1",
    ),
    Source(
        "client-16-uneven-aged",
        "client",
        16,
        uneven=True,
        max_age_ms=5,
        what="16 snowid.client processes, 2:1, batches used for 5 ms (max_age_ms=5)",
    ),
    Source(
        "client-16-uneven-small",
        "client",
        16,
        uneven=True,
        batch=128,
        what="16 snowid.client processes, 2:1, batches of 128 (no time bound)",
    ),
    Source("bigserial", "bigserial", 8, what="BIGSERIAL / AUTO_INCREMENT, 8 processes"),
    Source("uuid4", "uuid4", 8, what="UUIDv4, 8 processes"),
    Source("uuid7", "uuid7", 8, what="UUIDv7 (uuid-utils, counter), 8 processes"),
    Source("uuid7-1", "uuid7", 1, what="UUIDv7 (uuid-utils, counter), 1 process"),
]


@dataclass
class Result:
    source: Source
    db: str
    rows: int = 0
    seconds: float = 0.0
    log_bytes: int = 0
    key_bytes: int = 0
    table_bytes: int = 0
    density: float = 0.0
    fragmentation: float | None = None
    scan_rows: int | None = None
    scan_buffers: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def row(self) -> str:
        scan = (
            f"{self.scan_buffers / self.scan_rows * 1000:,.1f}"
            if self.scan_buffers is not None and self.scan_rows
            else "n/a"
        )
        return (
            f"| {self.source.what} | {self.rows / self.seconds:,.0f} | "
            f"{self.log_bytes / 2**20:,.1f} | {self.key_bytes / 2**20:,.1f} | "
            f"{self.table_bytes / 2**20:,.1f} | {self.density:.1f} % | {scan} |"
        )


# --- key makers (in the writer processes) ---------------------------------------------


def key_maker(job: Job) -> tuple[Callable[[], Any] | None, Any]:
    """What a writer calls for each key (None: the database makes it), and the client."""
    kind, source = job.source.kind, job.source
    if kind == "snowid":
        import snowid

        snowid.configure(lease=job.lease)
        snowid.warm_up()  # the claim is not part of the insert time
        next_id = snowid.next_id
        return (lambda: int(next_id())), None
    if kind == "client":
        from snowid.client import Client

        client = Client(job.service, batch=source.batch, max_age_ms=source.max_age_ms)
        client.next_id()  # the first batch is not part of the insert time
        return client.next_id, client
    if kind == "uuid4":
        return uuid.uuid4, None
    if kind == "uuid7":
        from uuid_utils.compat import uuid7

        return uuid7, None
    return None, None


@dataclass(frozen=True)
class Job:
    """What every writer of one run shares (handed over by fork, never pickled)."""

    db: str
    url: str
    table: str
    source: Source
    total: int
    claimed: Synchronized[int]
    go: Any
    lease: str
    service: str
    fetched: Synchronized[int]  # client sources: ids the clients received
    dropped: Synchronized[int]  # ... and dropped for their age


def writer(job: Job, slot: int) -> None:
    db, source, claimed, total = job.db, job.source, job.claimed, job.total
    make, client = key_maker(job)
    if make is not None and db == "mariadb" and source.kind.startswith("uuid"):
        made = make
        make = lambda: str(made())  # noqa: E731 - PyMySQL sends no uuid.UUID
    slow = source.uneven and slot % 2 == 1
    if make is None:
        cols, one = "(payload)", "(%s)"
    else:
        cols, one = "(id, payload)", "(%s, %s)"
    statement = f"INSERT INTO {job.table} {cols} VALUES " + ", ".join([one] * BATCH)
    conn, commit, execute = connect(db, job.url)
    job.go.wait()
    while True:
        with claimed.get_lock():
            start = claimed.value
            if start >= total:
                break
            claimed.value = start + BATCH
        began = time.perf_counter()
        params: list[Any] = []
        if make is None:
            params = [PAYLOAD] * BATCH
        else:
            for _ in range(BATCH):
                params += (make(), PAYLOAD)
        execute(statement, params)
        commit()
        if slow:
            time.sleep(time.perf_counter() - began)
    conn.close()
    if client is not None:
        with job.fetched.get_lock():
            job.fetched.value += client.fetched
        with job.dropped.get_lock():
            job.dropped.value += client.dropped
        client.close()


def connect(db: str, url: str) -> tuple[Any, Callable[[], None], Callable[[str, Any], None]]:
    if db == "postgresql":
        import psycopg

        conn = psycopg.connect(url)

        def execute(statement: str, params: Any) -> None:
            conn.execute(statement, params)

        return conn, conn.commit, execute
    import pymysql

    port = int(url.rsplit(":", 1)[1].split("/", maxsplit=1)[0])
    maria = pymysql.connect(host=HOST, port=port, user="root", database="bench", autocommit=False)
    cursor = maria.cursor()
    return maria, maria.commit, cursor.execute


# --- the databases --------------------------------------------------------------------


class Postgres:
    name = "postgresql"

    def __init__(self) -> None:
        from tests.support.servers import PgCluster, binary

        initdb = binary("initdb")
        if initdb is None:
            raise SystemExit("initdb not found (PATH or /usr/lib/postgresql/*/bin)")
        self.cluster = PgCluster(
            Path(initdb).resolve().parent,
            {
                "fsync": "off", "synchronous_commit": "off", "full_page_writes": "on",
                "shared_buffers": "256MB", "max_connections": "40", "max_wal_size": "16GB",
                "checkpoint_timeout": "1h", "autovacuum": "off",
            },
        )  # fmt: skip
        self.cluster.start()
        self.url = self.cluster.url()
        self.sql("CREATE EXTENSION IF NOT EXISTS pgstattuple")

    def sql(self, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
        return self.cluster.sql(statement, params)

    def create(self, table: str, kind: str) -> None:
        key = {"bigserial": "bigserial", "uuid4": "uuid", "uuid7": "uuid"}.get(kind, "bigint")
        self.sql(f"CREATE TABLE {table} (id {key} PRIMARY KEY, payload text NOT NULL)")
        self.sql("CHECKPOINT")

    def log_position(self) -> int:
        return int(self.sql("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn")[0][0])

    def measure(self, table: str, result: Result, window: tuple[Any, Any] | None) -> None:
        self.sql(f"VACUUM ANALYZE {table}")
        index = f"{table}_pkey"
        result.key_bytes = self.sql(f"SELECT pg_relation_size('{index}')")[0][0]
        result.table_bytes = self.sql(f"SELECT pg_relation_size('{table}')")[0][0]
        density, fragmentation, leaves = self.sql(
            f"SELECT avg_leaf_density, leaf_fragmentation, leaf_pages FROM pgstatindex('{index}')"
        )[0]
        result.density, result.fragmentation = float(density), float(fragmentation)
        result.extra["leaf_pages"] = leaves
        if window is None:
            return
        # The same query warm twice: the buffers counted are the pages it touches, hit or read.
        query = (
            "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "
            f"SELECT sum(length(payload)) FROM {table} WHERE id BETWEEN %s AND %s"
        )
        self.sql(query, window)
        plan = self.sql(query, window)[0][0]
        top = (plan if isinstance(plan, list) else json.loads(plan))[0]["Plan"]
        result.extra["scan"] = (
            top["Plans"][0]["Node Type"] if top.get("Plans") else top["Node Type"]
        )
        result.scan_buffers = int(top["Shared Hit Blocks"]) + int(top["Shared Read Blocks"])
        result.scan_rows = rows_of(top)

    def drop(self, table: str) -> None:
        self.sql(f"DROP TABLE IF EXISTS {table}")

    def close(self) -> None:
        self.cluster.close()


def rows_of(node: dict[str, Any]) -> int:
    """Rows the scan under the aggregate returned: a parallel node reports rows per loop,
    so its rows are times its loops (the leader and each worker)."""
    while node.get("Plans") and node["Node Type"] in {
        "Aggregate",
        "Gather",
        "Finalize Aggregate",
        "Partial Aggregate",
        "Gather Merge",
    }:
        node = node["Plans"][0]
    return int(node["Actual Rows"]) * int(node.get("Actual Loops", 1))


class Maria:
    name = "mariadb"

    def __init__(self) -> None:
        from tests.support.servers import MariaServer, binary

        server, install = binary("mariadbd"), binary("mariadb-install-db")
        if server is None or install is None:
            raise SystemExit("mariadbd not found: --no-mariadb")
        self.server = MariaServer(
            server,
            install,
            {
                "innodb-buffer-pool-size": "1536M", "innodb-log-file-size": "1G",
                "innodb-flush-log-at-trx-commit": "0", "innodb-doublewrite": "0",
                "max-connections": "60",
            },
            database="bench",
        )  # fmt: skip
        self.server.start()
        self.url = self.server.url()

    def sql(self, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
        return self.server.sql(statement, params)

    def create(self, table: str, kind: str) -> None:
        key = {
            "bigserial": "BIGINT AUTO_INCREMENT",
            "uuid4": "UUID",
            "uuid7": "UUID",
        }.get(kind, "BIGINT")
        self.sql(
            f"CREATE TABLE {table} (id {key} PRIMARY KEY, payload VARCHAR(32) NOT NULL)"
            " ENGINE=InnoDB"
        )

    def log_position(self) -> int:
        return int(self.sql("SHOW GLOBAL STATUS LIKE 'Innodb_os_log_written'")[0][1])

    def read_requests(self) -> int:
        return int(self.sql("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_read_requests'")[0][1])

    def measure(self, table: str, result: Result, window: tuple[Any, Any] | None) -> None:
        self.sql(f"ANALYZE TABLE {table}")
        if window is not None:
            # EXPLAIN ANALYZE has no page counts: the pages the query asks the buffer pool
            # for (Innodb_buffer_pool_read_requests, global, on this server of the bench's
            # own that nothing else uses), the same query warm twice.
            low, high = (str(k) if isinstance(k, uuid.UUID) else k for k in window)
            query = f"SELECT sum(length(payload)), count(*) FROM {table} WHERE id BETWEEN %s AND %s"
            self.sql(query, (low, high))
            before = self.read_requests()
            result.scan_rows = int(self.sql(query, (low, high))[0][1])
            result.scan_buffers = self.read_requests() - before
        rows, length, secondary = self.sql(
            "SELECT TABLE_ROWS, DATA_LENGTH, INDEX_LENGTH FROM information_schema.TABLES"
            " WHERE TABLE_SCHEMA = 'bench' AND TABLE_NAME = %s",
            (table,),
        )[0]
        pages = int(
            self.sql(
                "SELECT count(*) FROM information_schema.INNODB_BUFFER_PAGE"
                " WHERE TABLE_NAME = %s AND PAGE_TYPE = 'INDEX'",
                (f"`bench`.`{table}`",),
            )[0][0]
        )
        fill = self.sql(
            "SELECT COALESCE(SUM(DATA_SIZE), 0), COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE"
            " WHERE TABLE_NAME = %s AND PAGE_TYPE = 'INDEX' AND NUMBER_RECORDS > 0",
            (f"`bench`.`{table}`",),
        )[0]
        result.key_bytes = result.table_bytes = int(length)  # the clustered index is the table
        result.density = 100.0 * int(fill[0]) / (int(fill[1]) * 16384) if fill[1] else 0.0
        result.extra.update(rows=int(rows), pages_cached=pages, secondary=int(secondary))

    def drop(self, table: str) -> None:
        self.sql(f"DROP TABLE IF EXISTS {table}")

    def close(self) -> None:
        self.server.close()


# --- a run ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def id_service() -> Iterator[str]:
    """A ``snowid serve`` with one fixed identity, blocks of up to 4,096 ids."""
    port = free_port()
    command = [sys.executable, "-m", "snowid", "serve", "--host", HOST, "--port", str(port)]
    command += ["--lease", "static://1/1", "--max-count", "4096"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection((HOST, port), timeout=0.5):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("snowid serve did not start") from None
                time.sleep(0.05)
        yield f"http://{HOST}:{port}"
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def window_of(kind: str, low: Any, high: Any) -> tuple[Any, Any] | None:
    """The key range of the rows keyed in the middle 10 % of the time the table's keys
    span (``low`` and ``high``: its smallest and largest key), or for a sequence the
    middle 10 % of its numbers. UUIDv4 carries no time: None."""
    if kind == "uuid4" or low is None:
        return None
    if kind == "bigserial":
        span = int(high) - int(low)
        return int(low) + span * 45 // 100, int(low) + span * 55 // 100
    if kind == "uuid7":
        began_ms, ended_ms = uuid.UUID(str(low)).int >> 80, uuid.UUID(str(high)).int >> 80
    else:
        from snowid import SnowId

        began_ms, ended_ms = SnowId(int(low)).timestamp, SnowId(int(high)).timestamp
    span = ended_ms - began_ms
    lo_ms, hi_ms = began_ms + span * 45 // 100, began_ms + span * 55 // 100
    if kind == "uuid7":
        return uuid.UUID(int=lo_ms << 80), uuid.UUID(int=((hi_ms + 1) << 80) - 1)
    from snowid import SnowId

    return int(SnowId.first_at(lo_ms)), int(SnowId.last_at(hi_ms))


def run(db: Any, source: Source, rows: int, lease: str, service: str) -> Result:
    table = f"keys_{source.name.replace('-', '_')}"
    db.drop(table)
    db.create(table, source.kind)
    ctx = mp.get_context("fork")
    claimed = ctx.Value("q", 0)
    go = ctx.Event()
    fetched, dropped = ctx.Value("q", 0), ctx.Value("q", 0)
    job = Job(db.name, db.url, table, source, rows, claimed, go, lease, service, fetched, dropped)
    procs = [ctx.Process(target=writer, args=(job, slot)) for slot in range(source.writers)]
    for proc in procs:
        proc.start()
    time.sleep(2.0)  # connections open, identities claimed, first blocks fetched
    before = db.log_position()
    started = time.perf_counter()
    go.set()
    for proc in procs:
        proc.join()
    seconds = time.perf_counter() - started
    if any(proc.exitcode for proc in procs):
        raise RuntimeError(f"{source.name}: a writer failed")
    result = Result(source, db.name, rows=rows, seconds=seconds)
    result.log_bytes = db.log_position() - before
    if source.kind == "client":
        result.extra["dropped"] = f"{dropped.value / max(fetched.value, 1):.1%}"
    low, high = db.sql(  # PostgreSQL 15 has no min(uuid)
        f"SELECT (SELECT id FROM {table} ORDER BY id LIMIT 1),"
        f" (SELECT id FROM {table} ORDER BY id DESC LIMIT 1)"
    )[0]
    db.measure(table, result, window_of(source.kind, low, high))
    if not os.environ.get("BENCH_KEYS_KEEP"):
        db.drop(table)
    return result


HEAD = (
    "| key source | rows/s | {log} MiB | primary key MiB | table MiB | leaf density | "
    "buffers per 1,000 rows of a time window |\n|---|---:|---:|---:|---:|---:|---:|"
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000, help="rows per key source")
    parser.add_argument(
        "--only", default="", help="comma-separated source names, run in the order given"
    )
    parser.add_argument("--no-mariadb", action="store_true")
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    rows = max(BATCH, args.rows // BATCH * BATCH)
    by_name = {source.name: source for source in SOURCES}
    wanted = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in by_name]
    if unknown:
        parser.error(f"--only: no source {', '.join(unknown)}; the sources: {', '.join(by_name)}")
    chosen = [by_name[name] for name in wanted] or list(SOURCES)
    databases: list[Callable[[], Any]] = []
    if not args.no_postgres:
        databases.append(Postgres)
    if not args.no_mariadb:
        databases.append(Maria)
    print(f"{rows:,} rows per source, {BATCH} per transaction; {os.cpu_count()} CPUs", flush=True)
    with tempfile.TemporaryDirectory() as tmp, id_service() as service:
        lease = f"file://{tmp}/slots"
        for start in databases:
            db = start()
            try:
                print(f"\n{db.name}\n")
                print(HEAD.format(log="WAL" if db.name == "postgresql" else "redo log"))
                for source in chosen:
                    load = os.getloadavg()[0]
                    result = run(db, source, rows, lease, service)
                    print(result.row(), flush=True)
                    print(
                        f"<!-- {source.name}: leaf fragmentation {result.fragmentation}, "
                        f"window rows {result.scan_rows}, {result.extra}, load average"
                        f" {load:.1f} -> {os.getloadavg()[0]:.1f} -->",
                        flush=True,
                    )
            finally:
                db.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
