"""Benchmark: Snowflake keys through SQLAlchemy Core and pydantic, against uuid4 and int keys.

    pip install -e '.[all,bench]'    # [bench] brings python-ulid
    python bench/bench_integrations.py              # ~2 min: 100,000 rows / models, 3 rounds
    python bench/bench_integrations.py --quick      # ~15 s: 10,000, 1 round (noisy)
    python bench/bench_integrations.py --no-sql     # pydantic only (5 rounds; --rounds N)

1. Inserting N rows (one transaction, ``conn.execute(insert(table), rows)``, so SQLAlchemy
   sends batched multi-row INSERTs) into three tables that differ only in their key:
   ``SnowIdType`` with ``default=new_id`` (the process-wide generator, file slots), ``Uuid``
   with a client-side ``uuid.uuid4`` default, and a database-made ``BIGSERIAL`` /
   ``AUTO_INCREMENT``. On PostgreSQL (psycopg 3) and MariaDB (PyMySQL), both on loopback.
   Target: snowid >= 1.0x uuid4. The database-made key is reported for scale (expected
   faster: no Python call per row).
2. pydantic: validating and dumping N five-field models keyed by ``SnowId``, ``uuid.UUID``,
   python-ulid's ``ULID`` and ``int``, from Python dicts (ids as strings, as decoded JSON has
   them; the int key as a number) to ``model_dump(mode="json")``, and from a JSON document to
   JSON (``TypeAdapter(list[Model])``). Target: SnowId >= 3.0x ULID, the comparable
   pure-Python id type (``uuid.UUID``, whose parser is compiled into pydantic-core, is the
   ratio column's base, for scale). Also for scale: keys handed over already typed (SnowId or
   UUID objects) or as ints. Ratios are taken per round and given as the median with their
   spread.

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


ULID_TARGET = 3.0  # SnowId's pydantic field against python-ulid's, both pure Python


def report_paired(
    title: str,
    results: dict[str, list[float]],
    n: int,
    *,
    base: str,
    target: str,
    scale: str,
    peer: str,
) -> None:
    """Like ``report``, but each ratio is taken round by round (the contenders of one round
    ran back to back, so they met the same load), then the median and the spread of those
    ratios are given: on a shared machine that says more than a ratio of two medians.
    The verdict is ``target`` against ``peer`` (``ULID_TARGET``)."""
    print(title)
    for name, seconds in results.items():
        ratios = [b / s for b, s in zip(results[base], seconds, strict=True)]
        print(
            f"  {name:34s} {n / statistics.median(seconds):11,.0f} /s   "
            f"{statistics.median(ratios):5.2f}x {base} [{min(ratios):.2f}-{max(ratios):.2f}]"
        )
    for other, goal in ((peer, ULID_TARGET), (scale, None)):
        paired = [o / t for o, t in zip(results[other], results[target], strict=True)]
        verdict = ""
        if goal is not None:
            verdict = f"  {'PASS' if statistics.median(paired) >= goal else 'FAIL'} (>= {goal}x)"
        print(
            f"  {target} vs {other}: {statistics.median(paired):.2f}x"
            f" [{min(paired):.2f}-{max(paired):.2f}]{verdict}"
        )
    print()


def bench_pydantic(n: int, rounds: int) -> None:
    """Five-field models keyed three ways, validated and dumped to JSON-ready data.

    The target compares what a JSON API sees: ids arrive as strings (a SnowId must, above
    2^53; a UUID always does) and leave as strings. The other rows are for scale: a plain
    int key (a number, no id type), and keys handed over already typed (a SnowId, a UUID
    object, or a SnowId as an int, e.g. from a database row).
    """
    from pydantic import BaseModel, TypeAdapter
    from ulid import ULID

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

    class ByUlid(BaseModel):
        id: ULID
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

    def rows(keys: list[Any]) -> list[dict[str, object]]:
        return [
            {"id": key, "name": f"n{i}", "amount": i, "active": i % 2 == 0, "tag": "t"}
            for i, key in enumerate(keys)
        ]

    ids = snowid.next_ids(n)
    uuids = [uuid.uuid4() for _ in range(n)]
    ulids = [str(ULID()) for _ in range(n)]  # one process, one millisecond or a few: as in use
    target, base, scale = "SnowId (decimal strings)", "uuid.UUID (strings)", "int (numbers)"
    peer = "python-ulid ULID (strings)"
    inputs: dict[str, tuple[type[BaseModel], list[dict[str, object]]]] = {
        target: (BySnowId, rows([str(i) for i in ids])),
        base: (ByUuid, rows([str(u) for u in uuids])),
        peer: (ByUlid, rows(ulids)),
        scale: (ByInt, rows(list(range(1, n + 1)))),
        "SnowId (ints)": (BySnowId, rows([int(i) for i in ids])),
        "SnowId (SnowId objects)": (BySnowId, rows(list(ids))),
        "uuid.UUID (UUID objects)": (ByUuid, rows(uuids)),
    }
    # As one JSON document: the typed forms have no JSON spelling; ids as JSON numbers do.
    documents = [target, base, peer, scale, "SnowId (ints)"]
    dict_results: dict[str, list[float]] = {name: [] for name in inputs}
    json_results: dict[str, list[float]] = {name: [] for name in documents}
    blobs = {name: json.dumps(inputs[name][1]).encode() for name in documents}
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
            if name not in documents:
                continue

            def from_json(name: str = name) -> None:
                adapter = adapters[name]
                adapter.dump_json(adapter.validate_json(blobs[name]))

            spent = timed(from_json, process_time)
            if round_no >= 0:
                json_results[name].append(spent)
    report_paired(
        f"pydantic: validate + model_dump(mode='json'), {n:,} models of 5 fields, one by one"
        f" (median of {rounds} rounds; ratio median [spread] per round)",
        dict_results,
        n,
        base=base,
        target=target,
        scale=scale,
        peer=peer,
    )
    report_paired(
        f"pydantic: validate_json + dump_json of a list of {n:,} models (TypeAdapter)",
        json_results,
        n,
        base=base,
        target=target,
        scale=scale,
        peer=peer,
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-sql", action="store_true")
    parser.add_argument("--rounds", type=int, help="pydantic rounds (default 1 quick, 5 full)")
    args = parser.parse_args()
    n, rounds = (10_000, 1) if args.quick else (100_000, 3)
    pydantic_rounds = args.rounds or (1 if args.quick else 5)
    snowid.configure(lease=f"file://{tempfile.mkdtemp(prefix='snowid-bench-')}")
    snowid.next_id()  # claim the identity outside the timed runs
    if not args.no_sql:
        bench_sql(PG, "PostgreSQL (psycopg 3)", n, rounds)
        bench_sql(MARIADB, "MariaDB (PyMySQL)", n, rounds)
    bench_pydantic(n, pydantic_rounds)


if __name__ == "__main__":
    main()
