"""The fault cases every networked lease store must pass, on each backend (docs/leases.md
cases 14-17, 19, 20 and 26; 22 and 23 are in test_store_regressed.py): PostgreSQL (the
local server, a fresh table), Redis (a durable redis-server of the test's own, a fresh key
prefix) and MariaDB (the local server, a fresh table).

Timings are scaled down (TTL about a second); every process and loop is bounded.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from snowid import TWITTER, Generator
from snowid.errors import ClockSkewError, NoFreeIdentityError, StoreUnreachableError
from snowid.lease import lease_status
from snowid.testing import OffsetClock
from tests.support.holders import wait_until, worker_ms
from tests.support.procs import read_ids, read_log, start_worker, wait_all, wait_for_file
from tests.support.proxy import TcpProxy
from tests.support.stores import WITHOUT_ZOOKEEPER, Store, store, wait_for_claim

__all__ = ["store"]  # the fixture, imported for pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


def test_claim_renew_release_and_generator(store: Store) -> None:
    """A claim, renewals raising the ceiling, ids within it, the release. The round trip's
    timeout (left out: the renewal interval, 0.2 s) and the TTL are harness margins, wide
    enough for a busy machine; the renewals still come every 0.2 s."""
    query = "range=0-3&ttl=3&renew=0.2&timeout=2"
    url = store.url(query)
    with store.open(query) as lease:
        generator = Generator(fence=lease)
        ids = generator.next_ids(50_000)
        first_ceiling = lease.ceiling_ms
        wait_until(lambda: lease.renewals >= 3, 30, "3 renewals")
        ids += [generator.next_id() for _ in range(50_000)]
        assert lease.ceiling_ms > first_ceiling
        assert len(set(ids)) == 100_000
        assert max(TWITTER.timestamp_of(v) for v in ids) <= lease.ceiling_ms
        rows = lease_status(url)
        assert [(r.worker, r.held) for r in rows] == [(lease.worker, True)]
    assert [r.held for r in lease_status(url)] == [False]


def test_status_lists_only_the_identities_of_its_own_range(store: Store) -> None:
    """Two leases of one store, on disjoint ranges: each one's status() shows its own
    worker, never the other's."""
    with store.open("range=0-1&ttl=5") as low, store.open("range=2-3&ttl=5") as high:
        low.acquire(0)
        high.acquire(0)
        assert [(r.worker, r.held) for r in low.status()] == [(low.worker, True)]
        assert [(r.worker, r.held) for r in high.status()] == [(high.worker, True)]


def test_n_claimants_exhaustion_and_sigterm_release(store: Store, tmp_path: Path) -> None:
    """Case 14: distinct workers; the 4th gets NoFreeIdentity; SIGTERM frees a worker at once."""
    url = store.url("range=0-2&ttl=30&renew=0.2&span=1&timeout=1.5")
    procs = []
    for i in range(3):
        procs.append(
            start_worker(
                url,
                tmp_path / f"ids{i}",
                "--count",
                "2000",
                "--hold",
                str(tmp_path / "hold"),
                "--seconds",
                "60",
                "--ready",
                str(tmp_path / f"ready{i}"),
            )
        )
    for i in range(3):
        wait_for_file(tmp_path / f"ready{i}")
    # all 2000 ids written (a loaded machine can be slow to), so SIGTERM cuts nothing short
    wait_until(
        lambda: all(len(read_ids(tmp_path / f"ids{i}")) == 2000 for i in range(3)), 30, "2000 ids"
    )
    with (
        store.open("range=0-2&ttl=30&renew=0.2&span=1&timeout=1.5") as extra,
        pytest.raises(NoFreeIdentityError),
    ):
        extra.acquire(0)
    procs[0].send_signal(signal.SIGTERM)
    assert wait_all([procs[0]], 20) == [0]
    started = time.monotonic()
    with store.open("range=0-2&ttl=30&renew=0.2&span=1&timeout=1.5") as late:
        grant = late.acquire(0)  # TTL is 30 s: only the release can have freed it
        assert time.monotonic() - started < 5
        freed = TWITTER.worker(grant.datacenter, grant.machine)
    (tmp_path / "hold").touch()
    assert wait_all(procs[1:]) == [0, 0]
    ids = [read_ids(tmp_path / f"ids{i}") for i in range(3)]
    workers = [{w for w, _ in worker_ms(x)} for x in ids]
    assert sorted(min(w) for w in workers) == [0, 1, 2]
    assert workers[0] == {freed}
    assert len({v for x in ids for v in x}) == 6000


