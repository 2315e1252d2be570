"""Stress the client's fork test: many runs, each with a per-run timeout; a hang is dumped.

Each run is a fresh Python process with the shape of
``tests/client/test_client_serve.py::test_forked_processes_share_a_client_against_snowid_serve_without_a_duplicate``:
a ``Client`` whose refill thread is alive, a fork ``multiprocessing.Pool(3)`` whose workers
take ids from the inherited client, ``pool.map``, then the pool's ``__exit__`` (which
terminates the workers with SIGTERM) and more ids in the parent; every id is checked
unique. One ``snowid serve`` (two workers, token, file slots) serves all the runs.

A run that does not finish within ``--timeout`` seconds is a hang: the script saves, for the
run's process and each of its children, ``py-spy dump`` (when py-spy is installed) and each
thread's state, signal masks and ``wchan`` from ``/proc``, then kills the run's process
group and goes on. ``--burners N`` keeps N CPU burners busy at normal priority meanwhile.

    .venv/bin/python scripts/stress_client_fork.py --runs 200 --burners 2

Exit status 0 only when every run finished without a hang or a failure.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

TOKEN = "stress-token"  # noqa: S105  (the bearer token of the script's own server)
_shared: list[object] = []  # the client the pool's forked processes inherit


def _take_inherited(count: int) -> list[int]:
    client = _shared[0]
    return [client.next_id() for _ in range(count)]  # type: ignore[attr-defined]


def one_run(url: str) -> None:
    """The test's shape, in this process (the run's child process)."""
    from snowid.client import Client

    client = Client(url, token=TOKEN, batch=1000, retries=1)
    first = [client.next_id() for _ in range(1500)]  # one batch in use, the next buffered
    _shared[:] = [client]
    with multiprocessing.get_context("fork").Pool(3) as pool:  # forks here
        children = pool.map(_take_inherited, [4000] * 3)
    last = [client.next_id() for _ in range(1500)]
    every = first + last + [i for ids in children for i in ids]
    client.close()
    if len(every) != len(set(every)) or len(every) != 3000 + 3 * 4000:
        sys.exit(f"duplicate or missing ids: {len(every)} ids, {len(set(every))} distinct")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def _serve(workdir: Path) -> Iterator[str]:
    """``snowid serve`` with two workers, token auth and file slots, until the block ends."""
    tokens = workdir / "tokens"
    tokens.write_text(f"{TOKEN}\n")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SNOWID_")}
    env |= {"SNOWID_LANG": "en", "SNOWID_DRAIN_SECONDS": "0"}
    lease = f"file://{workdir / 'slots'}?allow_volatile=1"
    argv = [sys.executable, "-m", "snowid", "serve", "--port", str(port), "--workers", "2"]
    argv += ["--lease", lease, "--auth-token-file", str(tokens)]
    log = workdir / "serve.log"
    with log.open("w") as out:
        server = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if server.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"snowid serve did not start:\n{log.read_text()}")
            health = f"{url}/healthz"  # http://127.0.0.1: the script's own server
            with contextlib.suppress(OSError), urllib.request.urlopen(health, timeout=2) as got:  # noqa: S310
                if got.status == 200:
                    break
            time.sleep(0.2)
        yield url
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(5)


@contextlib.contextmanager
def _burners(count: int) -> Iterator[None]:
    code = "while True: pass"
    started = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(count)]
    try:
        yield
    finally:
        for burner in started:
            burner.kill()
            burner.wait()


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                text = Path(f"/proc/{pid}/task/{task}/children").read_text()
                for child in text.split():
                    found += [int(child), *_descendants(int(child))]
    return found


def _threads(pid: int) -> str:
    """Each thread's name, state, signal masks and wait channel, from /proc."""
    keep = ("Name:", "State:", "SigPnd:", "ShdPnd:", "SigBlk:", "SigIgn:", "SigCgt:")
    lines = [f"== pid {pid}"]
    with contextlib.suppress(OSError):
        for task in sorted(os.listdir(f"/proc/{pid}/task"), key=int):
            base = f"/proc/{pid}/task/{task}"
            with contextlib.suppress(OSError):
                status = Path(f"{base}/status").read_text().splitlines()
                wchan = Path(f"{base}/wchan").read_text()
                fields = [line.split(None, 1)[-1] for line in status if line.startswith(keep)]
                lines.append(f"  tid {task}: {' | '.join(fields)} | wchan {wchan}")
    return "\n".join(lines)


def _dump(pid: int, out: Path) -> None:
    """What every process of a hung run is doing, into ``out``: each thread from /proc;
    the Python stacks (py-spy); CPython's flags of a signal whose C-level handler ran but
    whose Python handler has not run yet (gdb: ``is_tripped``, ``Handlers[15].tripped``
    for SIGTERM)."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    gdb = shutil.which("gdb")
    parts: list[str] = []
    for each in [pid, *_descendants(pid)]:
        parts.append(_threads(each))
        if Path(spy).exists():
            parts.append(_run([spy, "dump", "--pid", str(each)]))
        if gdb is not None:
            flags = ["-ex", "p is_tripped", "-ex", "p Handlers[15].tripped"]
            answer = _run([gdb, "-p", str(each), "-batch", "-nx", *flags])
            parts.append("".join(line for line in answer.splitlines(True) if "$" in line))
    out.write_text("\n".join(parts))


def _run(argv: list[str]) -> str:
    try:
        done = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{argv[0]}: {error}\n"
    return done.stdout + done.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--burners", type=int, default=2, help="CPU burners meanwhile")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds a run may take")
    parser.add_argument("--dumps", type=Path, default=Path("stress-fork-dumps"))
    parser.add_argument("--one", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        one_run(args.one)
        return 0
    # Stopped with SIGTERM (or SIGINT, which a shell may have set to be ignored): the
    # server and the burners are stopped on the way out.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    counts = {"ok": 0, "hang": 0, "failed": 0}
    longest = 0.0
    began = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp, _serve(Path(tmp)) as url, _burners(args.burners):
        for run in range(1, args.runs + 1):
            start = time.monotonic()
            outcome = _one(url, run, args.timeout, args.dumps)
            counts[outcome] += 1
            if outcome == "ok":
                longest = max(longest, time.monotonic() - start)
            if outcome != "ok" or run % 10 == 0:
                print(f"run {run}: {outcome} ({time.monotonic() - start:.1f} s)", flush=True)
    minutes = (time.monotonic() - began) / 60
    print(
        f"{args.runs} runs: {counts['ok']} ok, {counts['hang']} hangs, {counts['failed']}"
        f" failed; {args.burners} burners; longest finished run {longest:.1f} s;"
        f" {minutes:.1f} min in all"
    )
    return 0 if counts["ok"] == args.runs else 1


def _one(url: str, run: int, timeout: float, dumps: Path) -> str:
    """One run in a process group of its own: "ok", "failed" or "hang" (dumped)."""
    process = subprocess.Popen([sys.executable, __file__, "--one", url], start_new_session=True)
    try:
        status = process.wait(timeout)
    except subprocess.TimeoutExpired:
        dumps.mkdir(parents=True, exist_ok=True)
        out = dumps / f"hang-run{run}-pid{process.pid}.txt"
        _dump(process.pid, out)
        print(f"run {run}: no exit after {timeout:.0f} s; what it was doing: {out}")
        return "hang"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # the run's own group: what is left
        process.wait()
    return "ok" if status == 0 else "failed"


if __name__ == "__main__":
    sys.exit(main())
