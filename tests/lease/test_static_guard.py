"""A static identity is used by one process at a time, whatever the entry point (issue 16 §3).

docs/leases.md, the ``static:`` section and failure case 12. One process holds an identity
through one entry point (a library ``static:`` lease with or without ``state_dir``, the
process-wide ``snowid.next_id()``, ``snowid generate --lease static:…``, ``snowid generate
--datacenter --machine``, ``snowid serve``); a second one through another is refused with
StaticIdentityInUseError naming the identity and the holder's pid before its first id (it
writes none); once the holder has gone, the identity is usable again at once. A plain
``Generator(datacenter, machine)`` is not guarded: that stays the caller's promise.
"""

from __future__ import annotations

import os
import pickle
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from snowid import TWITTER, Generator
from snowid.errors import ForkedGeneratorError, NoFreeIdentityError, StaticIdentityInUseError
from snowid.lease import open_lease
from snowid.testing import FakeClock
from tests.support.process_wide import run_in_child
from tests.web.test_serve import STARTED, running_serve

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the guard needs Linux's abstract sockets"
)

DATACENTER = 29  # no other test uses it: the guard is host-wide
ENV = {k: v for k, v in os.environ.items() if not k.startswith("SNOWID_")} | {"SNOWID_LANG": "en"}
IN_USE = re.compile(r"^Error: datacenter \d+, machine \d+ is already held by process (\d+)", re.M)


def _url(machine: int, state_dir: Path | None) -> str:
    url = f"static://{DATACENTER}/{machine}"
    return url if state_dir is None else f"{url}?state_dir={state_dir}"


def _argv(entry: str, machine: int, state_dir: Path | None, *, hold: bool) -> list[str]:
    """The command that issues under (DATACENTER, machine) through ``entry``; with ``hold``
    it keeps the identity, after printing its first id, until its pipes are closed."""
    url = _url(machine, state_dir)
    if entry in ("library", "process_wide"):
        kind = "lease" if entry == "library" else "process_wide"
        argv = ["-m", "tests.support.static_user", kind, url, *(["--hold"] if hold else [])]
    else:  # `snowid generate`: a holder blocks writing to a pipe nobody reads, identity held
        count = ["--count", "10000000" if hold else "1"]
        fixed = ["--datacenter", str(DATACENTER), "--machine", str(machine)]
        assert entry == "cli_lease" or state_dir is None
        argv = [
            "-m",
            "snowid",
            "generate",
            *count,
            *(["--lease", url] if entry == "cli_lease" else fixed),
        ]
    return [sys.executable, *argv]


@contextmanager
def holding(argv: list[str]) -> Iterator[int]:
    """Run ``argv`` until the block ends; yields its pid once it has issued its first id."""
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV
    )
    assert process.stdin is not None
    assert process.stdout is not None
    try:
        first = process.stdout.readline()
        assert first.strip(), process.communicate(timeout=30)
        yield process.pid
    finally:
        process.stdin.close()
        process.stdout.close()  # a `snowid generate` holder stops at its next write
        process.wait(30)
        assert process.stderr is not None
        process.stderr.close()


@dataclass
class Outcome:
    ids: int
    code: str | None = None
    pid: int | None = None


def attempt(argv: list[str]) -> Outcome:
    """Run a second process to its end: how many ids it wrote, and its error."""
    done = subprocess.run(argv, capture_output=True, text=True, env=ENV, timeout=60, check=False)
    lines = done.stdout.splitlines()
    ids = sum(1 for line in lines if line.isdigit() or line.startswith("id "))
    reported = re.fullmatch(r"error (\S+) (\S+)", lines[0]) if lines else None
    if reported:  # tests.support.static_user
        pid = reported.group(2)
        return Outcome(ids, reported.group(1), None if pid == "-" else int(pid))
    refused = IN_USE.search(done.stderr)  # the CLI: exit 1 and its message
    if refused:
        assert done.returncode == 1
        return Outcome(ids, StaticIdentityInUseError.code, int(refused.group(1)))
    assert done.returncode == 0, done.stderr
    return Outcome(ids)


