"""snowid.next_id(): one generator per process, configured once, never a silent identity."""

from __future__ import annotations

import asyncio
import itertools
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import snowid
from snowid import SnowId
from snowid.errors import (
    AlreadyConfiguredError,
    ClockPolicyError,
    ForkedGeneratorError,
    InvalidLeaseUrlError,
    InvalidValueError,
    NotConfiguredError,
    StaticIdentityInUseError,
    WrongTypeError,
)
from snowid.generate import default_action, install_stop_handlers
from snowid.process import _default
from tests.support.process_wide import process_wide, run_in_child, worker_of

__all__ = ["process_wide"]  # the fixture, imported for the tests below

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


@pytest.fixture
def unconfigured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """Nothing configured, no SNOWID_LEASE, and the default state dir moved to tmp_path."""
    monkeypatch.delenv("SNOWID_LEASE", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    _default._reset()
    yield tmp_path
    _default._reset()


def _subprocess(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "SNOWID_LEASE"} | env
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        env=environ,
        check=False,
    )


# --- configuration ------------------------------------------------------------------


def test_unconfigured_first_call_names_the_choices_and_claims_nothing(
    unconfigured: Path,
) -> None:
    for call in (
        snowid.next_id,
        lambda: snowid.next_ids(3),
        lambda: asyncio.run(snowid.anext_id()),
    ):
        with pytest.raises(NotConfiguredError) as caught:
            call()
        message = str(caught.value)
        for choice in ("snowid.configure(lease=", "SNOWID_LEASE", "file:", "postgresql://"):
            assert choice in message
        assert "SNOWID_LEASE" in caught.value.message("vi")
    # no silent file: default, although file slots would work on this host
    assert not (unconfigured / "state").exists()


def test_file_slots_work_when_chosen_explicitly(unconfigured: Path) -> None:
    snowid.configure(lease="file:")
    first = snowid.next_id()
    assert isinstance(first, SnowId)
    assert any((unconfigured / "state" / "snowid").iterdir())


