"""Fault sequences the consensus stores' fault tests share (tests/lease/test_etcd_faults.py,
tests/lease/test_zookeeper_faults.py): the same steps and the same checks over the real id
streams, whatever store the lease URL names.

- ``killed_and_frozen``: two holder processes issue; one is SIGKILLed and the other
  SIGSTOPped at the same moment; two successors claim both identities; the frozen one,
  resumed, loses its worker. Checked: no duplicate, no (worker, ms) shared, each process's
  ids within the ceilings its log acknowledged, each successor's grant above every id its
  worker issued before; how long the identities took to free up is the caller's to bound.
- ``clock_steps``: a holder process under libfaketime whose wall clock steps +5 s, back,
  -5 s and back (the boot clock untouched), then a successor on its worker.
- ``crowd_then_one_more``: claimants at once from a few processes of threads
  (tests/support/crowd.py), every identity taken, the next claimant refused.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from snowid import TWITTER, Generator
from snowid.lease import open_lease
from snowid.lease._store import StoreLease
from tests.support.crowd import one_more, run_crowd
from tests.support.faketime import faketime_env
from tests.support.holders import Issuer, assert_unique, wait_until, worker_ms
from tests.support.procs import ROOT, read_ids, read_log, start_worker, wait_all, wait_for_file
from tests.support.stores import wait_for_claim


def open_store(url: str, **options: Any) -> StoreLease:
    """``open_lease(url, **options)``, which must be one of the networked stores'."""
    lease = open_lease(url, **options)
    assert isinstance(lease, StoreLease)
    return lease


def acked_in_log(log: list[dict[str, object]], worker: int) -> int:
    """The highest ceiling a worker process's log acknowledged for ``worker``."""
    return max(
        (
            int(str(r["ceiling"]))
            for r in log
            if r.get("worker") == worker and r["kind"] in ("claim", "extend")
        ),
        default=-1,
    )


# --- a holder killed, a holder frozen -------------------------------------------------------


def killed_and_frozen(url: str, tmp: Path) -> float:
    """The killed-and-frozen sequence on ``url`` (a range of two workers, no other holder);
    the seconds from the faults until both identities were claimed by others."""
    stop = tmp / "stop"
    options = ("--seconds", "90", "--until", str(stop), "--idle", "0.0005")
    procs = {
        name: start_worker(
            url,
            tmp / name,
            *options,
            *("--ready", str(tmp / f"{name}.ready")),
            log=tmp / f"{name}.log",
        )
        for name in ("killed", "frozen")
    }
    for name in procs:
        wait_for_file(tmp / f"{name}.ready")
    time.sleep(0.3)
    procs["killed"].kill()
    procs["frozen"].send_signal(signal.SIGSTOP)
    faulted = time.monotonic()
    successors = [open_store(url, claim_wait=10) for _ in range(2)]
    try:
        # side by side: both identities free up at about the same moment
        with ThreadPoolExecutor(2) as pool:
            grants = list(pool.map(lambda successor: wait_for_claim(successor, 30), successors))
        freed_after = time.monotonic() - faulted
        taken = [Generator(fence=s).next_ids(2000) for s in successors]
    finally:
        procs["frozen"].send_signal(signal.SIGCONT)
    wait_until(
        lambda: any(r["kind"] == "lost" for r in read_log(tmp / "frozen.log")),
        30,
        "the resumed holder to lose its worker",
    )
    stop.touch()
    assert wait_all([procs["frozen"]]) == [0]
    procs["killed"].wait()
    for successor in successors:
        successor.close()
    streams = {name: read_ids(tmp / name) for name in procs}
    assert all(streams.values())
    for name, ids in streams.items():
        log = read_log(tmp / f"{name}.log")
        for worker, ms in worker_ms(ids):
            assert ms <= acked_in_log(log, worker), (name, worker, ms)
    for grant in grants:
        worker = TWITTER.worker(grant.datacenter, grant.machine)
        issued = [ms for ids in streams.values() for w, ms in worker_ms(ids) if w == worker]
        assert grant.start_ms > max(issued, default=-1)
    assert_unique(*streams.values(), *taken)
    return freed_after


# --- a clock stepped ------------------------------------------------------------------------