def _two_processes(
    holder: tuple[str, Path | None], second: tuple[str, Path | None], machine: int
) -> None:
    with holding(_argv(holder[0], machine, holder[1], hold=True)) as pid:
        refused = attempt(_argv(second[0], machine, second[1], hold=False))
        assert refused == Outcome(0, StaticIdentityInUseError.code, pid)
    assert attempt(_argv(second[0], machine, second[1], hold=False)) == Outcome(1)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("machine", "entry", "state_dirs"),
    [
        (1, "library", False),
        (2, "library", True),  # two different state_dirs: the slot lock cannot see it
        (3, "process_wide", False),
        (4, "cli_lease", False),
        (5, "cli_lease", True),
        (6, "cli_fixed", False),
    ],
)
def test_a_second_process_through_the_same_entry_point_is_refused_before_its_first_id(
    tmp_path: Path, machine: int, entry: str, state_dirs: bool
) -> None:
    first, second = (tmp_path / "a", tmp_path / "b") if state_dirs else (None, None)
    _two_processes((entry, first), (entry, second), machine)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("machine", "holder", "second"),
    [
        (7, ("library", "a"), ("library", None)),  # with, then without state_dir
        (8, ("library", None), ("library", "a")),  # without, then with
        (9, ("cli_fixed", None), ("library", None)),  # --datacenter/--machine and static:
        (10, ("library", None), ("cli_fixed", None)),
        (11, ("process_wide", "a"), ("cli_lease", None)),
    ],
)
def test_one_guard_covers_every_entry_point_and_state_dir(
    tmp_path: Path, machine: int, holder: tuple[str, str | None], second: tuple[str, str | None]
) -> None:
    def place(entry: tuple[str, str | None]) -> tuple[str, Path | None]:
        return entry[0], None if entry[1] is None else tmp_path / entry[1]

    _two_processes(place(holder), place(second), machine)


@pytest.mark.slow
def test_a_second_snowid_serve_is_refused_until_the_first_stops(tmp_path: Path) -> None:
    """It starts (not ready; /api/ids answers 503 with the code; its log names the holder),
    issues nothing, and issues as soon as the first one has stopped."""
    lease = ["--lease", f"static://{DATACENTER}/12"]
    with ExitStack() as holder:
        first = holder.enter_context(running_serve(lease, tmp_path / "first.log", port=0))
        (pid, *_), *_ = STARTED.findall((tmp_path / "first.log").read_text())
        with running_serve(lease, tmp_path / "second.log", port=0) as second:
            answer = httpx.post(f"{second}/api/ids?count=2")
            assert answer.status_code == 503, answer.text
            assert answer.json()["error"]["code"] == StaticIdentityInUseError.code
            assert httpx.get(f"{second}/readyz").status_code == 503
            assert f"held by process {pid} " in (tmp_path / "second.log").read_text()
            assert httpx.post(f"{first}/api/ids?count=2").status_code == 200
            holder.close()  # the first one stops
            ids = httpx.post(f"{second}/api/ids?count=2").json()["ids"]
    assert {TWITTER.decompose(int(value))[1:3] for value in ids} == {(DATACENTER, 12)}


# --- in this process -------------------------------------------------------------------


def test_a_second_lease_of_this_process_is_refused_and_the_identity_is_free_at_once_after(
    tmp_path: Path,
) -> None:
    """Two generators of one process on one identity would duplicate ids as surely."""
    first = open_lease(f"static://{DATACENTER}/20")
    second = open_lease(f"static://{DATACENTER}/20?state_dir={tmp_path / 'never-created'}")
    try:
        first.acquire(0)
        with pytest.raises(StaticIdentityInUseError) as caught:
            second.acquire(0)
        assert (caught.value.datacenter, caught.value.machine, caught.value.pid) == (
            DATACENTER,
            20,
            os.getpid(),
        )
        assert not (tmp_path / "never-created").exists()  # refused before the slot
        first.close()
        third = open_lease(f"static://{DATACENTER}/20")
        assert third.acquire(0).machine == 20
        third.close()
    finally:
        first.close()
        second.close()


def test_a_plain_generator_is_not_guarded() -> None:
    """``Generator(datacenter, machine)`` is the caller's promise (docs/leases.md)."""
    with open_lease(f"static://{DATACENTER}/21") as lease:
        lease.acquire(0)
        assert TWITTER.decompose(Generator(DATACENTER, 21).next_id())[1:3] == (DATACENTER, 21)


