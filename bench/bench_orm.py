"""Benchmark (issue 28 §4): inserting rows through Django and SQLAlchemy with snowid keys
against UUIDv7 keys, on PostgreSQL and MariaDB.

    pip install -e '.[all,bench]'    # [bench] brings uuid-utils
    python bench/bench_orm.py                  # 100,000 rows, 5 alternating rounds, ~3 min
    python bench/bench_orm.py --rounds 7 --rows 100000
    python bench/bench_orm.py --only sqlalchemy --no-mariadb

For each ORM and database, two tables that differ only in their key get ``--rows`` rows
(a key, a 40-character name and an int) in one transaction, each key made by the ORM's
column default as the row is built:

* **Django** ``Model.objects.bulk_create(objects, batch_size=1000)``: ``SnowIdField
  (primary_key=True)`` (its default, ``snowid.django.new_id``: the process-wide generator)
  against ``UUIDField(primary_key=True, default=uuid7)``. The model objects are built
  inside the timed part: that is where the keys are made.
* **SQLAlchemy Core** ``conn.execute(insert(table), rows)`` (batched multi-row INSERTs):
  ``SnowIdType`` with ``default=new_id`` against ``Uuid`` with ``default=uuid7``.

``uuid7`` is ``uuid_utils.compat.uuid7`` (uuid-utils 1.2.0), the library
``bench/bench_keys.py`` uses: RFC 9562 with a counter, as PostgreSQL 18's ``uuidv7()``
and Python 3.14's ``uuid.uuid7()`` make them, and it returns a ``uuid.UUID``, which both
ORMs take as it is. The key columns are what each ORM makes of its field on that
database (printed): ``bigint`` against ``uuid`` on PostgreSQL, and against MariaDB's own
``UUID`` type (16 bytes; Django 5.x and SQLAlchemy 2.0 both use it on MariaDB 10.7+).

Rounds alternate (each starts with the other key, after a garbage collection and a
``TRUNCATE``); each ratio is taken round by round (UUIDv7's time over snowid's: above 1.0
snowid is faster) and given as the median with its spread. Target: snowid >= 1.0x UUIDv7
in wall-clock time, where the database's share counts. The CPU time of this process (the
ORM, the driver, the key's default) is reported beside it: on a busy machine the wall
clock swings by tens of per cent between two back-to-back runs, that CPU time much less. The shared servers on loopback are used
(``--pg`` and ``--mariadb`` take other URLs); Django reaches MariaDB through PyMySQL
standing in for mysqlclient, which is not installed here.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from typing import Any

PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
MARIADB = "mysql+pymysql://root@127.0.0.1:3306/test"
SNOW, UUID7 = "snowid", "UUIDv7"


def timed(run: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and this process's CPU seconds of ``run``."""
    gc.collect()  # neither key pays for the garbage of the other
    start, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - start, time.process_time() - cpu


def rounds_of(
    runs: dict[str, Callable[[], object]], clear: Callable[[str], None], rounds: int
) -> dict[str, list[tuple[float, float]]]:
    """(wall, CPU) seconds of each run, ``rounds`` times, alternating which goes first."""
    seconds: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    names = list(runs)
    for round_no in range(rounds):
        for name in names[round_no % 2 :] + names[: round_no % 2]:
            clear(name)
            seconds[name].append(timed(runs[name]))
    return seconds


def report(title: str, seconds: dict[str, list[tuple[float, float]]], n: int) -> float:
    """Prints the medians and the paired ratios; returns the wall-clock ratio (the
    target's). The CPU ratio is this process's side alone (the ORM, the driver and the
    key's default), which a busy machine disturbs much less than the wall clock."""
    print(title)
    for name, values in seconds.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        print(f"  {name:8s} {n / wall:9,.0f} rows/s (median), {cpu / n * 1e6:5.1f} µs CPU/row")
    found = 0.0
    for what, at in (("wall clock", 0), ("CPU of this process", 1)):
        ratios = [u[at] / s[at] for s, u in zip(seconds[SNOW], seconds[UUID7], strict=True)]
        ratio = statistics.median(ratios)
        verdict = f"  target >= 1.0x: {'PASS' if ratio >= 1.0 else 'FAIL'}" if at == 0 else ""
        print(
            f"  snowid vs UUIDv7, {what}: {ratio:.2f}x [{min(ratios):.2f}-{max(ratios):.2f}]"
            f"{verdict}"
        )
        found = found or ratio
    print(flush=True)
    return found


