"""Benchmark: Snowflake keys through SQLAlchemy Core and pydantic, against uuid4 and int keys.

    pip install -e '.[all]'
    python bench/bench_integrations.py              # ~2 min: 100,000 rows / models, 3 rounds
    python bench/bench_integrations.py --quick      # ~15 s: 10,000, 1 round (noisy)
    python bench/bench_integrations.py --no-sql     # pydantic only

1. Inserting N rows (one transaction, ``conn.execute(insert(table), rows)``, so SQLAlchemy
   sends batched multi-row INSERTs) into three tables that differ only in their key:
   ``SnowIdType`` with ``default=new_id`` (the process-wide generator, file slots), ``Uuid``
   with a client-side ``uuid.uuid4`` default, and a database-made ``BIGSERIAL`` /
   ``AUTO_INCREMENT``. On PostgreSQL (psycopg 3) and MariaDB (PyMySQL), both on loopback.
   Target: snowid >= 1.0x uuid4. The database-made key is reported for scale (expected
   faster: no Python call per row).
2. pydantic: validating and dumping N five-field models keyed by ``SnowId``, ``uuid.UUID``
   and ``int``, from Python dicts (ids as strings, as decoded JSON has them; the int key as
   a number) to ``model_dump(mode="json")``, and from a JSON document to JSON
   (``TypeAdapter(list[Model])``). Target: SnowId >= 1.0x UUID.

Rounds are interleaved (each starts with another contender, after a garbage collection;
pydantic has one uncounted warm-up round) and the median of each contender is reported, as
ratios in one run.
The SQL runs are timed by the wall clock (the database's time counts); the pydantic runs,
pure CPU in this thread, by this process's CPU time, which other load on the machine
disturbs much less.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import tempfile
import uuid
from collections.abc import Callable
from time import perf_counter, process_time
from typing import Any

import snowid

PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
MARIADB = "mysql+pymysql://root@127.0.0.1:3306/test"


def timed(run: Callable[[], object], clock: Callable[[], float] = perf_counter) -> float:
    gc.collect()  # no contender pays for the garbage of the one before
    start = clock()
    run()
    return clock() - start


def rotated(names: list[str], round_no: int) -> list[str]:
    """Each round starts with another contender: none is always first (or always last)."""
    k = round_no % len(names)
    return names[k:] + names[:k]


def report(
    title: str, results: dict[str, list[float]], n: int, *, base: str, target: str, scale: str
) -> None:
    """Per second of each contender (median of rounds), its ratio to ``base`` (the target
    is >= 1.0x), and the target's ratio to ``scale`` (for scale: no target)."""
    medians = {name: statistics.median(values) for name, values in results.items()}
    print(title)
    for name, seconds in medians.items():
        ratio = medians[base] / seconds
        verdict = ""
        if name == target:
            verdict = "  PASS" if ratio >= 1.0 else "  FAIL"
        print(f"  {name:34s} {n / seconds:11,.0f} /s   {ratio:5.2f}x {base}{verdict}")
    print(f"  {target} vs {scale}: {medians[scale] / medians[target]:.2f}x\n")


# --- SQLAlchemy Core -------------------------------------------------------------------


def bench_sql(url: str, label: str, n: int, rounds: int) -> None:
    from sqlalchemy import (
        BigInteger,
        Column,
        Integer,
        MetaData,
        String,
        Table,
        Uuid,
        create_engine,
        insert,
        text,
    )
    from sqlalchemy.exc import OperationalError

    from snowid.sqlalchemy import SnowIdType, new_id

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except OperationalError as error:
        print(f"{label}: not reachable ({error.__class__.__name__}), skipped\n")
        return
    suffix = uuid.uuid4().hex[:8]
    metadata = MetaData()

    def payload(name: str, key: Column[Any]) -> Table:
        return Table(
            f"bench_{name}_{suffix}",
            metadata,
            key,
            Column("name", String(40), nullable=False),
            Column("amount", Integer, nullable=False),
        )

    tables = {
        "SnowIdType, default=new_id": payload(
            "snowid", Column("id", SnowIdType, primary_key=True, default=new_id)
        ),
        "Uuid, default=uuid.uuid4": payload(
            "uuid", Column("id", Uuid, primary_key=True, default=uuid.uuid4)
        ),
        "BIGSERIAL / AUTO_INCREMENT": payload(
            "serial", Column("id", BigInteger, primary_key=True, autoincrement=True)
        ),
    }
    metadata.create_all(engine)
    rows = [{"name": f"row {i}", "amount": i} for i in range(n)]
    results: dict[str, list[float]] = {name: [] for name in tables}
    try:
        for round_no in range(rounds):
            for name in rotated(list(tables), round_no):
                table = tables[name]
                with engine.begin() as conn:
                    conn.execute(text(f"TRUNCATE TABLE {table.name}"))

                def run(table: Table = table) -> None:
                    with engine.begin() as conn:
                        conn.execute(insert(table), rows)

                results[name].append(timed(run))
        report(
            f"{label}: insert {n:,} rows, SQLAlchemy Core (median of {rounds})",
            results,
            n,
            base="Uuid, default=uuid.uuid4",
            target="SnowIdType, default=new_id",
            scale="BIGSERIAL / AUTO_INCREMENT",
        )
    finally:
        metadata.drop_all(engine)
        engine.dispose()