@pytest.mark.parametrize("store", WITHOUT_ZOOKEEPER, indirect=True)  # its ensemble test
def test_sigkilled_holder_is_reclaimable_only_after_ttl(store: Store, tmp_path: Path) -> None:
    """Case 15: after SIGKILL the worker stays held until its TTL; the successor starts above."""
    url = store.url("range=0-0&ttl=1.5&renew=0.3&timeout=1.5")
    victim = start_worker(url, tmp_path / "victim", "--ready", str(tmp_path / "ready"))
    wait_for_file(tmp_path / "ready")
    time.sleep(0.3)
    victim.kill()
    victim.wait()
    killed_at = time.monotonic()
    with store.open("range=0-0&ttl=1.5&renew=0.3&timeout=1.5", claim_wait=5) as successor:
        with pytest.raises(NoFreeIdentityError):
            successor.acquire(0)
        grant = wait_for_claim(successor, 10)
        assert time.monotonic() - killed_at > 1.0  # not before the TTL ran out
        ids = Generator(fence=successor).next_ids(1000)
    before = read_ids(tmp_path / "victim")
    assert before
    assert grant.start_ms > max(TWITTER.timestamp_of(v) for v in before)
    assert min(ids) > max(before)


def test_sigstopped_holder_past_its_ttl_never_overlaps(store: Store, tmp_path: Path) -> None:
    """Case 16: SIGSTOP past TTL, another claims, SIGCONT: only <= old ceiling, then re-claim.

    The holder issues until told to stop, not for a fixed time: on a busy machine the
    successor can take seconds to start while the holder is frozen, and a holder whose
    run had ended by then would never show the renewal it fails after SIGCONT."""
    stop = tmp_path / "stop"
    holder = start_worker(
        store.url("range=0-1&ttl=1&renew=0.25&timeout=1.5"),
        tmp_path / "holder",
        *("--seconds", "120", "--until", str(stop), "--idle", "0.0001"),
        *("--ready", str(tmp_path / "ready")),
        log=tmp_path / "holder.log",
    )
    wait_for_file(tmp_path / "ready")
    time.sleep(0.3)
    holder.send_signal(signal.SIGSTOP)
    try:
        time.sleep(1.3)
        successor = start_worker(
            store.url("range=0-0&ttl=1&renew=0.25&timeout=1.5"),
            tmp_path / "successor",
            "--seconds",
            "3",
            "--ready",
            str(tmp_path / "ready2"),
        )
        wait_for_file(tmp_path / "ready2", 60)
    finally:
        holder.send_signal(signal.SIGCONT)

    def kinds() -> list[tuple[object, object]]:
        return _kinds(tmp_path / "holder.log")

    wait_until(lambda: ("claim", 1) in kinds(), 60, "the holder to lose worker 0 and claim 1")
    stop.touch()
    assert wait_all([holder, successor]) == [0, 0]
    held, took = read_ids(tmp_path / "holder"), read_ids(tmp_path / "successor")
    assert not (worker_ms(held) & worker_ms(took))
    assert len(set(held) | set(took)) == len(held) + len(took)
    log = read_log(tmp_path / "holder.log")
    assert ("lost", 0) in kinds()
    assert kinds().index(("lost", 0)) < kinds().index(("claim", 1))  # it claimed anew after
    ceiling0 = max(
        int(r["ceiling"]) for r in log if r.get("worker") == 0 and r["kind"] in ("claim", "extend")
    )
    assert all(ts <= ceiling0 for w, ts in worker_ms(held) if w == 0)
    assert {w for w, _ in worker_ms(held)} == {0, 1}


@pytest.mark.parametrize("store", WITHOUT_ZOOKEEPER, indirect=True)  # its ensemble test
def test_partitioned_holder_rides_to_its_ceiling_then_fails_closed(
    store: Store, tmp_path: Path
) -> None:
    """Case 17: blackhole the holder's store link: it stops, another takes the worker, heal.

    The holder issues until told to stop (as in case 16), so that it is still running
    when the heal lets its next renewal fail, however late a busy machine gets there."""
    stop = tmp_path / "stop"
    proxy = TcpProxy(store.host, store.port)
    try:
        holder = start_worker(
            store.url("range=0-1&ttl=2&renew=0.5&timeout=1", port=proxy.port),
            tmp_path / "holder",
            *("--seconds", "120", "--until", str(stop), "--idle", "0.0001"),
            *("--ready", str(tmp_path / "ready")),
            log=tmp_path / "holder.log",
        )
        wait_for_file(tmp_path / "ready")
        time.sleep(0.3)
        proxy.set_mode("blackhole")
        cut = time.monotonic()
        with store.open("range=0-0&ttl=1&timeout=2", claim_wait=5) as other:
            wait_for_claim(other, 30)
            # Not before the holder's grant ran out: the TTL (2 s) from its last renewal,
            # which began up to one renewal interval (0.5 s) before the cut. (A bound that
            # assumed a renewal right before the cut failed once.) The holder's store
            # timeout is 1 s: at 0.25 s a busy machine's renewal could time out before the
            # cut and end the grant early. The proof is below: no (worker, ms) shared by the
            # two id streams.
            assert time.monotonic() - cut > 2.0 - 0.5
            other_ids = Generator(fence=other).next_ids(5000)
            time.sleep(0.5)
            proxy.set_mode("pass")  # heal
            wait_until(
                lambda: ("claim", 1) in _kinds(tmp_path / "holder.log"),
                60,
                "the holder to lose worker 0 and claim 1",
            )
            stop.touch()
            assert wait_all([holder], 30) == [0]
    finally:
        proxy.close()
    held = read_ids(tmp_path / "holder")
    assert not (worker_ms(held) & worker_ms(other_ids))
    log = read_log(tmp_path / "holder.log")
    codes = {r.get("code") for r in log if r["kind"] == "error"}
    assert "store_unreachable" in codes
    kinds = _kinds(tmp_path / "holder.log")
    assert ("lost", 0) in kinds  # the old CAS failed after healing
    assert kinds.index(("lost", 0)) < kinds.index(("claim", 1))
    assert {w for w, _ in worker_ms(held)} == {0, 1}


