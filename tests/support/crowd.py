"""Many lease claimants at once, from a few processes of threads (not one interpreter each).

``run_crowd(url, tmp, start)`` runs ``processes`` of these, ``threads`` claimants each,
released together, and gives every claim's result; ``one_more(url)`` says whether one more
claimant is refused meanwhile (tests/lease/test_etcd_faults.py,
tests/lease/test_zookeeper_faults.py, bench/bench_lease_crowd.py). One process of it:

    python -m tests.support.crowd URL THREADS GO OUT

Each of ``THREADS`` threads opens its own lease on ``URL`` (its own connection), then all
wait until the file ``GO`` exists (the test creates it once every process is ready, so the
claims start together), claim (``acquire``) and write one JSON line per thread to ``OUT``:
the worker claimed or the error's code, how often the store was unreachable (each time the
claim is tried again, as an application's next id would, for up to 2 minutes), and the
wall-clock time the claim ended. The process writes ``OUT.ready`` when its leases are
open, and exits once every claim is written, closing its leases (a release each) only when ``GO.release`` exists, so that
claims of other processes never find a worker freed by this one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from snowid import TWITTER
from snowid.errors import SnowIdError, StoreUnreachableError
from snowid.lease import open_lease

ROOT = Path(__file__).resolve().parents[2]


def crowd_url(scheme: str, hosts: list[str], prefix: str, query: str = "ttl=60&timeout=30") -> str:
    """A lease URL (``etcd``, ``zookeeper``) for a crowd, set up as a first deployment: a
    long TTL (no renewal while the claims run) and a long timeout (a harness margin for a
    busy machine)."""
    from snowid.lease import init_lease

    url = f"{scheme}://{','.join(hosts)}/{prefix}?{query}"
    init_lease(url, first_deployment=True)
    return url


def one_more(url: str) -> str:
    """One more claimant on ``url`` while a crowd holds every identity: "refused" (with
    the usual NoFreeIdentityError), else what it got instead."""
    from snowid.errors import NoFreeIdentityError

    with open_lease(url, claim_wait=2) as extra:
        try:
            grant = extra.acquire(0)
        except NoFreeIdentityError:
            return "refused"
        except SnowIdError as error:
            return f"NOT refused: {error.code}"
    return f"NOT refused: got worker {TWITTER.worker(grant.datacenter, grant.machine)}"


def run_crowd(
    url: str,
    tmp: Path,
    started: Callable[[subprocess.Popen[bytes]], Any],
    *,
    processes: int = 4,
    threads: int = 256,
    meanwhile: Callable[[], Any] = lambda: None,
    command: Callable[[int, Path, Path], list[str]] | None = None,
) -> list[dict[str, Any]]:
    """``processes`` x ``threads`` claims on ``url`` released at once: one dict per claim
    (``worker`` or ``code``/``message``; ``at``, and ``go``: when they were released, both
    wall-clock seconds). Each process is handed to ``started`` (a cleanup that ends it).
    Once every claim is in, ``meanwhile()`` runs while the claimants still hold their
    identities; then they release them and end. ``command(index, go, out)`` is another
    program for the processes, which keeps this module's files and lines
    (bench/bench_lease_floor.py)."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"}
    go = tmp / "go"
    outs = [tmp / f"crowd{i}" for i in range(processes)]
    argv = [sys.executable, "-m", "tests.support.crowd", url, str(threads), str(go)]
    commands = [command(i, go, out) if command else [*argv, str(out)] for i, out in enumerate(outs)]
    procs = [subprocess.Popen(cmd, cwd=ROOT, env=env) for cmd in commands]
    for proc in procs:
        started(proc)
    try:
        for out in outs:
            _wait_for(Path(f"{out}.ready"), procs)
        released = time.time()
        go.touch()
        for out in outs:
            _wait_for(out, procs)
        results = [
            {**json.loads(line), "go": released}
            for out in outs
            for line in out.read_text().splitlines()
        ]
        meanwhile()
        return results
    finally:
        Path(f"{go}.release").touch()
        for proc in procs:
            proc.wait(60)


def _wait_for(path: Path, procs: list[subprocess.Popen[bytes]], seconds: float = 300) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        failed = [p.returncode for p in procs if p.poll() not in (None, 0)]
        if failed or time.monotonic() > deadline:
            raise AssertionError(f"no {path.name} (crowd processes ended with {failed})")
        time.sleep(0.01)


def released_together(claim: Callable[[int], None], threads: int, go: Path, out: Path) -> None:
    """``claim(0)`` … ``claim(threads - 1)``, each in a thread of its own, all released at
    once when the file ``go`` exists (``OUT.ready`` says they are waiting for it); back
    when every one has ended (or after 300 s each)."""
    released = threading.Event()  # one poller, not a thousand threads polling the file

    def run(index: int) -> None:
        released.wait()
        claim(index)

    workers = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(threads)]
    for worker in workers:
        worker.start()
    Path(f"{out}.ready").write_text(str(os.getpid()))
    while not go.exists():
        time.sleep(0.002)
    released.set()
    for worker in workers:
        worker.join(300)


def write_whole(out: Path, text: str) -> None:
    """``text`` into ``out``, which is there whole or not at all (a poller reads it)."""
    partial = Path(f"{out}.partial")
    partial.write_text(text)
    partial.replace(out)


def main(argv: list[str]) -> int:
    url, threads, go, out = argv[0], int(argv[1]), Path(argv[2]), Path(argv[3])
    leases = [open_lease(url) for _ in range(threads)]
    results: list[dict[str, object]] = []
    lock = threading.Lock()

    def claim(index: int) -> None:
        retries, deadline = 0, time.monotonic() + 120
        while True:
            try:
                grant = leases[index].acquire(0)
                worker = TWITTER.worker(grant.datacenter, grant.machine)
                found: dict[str, object] = {"worker": worker, "retries": retries}
            except StoreUnreachableError:  # what an application's next id does: try again
                if time.monotonic() < deadline:
                    retries += 1
                    continue
                raise
            except SnowIdError as error:
                found = {"code": error.code, "message": str(error)[:300], "retries": retries}
            break
        found["at"] = time.time()
        with lock:
            results.append(found)

    released_together(claim, threads, go, out)
    write_whole(out, "".join(json.dumps(r) + "\n" for r in results))
    release = Path(f"{go}.release")
    deadline = time.monotonic() + 300
    while not release.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    for lease in leases:
        lease.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
