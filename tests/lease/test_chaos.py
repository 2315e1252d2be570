"""The multi-host uniqueness run (docs/leases.md, "The chaos run"), sized for CI: 3 hosts x 3 processes,
about 30 s, a seeded schedule of kills, pauses, partitions, clock steps and an expiry; once
per backend (PostgreSQL, Redis, MariaDB)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.chaos import SPAN, TTL, Chaos, check_run
from tests.support.stores import WITHOUT_ETCD, Store, store

__all__ = ["store"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(150)]


@pytest.mark.parametrize("store", WITHOUT_ETCD, indirect=True)  # gate budget (issue 27)
@pytest.mark.parametrize("seed", [int(os.environ.get("SNOWID_CHAOS_SEED", "20261130"))])
def test_three_hosts_three_processes_never_share_a_worker_millisecond(
    seed: int, store: Store, tmp_path: Path
) -> None:
    chaos = Chaos(tmp_path, store, hosts=3, per_host=3, seed=seed, duration=26, workers=12)
    run = chaos.execute()
    stats = check_run(run, bound_ms=int((TTL + SPAN) * 1000) + 3000)
    print(stats)
    assert stats["ids"] > 100_000
    # 6. the faults really bit: each fail-closed path was taken at least once
    assert stats["lost"] >= 1  # SIGSTOP past TTL and the premature expiry
    assert stats["store_unreachable"] >= 1  # the partition
    assert stats["clock"] + stats["ceiling"] >= 1  # the clock steps