def test_without_the_holders_pid_the_error_still_names_the_identity() -> None:
    """A name bound by a socket that does not listen: the connect fails, no pid."""
    squatter = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    squatter.bind(f"\0snowid/static/{DATACENTER}/22".encode())
    try:
        with pytest.raises(StaticIdentityInUseError) as caught:
            open_lease(f"static://{DATACENTER}/22").acquire(0)
    finally:
        squatter.close()
    error = caught.value
    assert error.pid is None
    assert str(error).startswith(f"datacenter {DATACENTER}, machine 22 is already held by another")
    assert f"trung tâm dữ liệu {DATACENTER}, máy 22 đang được một tiến trình khác" in error.message(
        "vi"
    )
    assert (error.__cause__, error.__context__) == (None, None)
    held = StaticIdentityInUseError(datacenter=1, machine=2, pid=345)
    assert "held by process 345 " in str(held)
    assert "tiến trình 345 " in held.message("vi")
    assert pickle.loads(pickle.dumps(held)).pid == 345


def test_a_forked_child_does_not_keep_its_parents_guard() -> None:
    """The child's copy of the socket is closed at the fork: once the parent lets go, the
    identity is free although the child still runs."""
    lease = open_lease(f"static://{DATACENTER}/23")
    lease.acquire(0)
    ready_read, ready_write = os.pipe()
    stop_read, stop_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # says it runs (the fork hooks have run), then waits for the parent
        os.close(stop_write)
        os.write(ready_write, b"r")
        os.read(stop_read, 1)
        os._exit(0)
    os.close(stop_read)
    os.close(ready_write)
    try:
        assert os.read(ready_read, 1) == b"r"
        lease.close()
        with open_lease(f"static://{DATACENTER}/23") as again:
            assert again.acquire(0).machine == 23
    finally:
        os.close(stop_write)
        os.close(ready_read)
        os.waitpid(pid, 0)


def test_a_forked_child_claims_its_own_guard_and_is_refused_while_the_parent_holds(
    tmp_path: Path,
) -> None:
    with open_lease(f"static://{DATACENTER}/24?state_dir={tmp_path}") as lease:
        lease.acquire(0)
        with pytest.raises(StaticIdentityInUseError) as caught:
            run_in_child(lambda: lease.acquire(0))
        assert caught.value.pid == os.getpid()
    with open_lease(f"static://{DATACENTER}/25") as lease:
        lease.acquire(0)
        with pytest.raises(ForkedGeneratorError):  # as before: a child never shares it
            run_in_child(lambda: lease.acquire(0))


def test_a_new_holder_issues_after_the_millisecond_in_which_the_last_one_let_go() -> None:
    """Handed over within one millisecond (a frozen clock), the two never share an id."""
    clock = FakeClock()
    issued = []
    for _ in range(2):
        with open_lease(f"static://{DATACENTER}/26", clock=clock) as lease:
            issued += Generator(fence=lease, clock=clock).next_ids(100)
    assert len(set(issued)) == 200
    assert issued == sorted(issued)


@pytest.mark.slow
def test_another_network_namespace_is_not_seen_but_a_shared_state_dir_is(tmp_path: Path) -> None:
    """The documented limit (docs/leases.md, case 12): a holder in a network namespace of
    its own (a container with its own network) is invisible to the guard; only the slot
    lock of a state_dir both share refuses the second process."""
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-rn", "true"], check=False).returncode:
        pytest.skip("cannot create a network namespace here")
    python = [unshare, "-rn", sys.executable, "-m", "tests.support.static_user", "lease"]
    shared = f"static://{DATACENTER}/27?state_dir={tmp_path}"
    unseen = open_lease(f"static://{DATACENTER}/27")
    with holding([*python, f"static://{DATACENTER}/27", "--hold"]), unseen:
        assert unseen.acquire(0).machine == 27  # the operator's promise
    locked = open_lease(shared)
    with holding([*python, shared, "--hold"]), locked, pytest.raises(NoFreeIdentityError):
        locked.acquire(0)