# --- SQLAlchemy Core -------------------------------------------------------------------


def bench_sqlalchemy(url: str, label: str, n: int, rounds: int) -> float | None:
    from sqlalchemy import Column, Integer, MetaData, String, Table, Uuid, create_engine, insert
    from sqlalchemy import text as sql
    from sqlalchemy.exc import OperationalError
    from uuid_utils.compat import uuid7

    from snowid.sqlalchemy import SnowIdType, new_id

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            conn.execute(sql("SELECT 1"))
    except OperationalError as error:
        print(f"SQLAlchemy, {label}: not reachable ({type(error).__name__}), skipped\n")
        return None
    suffix = uuid.uuid4().hex[:8]
    metadata = MetaData()

    def table(name: str, key: Column[Any]) -> Table:
        return Table(
            f"bench_orm_{name}_{suffix}",
            metadata,
            key,
            Column("name", String(40), nullable=False),
            Column("amount", Integer, nullable=False),
        )

    tables = {
        SNOW: table("snow", Column("id", SnowIdType, primary_key=True, default=new_id)),
        UUID7: table("uuid7", Column("id", Uuid, primary_key=True, default=uuid7)),
    }
    metadata.create_all(engine)
    rows = [{"name": f"row {i:034d}", "amount": i} for i in range(n)]

    def insert_all(name: str) -> Callable[[], None]:
        def run() -> None:
            with engine.begin() as conn:
                conn.execute(insert(tables[name]), rows)

        return run

    def clear(name: str) -> None:
        with engine.begin() as conn:
            conn.execute(sql(f"TRUNCATE TABLE {tables[name].name}"))

    try:
        types = {name: t.c.id.type.compile(engine.dialect) for name, t in tables.items()}
        seconds = rounds_of({name: insert_all(name) for name in tables}, clear, rounds)
        return report(
            f"SQLAlchemy Core, {label}: insert {n:,} rows, median of {rounds} "
            f"(keys: {types[SNOW]} vs {types[UUID7]})",
            seconds,
            n,
        )
    finally:
        metadata.drop_all(engine)
        engine.dispose()


# --- Django ----------------------------------------------------------------------------


def django_setup(lease: str, pg: str, mariadb: str) -> list[str]:
    """Configure Django with a database per reachable server; returns their aliases."""
    import socket
    from urllib.parse import urlsplit

    import django
    from django.conf import settings

    databases: dict[str, dict[str, Any]] = {}
    for alias, url, engine in (
        ("postgresql", pg, "django.db.backends.postgresql"),
        ("mariadb", mariadb, "django.db.backends.mysql"),
    ):
        if not url:
            continue
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 0
        try:
            socket.create_connection((host, port), timeout=2).close()
        except OSError:
            print(f"Django, {alias}: not reachable, skipped\n")
            continue
        databases[alias] = {
            "ENGINE": engine,
            "NAME": parts.path.lstrip("/"),
            "USER": parts.username or "",
            "HOST": host,
            "PORT": str(port),
        }
    if "mariadb" in databases:
        import pymysql

        pymysql.version_info = (2, 2, 7, "final", 0)  # Django asks mysqlclient >= 2.2.1
        pymysql.install_as_MySQLdb()
    settings.configure(
        DATABASES={"default": {"ENGINE": "django.db.backends.dummy"}, **databases},
        INSTALLED_APPS=["django.contrib.contenttypes"],
        USE_TZ=True,
        SNOWID_LEASE=lease,
        DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
    )
    django.setup()
    return list(databases)


