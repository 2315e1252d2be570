"""bench/faults.py, the fault harness: its duplicate counter counts a planted duplicate (so a
run cannot report 0 because it counted nothing), a short run on file slots prints the
table with ids and faults counted, and a short run on a ZooKeeper server and on an etcd
member of its own, its store crashed once, counts no duplicate. The long runs are the
harness's own (docs/leases.md, "The fault harness"), never the gate's."""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from bench.faults import (
    HEADER,
    MariaPairTarget,
    PairTarget,
    PgPairTarget,
    RedisPairTarget,
    Result,
    count_duplicates,
    run,
    table,
)

from tests.support.etcd import etcd_binary
from tests.support.procs import ROOT, read_ids
from tests.support.zookeeper import java_binary


def _write_ids(path: Path, ids: list[int]) -> None:
    """As tests/support/worker.py writes them: 8 bytes each, big endian."""
    path.write_bytes(b"".join(value.to_bytes(8, "big") for value in ids))


def test_a_planted_duplicate_is_counted_across_and_within_id_files(tmp_path: Path) -> None:
    """The counter reads the worker's files: an id in two streams counts once, an id three
    times counts twice, one repeated in its own stream counts too; distinct ids count 0."""
    a, b, c = tmp_path / "a.ids", tmp_path / "b.ids", tmp_path / "c.ids"
    _write_ids(a, [1 << 22, 2 << 22, 3 << 22])
    _write_ids(b, [4 << 22, 2 << 22])  # 2 << 22 planted: also in a
    _write_ids(c, [5 << 22, 6 << 22])
    assert count_duplicates(read_ids(p) for p in (a, c)) == 0
    assert count_duplicates(read_ids(p) for p in (a, b, c)) == 1
    _write_ids(c, [2 << 22, 7 << 22, 7 << 22])  # a third copy, and one within c
    assert count_duplicates(read_ids(p) for p in (a, b, c)) == 3


def test_the_table_shows_the_duplicates_counted() -> None:
    result = Result("file", 10, Counter(holder_kill=2), 1, 1.25, "holder_kill", 2, 2)
    row = table([result]).splitlines()[2].split("|")
    assert [cell.strip() for cell in row[1:-1]] == [
        "file", "10", "holder_kill 2", "1", "1.2 s (after holder_kill)", "2/2",
    ]  # fmt: skip


def test_every_replica_pair_has_failover_and_a_rollback_of_its_own() -> None:
    """PostgreSQL, Redis and MariaDB (``--store mysql``) each run the failover and
    rollback faults, and each puts its store back its own way (the base class has none)."""
    for target in (PgPairTarget, RedisPairTarget, MariaPairTarget):
        assert {"failover", "rollback", "store_crash"} <= set(target.kinds), target
        assert target.rollback is not PairTarget.rollback, target


@pytest.mark.slow  # starts holder processes (7 s of faults; 11-24 s in all under load)
@pytest.mark.timeout(90)
def test_a_short_run_on_file_slots_prints_the_table_with_ids_and_faults() -> None:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "bench.faults", "--store", "file", "--minutes", "0.12",
         "--seed", "7", "--holders", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=80, check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("# ")
    assert "UTC" in lines[0]
    assert lines[1].startswith("# python -m bench.faults --store file --minutes 0.12 --seed 7")
    at = lines.index(HEADER)
    cells = [cell.strip() for cell in lines[at + 2].split("|")[1:-1]]
    store, ids, kinds, duplicates, stall, recovered = cells
    assert store == "file"
    assert int(ids.replace(",", "")) > 1000
    applied = {k: int(n) for k, n in (part.rsplit(" ", 1) for part in kinds.split(", "))}
    assert set(applied) <= {"holder_kill", "holder_stop", "clock_step", "record_loss"}
    assert sum(applied.values()) >= 2
    assert duplicates == "0"
    assert stall.endswith(")")
    assert " s (after " in stall
    got, taken = map(int, recovered.split("/"))
    assert 0 <= got <= taken
    print(f"{time.monotonic() - started:.1f} s: {lines[at + 2]}")


@pytest.mark.slow  # a server and holder processes (5 s of faults; 13-17 s in all)
@pytest.mark.timeout(90)
@pytest.mark.parametrize("engine", ["zookeeper", "etcd"])
def test_a_short_run_on_one_server_crashes_its_store_and_counts_no_duplicate(engine: str) -> None:
    """One round per consensus engine, on one server of its own. Seed 10's first fault is
    ``store_crash`` on both (the server SIGKILLed, down 0.3 s, started again on its data);
    whatever follows in 5 s, no id is issued twice."""
    (java_binary if engine == "zookeeper" else etcd_binary)()  # skipped (failed in CI) if missing
    started = time.monotonic()
    result = run(engine, 0.08, 10, holders=2)
    assert result.error == ""
    assert result.store == engine
    assert result.faults["store_crash"] >= 1  # under load it may be the only fault in 5 s
    assert result.ids > 1000
    assert result.duplicates == 0
    assert 0 <= result.recovered <= result.taken
    print(f"{time.monotonic() - started:.1f} s: {table([result]).splitlines()[2]}")