def _kinds(log: Path) -> list[tuple[object, object]]:
    """(kind, worker) of each record of a worker's log."""
    return [(r["kind"], r.get("worker")) for r in read_log(log)]


def test_premature_expiry_successor_starts_above_the_ceiling(store: Store) -> None:
    """Case 19: an operator expires the lease early: the successor starts above; the holder
    loses at its next renewal."""
    holder = store.open("range=0-0&ttl=1&renew=0.2&timeout=1.5")
    held = Generator(fence=holder).next_ids(20_000)
    acknowledged = holder.ceiling_ms
    store.expire(0)
    with store.open("range=0-0&ttl=1&renew=0.2&timeout=1.5", claim_wait=5) as successor:
        grant = successor.acquire(0)
        assert grant.start_ms > acknowledged >= max(TWITTER.timestamp_of(v) for v in held)
        took = Generator(fence=successor).next_ids(20_000)
        wait_until(lambda: holder.state != "held", 30, "the holder to lose its lease")
        assert holder.state == "lost"  # its next renewal failed on the owner
        assert holder.ceiling_ms == -1
    assert min(took) > max(held)
    holder.close()


def test_failed_renewal_claims_a_new_identity(store: Store) -> None:
    """Case 19: another owner took the holder's worker: its next renewal fails on the owner
    and it claims the other worker of its range."""
    lease = store.open("range=0-1&ttl=1&renew=5")
    first = lease.acquire(0)
    store.give_away(TWITTER.worker(first.datacenter, first.machine))
    second = lease.acquire(first.ceiling_ms + 1)  # renewal fails on owner: a new identity
    assert (second.datacenter, second.machine) != (first.datacenter, first.machine)
    assert any(e.kind == "lost" for e in lease.events)
    lease.close()


@pytest.mark.parametrize("workers", ["0-0", "0-99"])
def test_client_clock_far_from_the_store_is_refused(store: Store, workers: str) -> None:
    """Case 20: a clock 5 s ahead or behind the store (max_skew 0.5 s) cannot claim. On a
    range of more than 64 workers etcd reads the store's clock from the claim's own first
    read (a sample of the range) instead of a status request: refused all the same, and
    nothing is written."""
    for offset in (5000, -5000):
        lease = store.open(f"range={workers}&ttl=1&max_skew=0.5", clock=OffsetClock(offset))
        with lease, pytest.raises(ClockSkewError):
            lease.acquire(0)
    assert lease_status(store.url(f"range={workers}")) == []


def test_proposals_are_capped_and_a_behind_successor_waits(store: Store) -> None:
    """Case 20: a clock 400 ms ahead has its ceiling capped by the store's clock; a successor
    400 ms behind waits until its clock passes the start."""
    query = "range=0-0&ttl=1&span=1&max_skew=0.5&timeout=2"
    ahead = store.open(query, clock=OffsetClock(400))
    grant = ahead.acquire(0)
    assert grant.ceiling_ms <= store.now_ms() + 1000 + 500
    ahead.close()
    behind_clock = OffsetClock(-400)
    with store.open(query, clock=behind_clock, claim_wait=5) as behind:
        successor = behind.acquire(0)
        assert successor.start_ms == grant.ceiling_ms + 1
        assert behind_clock.time_ms() >= successor.start_ms


def test_fork_child_gets_its_own_connection_and_worker(store: Store) -> None:
    """Case 26: the child drops the inherited connection and grant; the parent's lives on."""
    lease = store.open("range=0-3&ttl=2&renew=0.3&timeout=1.5")
    generator = Generator(fence=lease)
    parent_ids = generator.next_ids(1000)
    parent_worker = lease.worker
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            child_ids = generator.next_ids(1000)
            ok = lease.worker != parent_worker and min(child_ids) > 0
            os.write(write, f"{lease.worker} {int(ok)}".encode())
            lease.close()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    child_worker, ok = map(int, os.read(read, 100).split())
    assert ok == 1
    assert child_worker != parent_worker
    # The parent's connection survived the child: an explicit renewal still succeeds.
    renewals = lease.renewals
    lease.acquire(lease.ceiling_ms + 1)
    assert lease.renewals > renewals
    assert lease.state == "held"
    more = generator.next_ids(1000)
    assert min(more) > max(parent_ids)
    lease.close()


def test_store_down_at_claim_is_store_unreachable(store: Store) -> None:
    with store.open("ttl=1", port=1) as lease, pytest.raises(StoreUnreachableError):
        lease.acquire(0)