# --- pydantic --------------------------------------------------------------------------


def bench_pydantic(n: int, rounds: int) -> None:
    from pydantic import BaseModel, TypeAdapter

    from snowid import SnowId

    class BySnowId(BaseModel):
        id: SnowId
        name: str
        amount: int
        active: bool
        tag: str

    class ByUuid(BaseModel):
        id: uuid.UUID
        name: str
        amount: int
        active: bool
        tag: str

    class ByInt(BaseModel):
        id: int
        name: str
        amount: int
        active: bool
        tag: str

    def rows(make_id: Callable[[], object]) -> list[dict[str, object]]:
        return [
            {"id": make_id(), "name": f"n{i}", "amount": i, "active": i % 2 == 0, "tag": "t"}
            for i in range(n)
        ]

    ids = snowid.next_ids(n)
    it = iter(ids)
    counter = iter(range(1, n + 1))
    inputs: dict[str, tuple[type[BaseModel], list[dict[str, object]]]] = {
        "SnowId (decimal strings)": (BySnowId, rows(lambda: str(next(it)))),
        "uuid.UUID (strings)": (ByUuid, rows(lambda: str(uuid.uuid4()))),
        "int (numbers)": (ByInt, rows(lambda: next(counter))),
    }
    dict_results: dict[str, list[float]] = {name: [] for name in inputs}
    json_results: dict[str, list[float]] = {name: [] for name in inputs}
    blobs = {name: json.dumps(data).encode() for name, (_, data) in inputs.items()}
    adapters = {name: TypeAdapter(list[model]) for name, (model, _) in inputs.items()}  # type: ignore[valid-type]
    for round_no in range(-1, rounds):  # round -1 warms up and is not counted
        for name in rotated(list(inputs), round_no):
            model, data = inputs[name]

            def from_dicts(model: type[BaseModel] = model, data: list[Any] = data) -> None:
                validate = model.model_validate
                for item in data:
                    validate(item).model_dump(mode="json")

            spent = timed(from_dicts, process_time)
            if round_no >= 0:
                dict_results[name].append(spent)

            def from_json(name: str = name) -> None:
                adapter = adapters[name]
                adapter.dump_json(adapter.validate_json(blobs[name]))

            spent = timed(from_json, process_time)
            if round_no >= 0:
                json_results[name].append(spent)
    report(
        f"pydantic: validate + model_dump(mode='json'), {n:,} models of 5 fields, one by one",
        dict_results,
        n,
        base="uuid.UUID (strings)",
        target="SnowId (decimal strings)",
        scale="int (numbers)",
    )
    report(
        f"pydantic: validate_json + dump_json of a list of {n:,} models (TypeAdapter)",
        json_results,
        n,
        base="uuid.UUID (strings)",
        target="SnowId (decimal strings)",
        scale="int (numbers)",
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-sql", action="store_true")
    args = parser.parse_args()
    n, rounds = (10_000, 1) if args.quick else (100_000, 3)
    snowid.configure(lease=f"file://{tempfile.mkdtemp(prefix='snowid-bench-')}")
    snowid.next_id()  # claim the identity outside the timed runs
    if not args.no_sql:
        bench_sql(PG, "PostgreSQL (psycopg 3)", n, rounds)
        bench_sql(MARIADB, "MariaDB (PyMySQL)", n, rounds)
    bench_pydantic(n, rounds)


if __name__ == "__main__":
    main()