CLOCK_CHILD = textwrap.dedent(
    """
    import json, os, select, sys, time

    # libfaketime with FAKETIME_DONT_FAKE_MONOTONIC=1 fails time.sleep (an absolute
    # clock_nanosleep on the monotonic clock) with EINVAL: sleep through select instead.
    time.sleep = lambda seconds: select.select([], [], [], seconds)

    from snowid import Generator
    from snowid.errors import SnowIdError
    from snowid.lease import open_lease

    url, offset_file, out = sys.argv[1:4]
    lease = open_lease(url)
    events = []
    lease.listeners.append(lambda e: events.append([e.kind, e.worker, e.ceiling_ms]))
    generator = Generator(fence=lease, max_wait_ms=100)
    batches, errors = [], {}
    generator.next_id()
    for offset_ms, seconds in ((0, 0.3), (5000, 1.2), (0, 0.3), (-5000, 1.2), (0, 0.5)):
        with open(offset_file + ".next", "w") as file:
            file.write(f"{offset_ms / 1000:+.3f}\\n")
        os.replace(offset_file + ".next", offset_file)
        phase = str(offset_ms)
        stop = time.monotonic() + seconds
        while time.monotonic() < stop:
            try:
                got = generator.next_ids(20)
            except SnowIdError as error:
                errors.setdefault(phase, []).append(error.code)
                time.sleep(0.02)
                continue
            batches.append([phase, got, len(events)])
            time.sleep(0.002)
    lease.close()
    with open(out, "w") as file:
        json.dump({"batches": batches, "events": events, "errors": errors}, file)
    """
)


def clock_steps(url: str, tmp: Path) -> None:
    """A holder process under libfaketime issues on worker 0 of ``url`` (its only worker)
    while its wall clock steps +5 s, back, -5 s and back. Ahead, its ids would need a
    ceiling the store caps at its own clock + span + max_skew: it refuses to issue rather
    than run past it. Behind, the generator refuses to go back. Then another process claims
    worker 0 and issues. Over both streams: no duplicate, the holder's ids strictly
    increasing and each within the ceiling it had acknowledged, the successor's grant above
    them."""
    offset_file = tmp / "faketime"
    offset_file.write_text("+0\n")
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}", **faketime_env(offset_file)}
    out = tmp / "out.json"
    done = subprocess.run(
        [sys.executable, "-c", CLOCK_CHILD, url, str(offset_file), str(out)],
        capture_output=True, text=True, timeout=90, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    events = report["events"]
    held: list[int] = []
    for phase, batch, seen in report["batches"]:
        acked = max(c for kind, w, c in events[:seen] if kind in ("claim", "extend") and w == 0)
        assert all(TWITTER.timestamp_of(v) <= acked for v in batch), phase
        held += batch
    assert held == sorted(set(held))  # strictly increasing: no duplicate, no step back
    # Ahead by 5 s, past every ceiling the store grants (its clock + span + max_skew): no
    # id, each call refused at the ceiling. Behind by 5 s: the generator refuses to go back.
    assert {phase for phase, _, _ in report["batches"]} == {"0"}
    assert set(report["errors"]["5000"]) == {"ceiling_reached"}
    assert set(report["errors"]["-5000"]) == {"clock_moved_backwards"}
    successor = open_store(url, claim_wait=10)
    with successor:
        grant = wait_for_claim(successor, 30)
        assert grant.start_ms > max(TWITTER.timestamp_of(v) for v in held)
        taken = Generator(fence=successor).next_ids(2000)
    assert_unique(held, taken)


# --- claimants at once ----------------------------------------------------------------------


def crowd_then_one_more(
    url: str,
    tmp: Path,
    started: Callable[[subprocess.Popen[bytes]], Any],
    *,
    processes: int,
    threads: int,
) -> None:
    """``processes`` x ``threads`` claimants released together on ``url``, whose range has
    exactly that many workers (tests/support/crowd.py; each process handed to ``started``,
    a cleanup that ends it): every claim succeeds, on distinct workers; then, while they
    still hold them, one more claimant is refused with NoFreeIdentityError."""
    refused: list[str] = []
    results = run_crowd(
        url,
        tmp,
        started,
        processes=processes,
        threads=threads,
        meanwhile=lambda: refused.append(one_more(url)),
    )
    assert len(results) == processes * threads
    assert [r for r in results if "code" in r] == []
    assert len({r["worker"] for r in results}) == processes * threads
    assert refused == ["refused"]


def fresh_claim_after_restore(
    url: str, save: Callable[[], None], restore: Callable[[], None]
) -> tuple[int, int]:
    """The store is saved (``save``); a holder claims worker 0, issues, renews three times
    and releases; the store is put back (``restore``); a fresh claimant claims and issues.
    Returns (the holder's acknowledged ceiling, the fresh grant's start); asserts no id of
    the two streams is the same. A store that saw the restore starts the grant above the
    ceiling; one that did not starts it at the saved copy's."""
    save()
    holder = Issuer(open_store(url))
    holder.start()
    wait_until(lambda: holder.lease.renewals >= 3, 30, "the holder to renew")
    holder.finish()
    acked = holder.acked_ceiling(0)  # its only worker
    holder.lease.close()
    restore()
    fresh = open_store(url, claim_wait=30)
    with fresh:
        grant = wait_for_claim(fresh, 30)
        taken = Generator(fence=fresh).next_ids(2000)
    assert_unique(holder.ids, taken)
    return acked, grant.start_ms
