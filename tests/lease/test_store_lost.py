"""Lease records deleted under live holders, the meta record kept (docs/leases.md case 28),
on each networked store: PostgreSQL and MariaDB (a fresh table on the shared servers: a
row DELETEd, the table TRUNCATEd), Redis (a durable redis-server of the test's own: a
worker's ceiling field deleted, the lease hash deleted, the lease and ceiling hashes
deleted).

Expected: nobody issues an id twice. A claim that finds a record missing writes it again
with its ceiling at store-now + ttl + span + max_skew and waits for it, never reading it
as "never claimed" nor answering "all are held"; the holder it was deleted under stops at
its next renewal with LeaseRemovedError ("... was removed ..."); ``snowid lease init``
writes lost records again, quarantined, upgrades a store of the older format, and says
both. A first deployment's first claim still starts at once.

Timings are scaled down: TTL 0.3 s, renewals every 0.1 s, span 0.1 s, max_skew 0.02 s,
so the quarantine is 0.42 s.
"""

from __future__ import annotations

import logging
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from snowid.cli import main
from snowid.errors import LeaseRemovedError, NoFreeIdentityError
from snowid.lease import init_lease
from snowid.lease._redis_lua import Keys
from snowid.lease._store import StoreLease
from tests.support.holders import Issuer, assert_unique, wait_until, worker_ms
from tests.support.redis import redis_server
from tests.support.servers import RedisServer, new_name
from tests.support.stores import WITHOUT_ETCD, Store, store

__all__ = ["store"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]

FAST = "ttl=0.3&span=0.1&max_skew=0.02"
RENEW = "renew=0.1"
INIT = f"{FAST}&timeout=10"  # a harness margin: a busy shared server (ALTER TABLE, fsync on a
# loaded CI disk, 2 cores) took over 2 s for one statement once
QUARANTINE_MS = 300 + 100 + 20
ROUNDS = 20
REMOVED = "was removed from the lease store"
SNOWID = (sys.executable, "-m", "snowid")


def _lost_details(issuer: Issuer) -> list[str]:
    return [event.detail for event in issuer.events if event.kind == "lost"]


def _one_round(store: Store, how: str, rng: random.Random) -> tuple[list[int], list[int]]:
    """A holder issues on worker 7; its record is removed ``how`` at a random point; a
    second claimant on the same range claims and issues. Their id streams."""
    query = f"range=7-7&{FAST}&{RENEW}"
    holder = store.open(query)
    first = Issuer(holder)
    first.start()
    wait_until(lambda: len(first.batches) > 0, 10, "the holder's first ids")
    time.sleep(rng.uniform(0, 0.3))  # a random point in the holder's life
    store.remove(7, how)
    claimant = store.open(query)
    second = Issuer(claimant)
    second.start()
    wait_until(lambda: "lost" in [e.kind for e in first.events], 10, "the holder to stop")
    first.finish()
    holder.close()
    wait_until(lambda: len(second.batches) >= 3, 10, "the claimant's ids")
    second.finish()
    claimant.close()
    # The holder's record was removed, and it says so (not "another process claimed it").
    assert REMOVED in _lost_details(first)[0], _lost_details(first)
    return first.ids, second.ids


@pytest.mark.parametrize("store", WITHOUT_ETCD, indirect=True)  # gate budget (issue 27)
def test_records_removed_under_a_live_holder_at_random_points_never_duplicate(
    store: Store,
) -> None:
    """20 rounds per store on one worker: a holder issuing ids (a Generator over the
    lease) while its record is removed at a random point, each way the store can lose it
    in turn, then a second claimant on the same range claims and issues. Over every real
    id stream of every round: 0 duplicate ids, and no millisecond shared by two writers;
    every holder is told its record was removed. (Before: Redis gave duplicates;
    PostgreSQL and MariaDB refused every claim after a TRUNCATE with "all are held", and
    told holders "another process claimed it".)"""
    rng = random.Random(16)
    every: list[int] = []
    used_ms: set[tuple[int, int]] = set()
    for n in range(ROUNDS):
        for stream in _one_round(store, store.REMOVALS[n % len(store.REMOVALS)], rng):
            shared = worker_ms(stream) & used_ms
            assert not shared, f"round {n}: two writers shared {sorted(shared)[:3]}"
            used_ms |= worker_ms(stream)
            every += stream
    assert len(every) - len(set(every)) == 0, "duplicate ids"