def bench_django(alias: str, n: int, rounds: int) -> float:
    from django.db import connections, models, transaction
    from uuid_utils.compat import uuid7

    from snowid.django import SnowIdField

    suffix = uuid.uuid4().hex[:8]

    class BySnowId(models.Model):  # type: ignore[misc]  # Django has no types
        id = SnowIdField(primary_key=True)
        name = models.CharField(max_length=40)
        amount = models.IntegerField()

        class Meta:
            app_label = f"bench_{alias}"
            db_table = f"bench_orm_dj_snow_{alias}_{suffix}"

    class ByUuid7(models.Model):  # type: ignore[misc]
        id = models.UUIDField(primary_key=True, default=uuid7)
        name = models.CharField(max_length=40)
        amount = models.IntegerField()

        class Meta:
            app_label = f"bench_{alias}"
            db_table = f"bench_orm_dj_uuid7_{alias}_{suffix}"

    contenders: dict[str, type[models.Model]] = {SNOW: BySnowId, UUID7: ByUuid7}
    connection = connections[alias]
    with connection.schema_editor() as editor:
        for model in contenders.values():
            editor.create_model(model)
    names = [f"row {i:034d}" for i in range(n)]

    def insert_all(name: str) -> Callable[[], None]:
        model = contenders[name]

        def run() -> None:
            with transaction.atomic(using=alias):
                objects = [model(name=names[i], amount=i) for i in range(n)]
                model.objects.using(alias).bulk_create(objects, batch_size=1000)

        return run

    def clear(name: str) -> None:
        with connection.cursor() as cursor:
            cursor.execute(f"TRUNCATE TABLE {contenders[name]._meta.db_table}")

    try:
        types = {name: model._meta.pk.db_type(connection) for name, model in contenders.items()}
        seconds = rounds_of({name: insert_all(name) for name in contenders}, clear, rounds)
        count = contenders[SNOW].objects.using(alias).count()
        assert count == n, f"{count} rows, not {n}"
        return report(
            f"Django bulk_create, {alias}: {n:,} rows, median of {rounds} "
            f"(keys: {types[SNOW]} vs {types[UUID7]})",
            seconds,
            n,
        )
    finally:
        with connection.schema_editor() as editor:
            for model in contenders.values():
                editor.delete_model(model)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (>= 5)")
    parser.add_argument("--only", choices=["django", "sqlalchemy"], default=None)
    parser.add_argument("--pg", default=PG, help="SQLAlchemy URL of a PostgreSQL database")
    parser.add_argument("--mariadb", default=MARIADB, help="... and of a MariaDB one")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-mariadb", action="store_true")
    args = parser.parse_args()
    pg = "" if args.no_postgres else args.pg
    mariadb = "" if args.no_mariadb else args.mariadb
    import snowid

    ratios: dict[str, float | None] = {}
    with tempfile.TemporaryDirectory() as tmp:
        lease = f"file://{tmp}/slots"
        snowid.configure(lease=lease)
        snowid.warm_up()  # the claim is not part of any insert
        print(f"{args.rows:,} rows, {args.rounds} alternating rounds\n", flush=True)
        if args.only != "django":
            for url, label in ((pg, "PostgreSQL"), (mariadb, "MariaDB")):
                if url:
                    ratios[f"SQLAlchemy Core, {label}"] = bench_sqlalchemy(
                        url, label, args.rows, args.rounds
                    )
        if args.only != "sqlalchemy":
            for alias in django_setup(lease, pg, mariadb):
                ratios[f"Django bulk_create, {alias}"] = bench_django(alias, args.rows, args.rounds)
        snowid.close()
    print("| path | snowid / UUIDv7 | target >= 1.0x |\n|---|---:|---|")
    for name, ratio in ratios.items():
        shown = "skipped" if ratio is None else f"{ratio:.2f}x"
        verdict = "" if ratio is None else ("met" if ratio >= 1.0 else "**missed**")
        print(f"| {name} | {shown} | {verdict} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
