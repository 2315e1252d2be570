"""Many lease claimants at once, from a few processes of threads (not one interpreter each).

    python -m tests.support.crowd URL THREADS GO OUT

Each of ``THREADS`` threads opens its own lease on ``URL`` (its own connection), then all
wait until the file ``GO`` exists (the test creates it once every process is ready, so the
claims start together), claim (``acquire``) and write one JSON line per thread to ``OUT``:
the worker claimed or the error's code, and the wall-clock time the claim ended. The
process writes ``OUT.ready`` when its leases are open, and exits once every claim is
written, closing its leases (a release each) only when ``GO.release`` exists, so that
claims of other processes never find a worker freed by this one.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

from snowid import TWITTER
from snowid.errors import SnowIdError
from snowid.lease import open_lease


def main(argv: list[str]) -> int:
    url, threads, go, out = argv[0], int(argv[1]), Path(argv[2]), Path(argv[3])
    leases = [open_lease(url) for _ in range(threads)]
    results: list[dict[str, object]] = []
    lock = threading.Lock()

    def claim(index: int) -> None:
        while not go.exists():
            time.sleep(0.005)
        try:
            grant = leases[index].acquire(0)
            found: dict[str, object] = {"worker": TWITTER.worker(grant.datacenter, grant.machine)}
        except SnowIdError as error:
            found = {"code": error.code, "message": str(error)[:300]}
        found["at"] = time.time()
        with lock:
            results.append(found)

    workers = [threading.Thread(target=claim, args=(i,), daemon=True) for i in range(threads)]
    for worker in workers:
        worker.start()
    Path(f"{out}.ready").write_text(str(os.getpid()))
    for worker in workers:
        worker.join(120)
    out.write_text("".join(json.dumps(r) + "\n" for r in results))
    release = Path(f"{go}.release")
    deadline = time.monotonic() + 120
    while not release.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    for lease in leases:
        lease.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