def test_a_claim_on_an_emptied_lease_table_recovers_quarantined_and_says_why_once(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """Every lease record deleted, the meta record kept (SQL: TRUNCATE; Redis: DEL of the
    lease and ceiling hashes): the next claim writes the records of its range again with
    their ceilings quarantined, waits, and logs why once, naming where the leases live;
    never "all are held" when nothing is held. The holders are told their records were
    removed."""
    query = f"range=0-3&{FAST}&renew=5"  # renew=5: this test drives the holders' renewals
    holders = [store.open(query) for _ in range(2)]
    for holder in holders:
        holder.acquire(0)
    store.remove_all()
    caplog.set_level(logging.WARNING, logger="snowid.lease")
    before = store.now_ms()
    with store.open(query) as fresh:
        grant = fresh.acquire(0)
    assert grant.start_ms > before + QUARANTINE_MS
    repaired = [
        r.getMessage() for r in caplog.records if "had lost the lease records" in r.getMessage()
    ]
    assert len(repaired) == 1, repaired
    where = "keys" if store.name in ("redis", "etcd") else "table"
    assert "workers 0-3 (4 in all)" in repaired[0]
    assert where in repaired[0]
    for holder in holders:
        assert isinstance(holder, StoreLease)
        with holder._lock, pytest.raises(LeaseRemovedError) as caught:
            holder._renew_now()
        assert REMOVED in str(caught.value)
        assert "bị xóa" in caught.value.message("vi")
        holder.close()


def test_lease_init_writes_lost_records_again_quarantined_and_says_so(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    """After the lease records are deleted, ``snowid lease status`` says they are missing
    (not only "no identity is held"); ``snowid lease init URL`` writes every one of them
    again, quarantined, and says so (en and vi); claims then succeed, above the
    quarantine, and a second run finds nothing to repair."""
    store.remove_all()
    assert main(["lease", "status", store.url(INIT), "--all"]) == 0
    out = capsys.readouterr().out
    assert "the lease records of workers 0-1023 (1024 in all) are missing from" in out
    before = store.now_ms()  # the store's clock before init writes the quarantine
    assert main(["lease", "init", store.url(INIT)]) == 0
    out = capsys.readouterr().out
    assert "lost the lease records of workers 0-1023 (1024 in all)" in out
    assert "rewritten with their ceilings quarantined" in out
    with store.open(f"range=0-1&{INIT}") as lease:
        # above the quarantine init wrote (measured from before init: on a busy machine
        # the quarantine may have run out by the time init returns)
        assert lease.acquire(0).start_ms > before + QUARANTINE_MS - 50
    assert main(["lease", "init", store.url(INIT), "--lang", "vi"]) == 0
    assert "mất bản ghi" not in capsys.readouterr().out
    assert main(["lease", "status", store.url(INIT), "--json"]) == 0
    assert '"missing": []' in capsys.readouterr().out
    store.remove(5, store.REMOVALS[0])
    assert main(["lease", "init", store.url(INIT), "--lang", "vi"]) == 0
    out = capsys.readouterr().out
    assert "kho đã mất bản ghi quyền thuê của các worker 5 (tổng cộng 1)" in out


def test_lease_init_upgrades_a_store_of_the_older_format_and_says_so(
    store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    """A store set up before formats were recorded (Redis: as a first deployment left it,
    with entries only for workers ever claimed): ``snowid lease init`` records the format,
    raises every ceiling above now + the quarantine, that of a worker claimed before too
    (holders of an older snowid may still issue under it), and says both; on Redis a
    worker with no entries cannot be told from a deleted one, so it is written
    quarantined (and said); SQL stores always had every row, so nothing needs writing. A
    second run finds nothing to upgrade. (Issue 25 changed this test on purpose: before,
    the upgrade kept the ceilings that were there, and claims only warned.)"""
    with store.open(f"range=0-0&{INIT}") as lease:
        lease.acquire(0)
    store.forget_format()
    before = store.now_ms()
    assert main(["lease", "init", store.url(INIT), "--json"]) == 0
    assert '"upgraded": true' in capsys.readouterr().out
    assert store.row(0)[2] > before + QUARANTINE_MS
    store.forget_format()
    assert main(["lease", "init", store.url(INIT)]) == 0
    out = capsys.readouterr().out
    assert "upgraded the lease store to format 2" in out
    assert f"Every ceiling was raised to now + {QUARANTINE_MS} ms" in out
    if store.name in ("redis", "etcd", "zookeeper"):  # entries only for the workers ever claimed
        assert "lost the lease records of workers 1-1023 (1023 in all)" in out
    else:
        assert "lost the lease records" not in out
    assert main(["lease", "init", store.url(INIT)]) == 0
    assert "upgraded" not in capsys.readouterr().out


def test_a_first_deployments_first_claim_starts_at_once(store: Store) -> None:
    """A store set up as a first deployment (the fixture) has a record for every worker at
    ceiling 0: the first claim on any of them starts at once, nothing to repair."""
    for worker in (0, 1023):
        with store.open(f"range={worker}-{worker}&{INIT}") as lease:
            assert lease.acquire(0).start_ms == 1


def test_no_claim_says_all_are_held_after_the_table_is_emptied(store: Store) -> None:
    """As many claimants as the range holds, after every record was deleted: each one
    gets a worker (quarantined); only the one beyond the range is told all are held."""
    query = f"range=0-2&{INIT}"
    store.remove_all()
    leases = [store.open(query) for _ in range(4)]
    try:
        for lease in leases[:3]:
            lease.acquire(0)
        assert sorted(lease.worker for lease in leases[:3]) == [0, 1, 2]
        with pytest.raises(NoFreeIdentityError):
            leases[3].acquire(0)
    finally:
        for lease in leases:
            lease.close()


def test_a_holder_whose_record_was_removed_claims_its_worker_again(store: Store) -> None:
    """A holder issues on worker 7, the only one of its range; its record is removed, each
    way the store can lose it in turn. The holder stops at its next renewal, gives the
    worker back and, the process and the lease living on, claims it again (after the
    quarantine) and issues above everything before. (Before, on ZooKeeper: the release
    checked the record it had written, found it gone and deleted nothing, so the lease's
    live session kept its `held` node, and every claim, its own too, was told all are held
    until the process ended.)"""
    for how in store.REMOVALS:
        _removed_then_claimed_again(store, how)


def _removed_then_claimed_again(store: Store, how: str) -> None:
    holder = store.open(f"range=7-7&{FAST}&{RENEW}")
    issuer = Issuer(holder)
    try:
        issuer.start()
        wait_until(lambda: len(issuer.batches) > 0, 10, "the holder's first ids")
        store.remove(7, how)
        wait_until(lambda: "lost" in [e.kind for e in issuer.events], 10, "the holder to stop")
        before = len(issuer.batches)
        wait_until(lambda: len(issuer.batches) > before + 3, 10, f"ids after the loss ({how})")
        issuer.finish()
    finally:
        issuer.halt.set()
        holder.close()
    assert REMOVED in _lost_details(issuer)[0], _lost_details(issuer)
    claims = [e for e in issuer.events if e.kind == "claim"]
    assert len(claims) >= 2, how
    assert_unique(issuer.ids)


def test_lease_init_on_a_new_store_writes_every_worker_and_the_format(store: Store) -> None:
    """Set-up leaves a record for every worker (what tells a deleted one from an unused
    one) and the format in the meta record: a second set-up finds nothing to do."""
    again = init_lease(store.url(INIT))
    assert again["created"] is False
    assert again["upgraded"] is False
    assert again["repaired"] == []
    assert again["format"] == 2


# --- the issue's repro, through the CLI -----------------------------------------------------

_CLAIMANT = """
import sys
from snowid.cli import main
import snowid.lease.redis, redis  # loaded before the go: the claim follows it at once
sys.stdin.readline()
sys.exit(main(sys.argv[1:]))
"""


def _removal_under_a_cli_holder(server: RedisServer, out: Path) -> tuple[int, int, int, str, str]:
    """``snowid generate`` holds worker 0 and issues; just after one of its renewals its
    lease and ceiling hashes are DELeted; a second ``snowid generate`` (already started,
    waiting for the go) claims at once. (duplicate ids, milliseconds both issued in, ids
    of the second, its stderr, the holder's stderr)."""
    prefix = new_name()
    url = server.url(f"key={prefix}&range=0-0&ttl=2&span=0.3&max_skew=0.1&timeout=1")
    subprocess.run([*SNOWID, "lease", "init", url, "--first-deployment"], check=True)
    with (out / "a.txt").open("wb") as a_out, (out / "b.txt").open("wb") as b_out:
        second = subprocess.Popen(
            [sys.executable, "-c", _CLAIMANT, "generate", "--count", "200000", "--lease", url],
            stdin=subprocess.PIPE,
            stdout=b_out,
            stderr=subprocess.PIPE,
        )
        first = subprocess.Popen(
            # more ids than it can issue before its next renewal, however idle the machine:
            # it must still be issuing when it learns of the removal (it then stops)
            [*SNOWID, "generate", "--count", "10000000", "--lease", url],
            stdout=a_out,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 20
        while (out / "a.txt").stat().st_size < 1_000_000:  # the holder is issuing
            assert first.poll() is None, first.communicate()[1].decode()
            assert time.monotonic() < deadline, "the holder issued nothing"
            time.sleep(0.01)
        client, keys = server.client(), Keys(prefix).all
        renewed = client.hget(keys[1], 0)
        while client.hget(keys[1], 0) == renewed:  # just after a renewal: the widest window
            assert time.monotonic() < deadline, "the holder did not renew"
            time.sleep(0.002)
        client.delete(keys[1], keys[2])  # the lease and ceiling hashes
        _, second_err = second.communicate(b"go\n", timeout=60)
        _, first_err = first.communicate(timeout=60)
    a, b = (list(map(int, (out / name).read_bytes().split())) for name in ("a.txt", "b.txt"))
    duplicates = len(a) + len(b) - len(set(a) | set(b))
    shared = len(worker_ms(a) & worker_ms(b))
    return duplicates, shared, len(b), second_err.decode(), first_err.decode()


# Up to 3 runs, each starting three CLI processes and comparing a few hundred thousand ids:
# 20 s on a busy machine, over 6 minutes once at a load of 30 on 2 cores (a harness bound).
@pytest.mark.timeout(600)
def test_the_issue_repro_through_the_cli_on_redis_gives_no_duplicate(tmp_path: Path) -> None:
    """Issue 16 §1 as an operator runs it, scaled down: a ``snowid generate`` holder, its
    lease and ceiling hashes DELeted under it, a second ``snowid generate`` on the same
    range. The second waits out the quarantine and issues; no id repeats; the holder says
    its record was removed. (Before: 221,184 duplicates in the issue's own timings.) The
    second claim races the holder's own new claim after it learns of the removal: a run
    where the holder won (the second is told all are held) is repeated, at most 3 times."""
    with redis_server(tmp_path / "redis") as server:
        for _ in range(3):
            duplicates, shared, issued, second_err, first_err = _removal_under_a_cli_holder(
                server, tmp_path
            )
            assert (duplicates, shared) == (0, 0)
            if issued:
                break
            assert "all are held" in second_err, second_err
        else:
            pytest.fail("the second claimant never won the race in 3 runs")
    assert issued == 200_000, second_err
    assert REMOVED in first_err, first_err