def test_the_environment_variable_configures_it(
    unconfigured: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SNOWID_LEASE", f"file://{unconfigured}/from-env")
    snowid.next_id()
    assert any((unconfigured / "from-env").iterdir())
    # and, once in use, another lease cannot be configured over it
    with pytest.raises(AlreadyConfiguredError):
        snowid.configure(lease=f"file://{unconfigured}/other")
    snowid.configure(lease=f"file://{unconfigured}/from-env")  # the same one is fine


@pytest.mark.parametrize("url", ["http://example.invalid/", "file:///tmp/x?rnage=0-7"])
def test_a_bad_environment_variable_is_refused_at_the_first_id_as_configure_refuses_it(
    unconfigured: Path, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    with pytest.raises(InvalidLeaseUrlError) as by_configure:
        snowid.configure(lease=url)
    monkeypatch.setenv("SNOWID_LEASE", f"  {url} ")
    for _ in range(2):  # nothing half-built stays behind: the second call refuses again
        with pytest.raises(InvalidLeaseUrlError) as at_first_id:
            snowid.next_id()
        assert at_first_id.value.reason == by_configure.value.reason
        assert str(at_first_id.value) == str(by_configure.value)


def test_configure_takes_precedence_over_the_environment(
    unconfigured: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SNOWID_LEASE", f"file://{unconfigured}/from-env")
    snowid.configure(lease=f"file://{unconfigured}/configured")
    snowid.next_id()
    assert any((unconfigured / "configured").iterdir())
    assert not (unconfigured / "from-env").exists()


def test_configuring_another_lease_is_an_error_and_hides_passwords(unconfigured: Path) -> None:
    snowid.configure(lease="postgresql://app:s3cret@127.0.0.1/test")
    snowid.configure(lease="postgresql://app:s3cret@127.0.0.1/test")  # the same: no-op
    with pytest.raises(AlreadyConfiguredError) as caught:
        snowid.configure(lease="postgresql://app:s3cret@127.0.0.1/other")
    message = str(caught.value)
    assert "postgresql://127.0.0.1/other" in message
    assert "postgresql://127.0.0.1/test" in message
    assert "s3cret" not in message + caught.value.message("vi")


@pytest.mark.parametrize(
    ("lease", "error"),
    [
        ("", InvalidLeaseUrlError),
        ("   ", InvalidLeaseUrlError),
        ("http://example.invalid/", InvalidLeaseUrlError),
        ("file:///tmp/x?rnage=0-7", InvalidLeaseUrlError),  # a typo is caught at configure
        ("static://1/32", InvalidLeaseUrlError),
        (None, InvalidValueError),
        (12, InvalidValueError),
    ],
)
def test_configure_checks_the_url_at_once(
    unconfigured: Path, lease: object, error: type[Exception]
) -> None:
    with pytest.raises(error) as caught:
        snowid.configure(lease=lease)  # type: ignore[arg-type]
    assert "lease" in str(caught.value)
    with pytest.raises(NotConfiguredError):  # and nothing was configured
        snowid.next_id()


# --- threads, asyncio, fork -----------------------------------------------------------


def test_four_threads_get_unique_ids(process_wide: str) -> None:
    results: list[list[SnowId]] = [[] for _ in range(4)]
    barrier = threading.Barrier(4)

    def work(slot: int) -> None:
        barrier.wait()  # all four race for the first use (the build) too
        for _ in range(50):
            results[slot].append(snowid.next_id())
            results[slot] += snowid.next_ids(100)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    everything = [value for ids in results for value in ids]
    assert len(everything) == 4 * 50 * 101
    assert len(set(everything)) == len(everything)
    assert len({worker_of(value) for value in everything}) == 1  # one generator, one identity
    for ids in results:
        assert all(a < b for a, b in itertools.pairwise(ids))


def test_asyncio_callers_get_unique_ids(process_wide: str) -> None:
    """2000 tasks race from the first use on (the claim is awaited, not blocking)."""

    async def main() -> list[SnowId]:
        return list(await asyncio.gather(*(snowid.anext_id() for _ in range(2000))))

    ids = asyncio.run(main())
    assert len(set(ids)) == 2000
    assert all(isinstance(value, SnowId) for value in ids)


@needs_fork
def test_a_forked_child_claims_its_own_identity(process_wide: str) -> None:
    parent = snowid.next_ids(1000)
    child = run_in_child(lambda: snowid.next_ids(1000))
    assert len(set(parent) | set(child)) == 2000
    assert worker_of(child[0]) != worker_of(parent[0])
    assert snowid.next_id() > parent[-1]  # the parent goes on under its own identity


@needs_fork
def test_pre_forked_workers_each_claim_their_own_identity(process_wide: str) -> None:
    """gunicorn/uvicorn --workers: the master configures, never issues, then forks."""
    results = [run_in_child(lambda: snowid.next_ids(500)) for _ in range(3)]
    everything = [value for ids in results for value in ids]
    assert len(set(everything)) == 1500
    assert all(isinstance(value, SnowId) for value in everything)


@needs_fork
def test_a_forked_child_has_the_default_sigterm_until_it_starts_a_generator(
    process_wide: str,
) -> None:
    """Issue 24: a child gets SIGTERM's default action back at the fork (it holds no
    identity, and snowid's handler, written in Python, can miss a SIGTERM); once it claims
    one on its main thread, the handler that gives the identity back at a stop is chained
    again in front of that default action."""
    saved = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        assert install_stop_handlers()  # as ``import snowid`` leaves a process of its own

        def child() -> tuple[bool, bool]:
            at_fork = signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
            snowid.next_id()
            current = signal.getsignal(signal.SIGTERM)
            return at_fork, current != signal.SIG_DFL and default_action(signal.SIGTERM)

        assert run_in_child(child) == (True, True)
    finally:
        signal.signal(signal.SIGTERM, saved)


# --- a static identity is one process's only ---------------------------------------------


@needs_fork
def test_a_static_identity_is_refused_in_a_forked_child(unconfigured: Path) -> None:
    snowid.configure(lease="static://31/1")
    snowid.next_id()
    with pytest.raises(ForkedGeneratorError) as caught:
        run_in_child(snowid.next_id)
    assert (caught.value.datacenter, caught.value.machine) == (31, 1)


@needs_fork
@linux_only
def test_a_static_identity_is_taken_by_the_first_pre_forked_worker_only(
    unconfigured: Path,
) -> None:
    """The master configures static:, never issues; worker 1 takes it; worker 2 is refused."""
    snowid.configure(lease="static://31/2")
    go, hold = os.pipe()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # worker 1: issues, says so, and keeps the identity until told to stop
        try:
            os.close(hold)
            snowid.next_id()
            os.write(write_fd, b"ok")
            os.read(go, 1)  # returns at the parent's byte, or at its exit
        finally:
            os._exit(0)
    os.close(write_fd)  # a worker that dies early then reads as b"", not as a hang
    os.close(go)
    try:
        assert os.read(read_fd, 2) == b"ok"
        with pytest.raises(StaticIdentityInUseError) as caught:
            run_in_child(snowid.next_id)  # worker 2
        assert "31" in str(caught.value)
        with pytest.raises(StaticIdentityInUseError):
            snowid.next_id()  # the master itself, too
    finally:
        os.write(hold, b"x")
        os.waitpid(pid, 0)
        os.close(hold)
        os.close(read_fd)
    assert isinstance(snowid.next_id(), SnowId)  # worker 1 is gone: the identity is free


@linux_only
def test_a_static_identity_is_refused_in_another_process_of_this_host(unconfigured: Path) -> None:
    snowid.configure(lease="static://31/3")
    snowid.next_id()
    code = """
        import snowid
        from snowid.errors import StaticIdentityInUseError
        snowid.configure(lease="static://31/3")
        try:
            snowid.next_id()
        except StaticIdentityInUseError as error:
            print(error.code)
        """
    assert _subprocess(code).stdout.strip() == "static_identity_in_use"
    _default._reset()  # this process lets go of it
    assert _subprocess(code).stdout.strip() == ""  # the other process issues


def test_a_static_identity_with_a_state_dir_is_locked_across_processes(unconfigured: Path) -> None:
    """Changed on purpose (issue 16): the host's guard refuses the second process before
    its slot lock would (NoFreeIdentityError before), naming the holder."""
    url = f"static://31/4?state_dir={unconfigured}/static"
    snowid.configure(lease=url)
    snowid.next_id()
    done = _subprocess(
        f"""
        import snowid
        snowid.configure(lease={url!r})
        snowid.next_id()
        """
    )
    assert done.returncode != 0
    assert StaticIdentityInUseError.__name__ in done.stderr
    assert f"process {os.getpid()}" in done.stderr


@pytest.mark.parametrize(("count", "given"), [(2.0, "float"), ("5", "str"), (True, "bool")])
def test_next_ids_takes_an_int_and_says_so_before_claiming_anything(
    unconfigured: Path, count: object, given: str
) -> None:
    """Changed on purpose (issue 16): next_ids(2.0) and next_ids('5') were accepted. The
    wrong type is refused at the entry, before a lease is looked for or claimed."""
    with pytest.raises(WrongTypeError) as caught:
        snowid.next_ids(count)  # type: ignore[arg-type]
    assert caught.value.function == "snowid.next_ids()"
    assert caught.value.given_type == given
    assert _default._state.generator is None  # nothing was built or claimed


def test_close_gives_the_identity_back_and_a_later_next_id_claims_again(
    process_wide: str,
) -> None:
    """snowid.close(): idempotent; the slot is free at once; next_id() starts again."""
    from snowid.lease import lease_status

    first = snowid.next_id()
    assert [row.worker for row in lease_status(process_wide) if row.held] != []
    snowid.close()
    snowid.close()
    assert not _default.started()
    assert [row.worker for row in lease_status(process_wide) if row.held] == []
    again = snowid.next_id()
    assert again > first


def test_warm_up_claims_before_the_first_id(process_wide: str) -> None:
    snowid.warm_up()
    lease = _default._state.lease
    assert lease is not None
    assert lease.state == "held"


# --- the clock-back policy -------------------------------------------------------------


def test_the_clock_back_policy_comes_from_configure_else_snowid_clock_back(
    unconfigured: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SNOWID_CLOCK_BACK", raising=False)
    snowid.configure(lease=f"file://{unconfigured}/a")
    snowid.next_id()
    assert _default._state.generator is not None
    assert str(_default._state.generator.clock_back) == "ride:5"  # the default, as before
    _default._reset()
    monkeypatch.setenv("SNOWID_CLOCK_BACK", " wait:200 ")
    snowid.configure(lease=f"file://{unconfigured}/a")
    snowid.next_id()
    assert str(_default._state.generator.clock_back) == "wait:200"
    _default._reset()
    snowid.configure(lease=f"file://{unconfigured}/a", clock_back="logical:100")
    snowid.next_id()
    assert str(_default._state.generator.clock_back) == "logical:100"
    with pytest.raises(AlreadyConfiguredError) as caught:
        snowid.configure(lease=f"file://{unconfigured}/a", clock_back="raise")
    assert (caught.value.field, caught.value.current) == ("clock_back", "logical:100")


def test_a_bad_or_unsafe_clock_back_policy_is_refused_naming_where_it_came_from(
    unconfigured: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ClockPolicyError) as caught:  # a static identity keeps no mark
        snowid.configure(lease="static://1/1", clock_back="logical:5")
    assert caught.value.reason == "no_mark"
    with pytest.raises(ClockPolicyError) as caught:  # a file slot's mark leads by 250 ms
        snowid.configure(lease=f"file://{unconfigured}/a", clock_back="logical:251")
    assert (caught.value.reason, caught.value.max) == ("lead", 250)
    monkeypatch.setenv("SNOWID_CLOCK_BACK", "soon")
    monkeypatch.setenv("SNOWID_LEASE", f"file://{unconfigured}/a")
    with pytest.raises(ClockPolicyError) as caught:
        snowid.next_id()
    assert caught.value.field == "SNOWID_CLOCK_BACK"
    assert "SNOWID_CLOCK_BACK soon" in str(caught.value)
    assert not _default.started()
