"""Kubernetes StatefulSet identities (``k8s:`` / ``ordinal:``), without a cluster: the pod
ordinal comes from environment variables and host names set by the test.

The ordinal (plus offset) picks the block of workers; file slots in the pod's state
directory pick one worker of it per process, so processes of one pod never share one.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from snowid import TWITTER, Generator
from snowid.errors import (
    InvalidLeaseUrlError,
    NoFreeIdentityError,
    OrdinalMissingError,
    OrdinalNotANumberError,
    OrdinalOutOfRangeError,
)
from snowid.lease import FileLease, lease_status, open_lease
from tests.support.procs import read_ids, start_worker, wait_all

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def pod(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No ordinal from the machine running the tests: each test sets its own."""
    monkeypatch.delenv("POD_INDEX", raising=False)
    monkeypatch.delenv("HOSTNAME", raising=False)
    monkeypatch.setattr(socket, "gethostname", lambda: "test-runner")
    return monkeypatch


def _open(query: str, state_dir: Path) -> FileLease:
    lease = open_lease(
        f"k8s:?state_dir={state_dir}&{query}" if query else f"k8s:?state_dir={state_dir}"
    )
    assert isinstance(lease, FileLease)
    return lease


def test_the_host_name_ordinal_is_the_datacenter(pod: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """HOSTNAME=ids-3 (a StatefulSet's pod 3): datacenter 3, a machine from a file slot;
    a second process in the same pod gets another machine of datacenter 3."""
    pod.setenv("HOSTNAME", "ids-3")
    with _open("", tmp_path) as first, _open("", tmp_path) as second:
        assert (first.first, first.last) == (96, 127)
        a, b = first.acquire(0), second.acquire(0)
        assert a.datacenter == b.datacenter == 3
        assert a.machine != b.machine
        ids = Generator(fence=first).next_ids(100) + Generator(fence=second).next_ids(100)
        assert {TWITTER.split_worker(TWITTER.worker_of(v))[0] for v in ids} == {3}
        assert len(set(ids)) == 200
    assert [r.datacenter for r in lease_status(f"k8s:?state_dir={tmp_path}")] == [3, 3]


def test_the_pod_index_variable_wins_and_its_name_is_an_option(
    pod: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The apps.kubernetes.io/pod-index label, passed by the downward API as POD_INDEX (or a
    variable named by ordinal_env), is used before the host name."""
    pod.setenv("HOSTNAME", "ids-3")
    pod.setenv("POD_INDEX", "7")
    with _open("", tmp_path) as lease:
        assert lease.acquire(0).datacenter == 7
    pod.setenv("INDEX_FROM_LABEL", "12")
    with _open("ordinal_env=INDEX_FROM_LABEL", tmp_path) as lease:
        assert lease.acquire(0).datacenter == 12
    with _open("ordinal_env=UNSET_VARIABLE", tmp_path) as lease:  # unset: the host name
        assert lease.acquire(0).datacenter == 3


def test_without_hostname_the_system_host_name_is_read(
    pod: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pod.setattr(socket, "gethostname", lambda: "ids-9.ids.default.svc")
    with _open("", tmp_path) as lease:
        assert lease.acquire(0).datacenter == 9


def test_offset_and_pod_bits_move_the_split(pod: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """offset=10: pod 3 is datacenter 13. pod_bits=6: 64 pods of 16 processes each, pod 40
    holds workers 640..655, and a 17th process of that pod finds no free identity."""
    pod.setenv("HOSTNAME", "ids-3")
    with _open("offset=10", tmp_path) as lease:
        assert lease.acquire(0).datacenter == 13
    pod.setenv("HOSTNAME", "ids-40")
    leases = [_open("pod_bits=6", tmp_path / "six") for _ in range(17)]
    try:
        assert (leases[0].first, leases[0].last) == (640, 655)
        workers = set()
        for lease in leases[:16]:
            grant = lease.acquire(0)
            workers.add(TWITTER.worker(grant.datacenter, grant.machine))
        assert workers == set(range(640, 656))
        with pytest.raises(NoFreeIdentityError):
            leases[16].acquire(0)
    finally:
        for lease in leases:
            lease.close()
    pod.setenv("HOSTNAME", "ids-1000")
    with _open("pod_bits=10", tmp_path / "ten") as lease:  # one process per pod
        assert (lease.first, lease.last) == (1000, 1000)


@pytest.mark.parametrize(
    ("variables", "query", "source", "value"),
    [
        ({"HOSTNAME": "ids"}, "", "$HOSTNAME", "ids"),
        ({"HOSTNAME": "ids-"}, "", "$HOSTNAME", "ids-"),
        ({"HOSTNAME": "ids-3a"}, "", "$HOSTNAME", "ids-3a"),
        ({"HOSTNAME": "ids-\u0663"}, "", "$HOSTNAME", "ids-\u0663"),  # Arabic-Indic 3
        ({}, "", "the host name", "test-runner"),
        ({"POD_INDEX": "three"}, "", "$POD_INDEX", "three"),
        ({"IDX": "3.0"}, "ordinal_env=IDX", "$IDX", "3.0"),
    ],
)
def test_no_ordinal_is_a_clear_error(
    pod: pytest.MonkeyPatch,
    tmp_path: Path,
    *,
    variables: dict[str, str],
    query: str,
    source: str,
    value: str,
) -> None:
    for name, text in variables.items():
        pod.setenv(name, text)
    with pytest.raises(OrdinalMissingError) as caught:
        _open(query, tmp_path)
    error = caught.value
    assert (error.source, error.value) == (source, value)
    english, vietnamese = str(error), error.message("vi")
    assert source in english
    assert source in vietnamese
    assert "StatefulSet" in english
    assert english != vietnamese


@pytest.mark.parametrize(
    ("hostname", "query", "ordinal", "offset", "maximum"),
    [
        ("ids-32", "", 32, 0, 31),
        ("ids-30", "offset=2", 30, 2, 31),
        ("ids-64", "pod_bits=6", 64, 0, 63),
        ("ids-999999999", "", 999999999, 0, 31),
    ],
)
def test_an_ordinal_out_of_range_is_a_clear_error(
    pod: pytest.MonkeyPatch,
    tmp_path: Path,
    *,
    hostname: str,
    query: str,
    ordinal: int,
    offset: int,
    maximum: int,
) -> None:
    pod.setenv("HOSTNAME", hostname)
    with pytest.raises(OrdinalOutOfRangeError) as caught:
        _open(query, tmp_path)
    error = caught.value
    assert (error.ordinal, error.offset, error.max) == (ordinal, offset, maximum)
    assert f"0..{maximum}" in str(error)
    assert f"0..{maximum}" in error.message("vi")


@pytest.mark.parametrize(
    ("variable", "text", "ordinal", "query", "allowed"),
    [
        ("POD_INDEX", "-1", -1, "", "0..31"),
        ("POD_INDEX", "-1", -1, "offset=5", "0..26"),  # -1 + 5 is a pod number, yet refused
        ("HOSTNAME", "ids-99999999999999999999999", 99999999999999999999999, "", "0..31"),
        ("POD_INDEX", "1" * 30, int("1" * 30), "offset=2", "0..29"),
    ],
)
def test_a_negative_or_huge_ordinal_is_out_of_range_not_missing(
    pod: pytest.MonkeyPatch,
    tmp_path: Path,
    *,
    variable: str,
    text: str,
    ordinal: int,
    query: str,
    allowed: str,
) -> None:
    """The regression: these were "does not end in a number"; the error gives the range."""
    pod.setenv(variable, text)
    with pytest.raises(OrdinalOutOfRangeError) as caught:
        _open(query, tmp_path)
    assert caught.value.ordinal == ordinal
    assert f"out of range {allowed}" in str(caught.value)
    assert f"ngoài khoảng {allowed}" in caught.value.message("vi")


@pytest.mark.parametrize("text", [" 4", "4 ", "+4", "4.0", "\t4", " "])
def test_pod_index_must_be_a_plain_decimal_number(
    pod: pytest.MonkeyPatch, tmp_path: Path, text: str
) -> None:
    """The docs say a plain decimal number; " 4" was read as 4."""
    pod.setenv("POD_INDEX", text)
    pod.setenv("HOSTNAME", "ids-4")  # never a fallback for a variable that is set
    with pytest.raises(OrdinalNotANumberError) as caught:
        _open("", tmp_path)
    assert caught.value.value == text
    assert f"$POD_INDEX is {text!r}, not a plain decimal number" in str(caught.value)


@pytest.mark.parametrize(
    "url", ["k8s:///some/dir", "k8s://host", "k8s://host/?offset=1", "ordinal:/d"]
)
def test_a_host_or_path_in_a_k8s_url_is_refused_not_ignored(
    pod: pytest.MonkeyPatch, url: str
) -> None:
    """The regression: k8s:///some/dir used the default state directory (and lease init
    said "ready")."""
    pod.setenv("POD_INDEX", "1")
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(url)
    assert caught.value.reason == "no_location"
    assert "state_dir=" in str(caught.value)


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("pod_bits=0", "range"),
        ("pod_bits=11", "range"),
        ("offset=32", "range"),
        ("offset=-1", "range"),
        ("range=0-7", "unknown_option"),
        ("ordinal_env=POD-INDEX", "env_name"),
    ],
)
def test_bad_options_are_refused(
    pod: pytest.MonkeyPatch, tmp_path: Path, query: str, reason: str
) -> None:
    pod.setenv("HOSTNAME", "ids-1")
    with pytest.raises(InvalidLeaseUrlError) as caught:
        _open(query, tmp_path)
    assert caught.value.reason == reason


def test_ordinal_is_the_same_scheme(pod: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pod.setenv("HOSTNAME", "ids-5")
    with open_lease(f"ordinal:?state_dir={tmp_path}") as lease:
        assert lease.acquire(0).datacenter == 5


def test_processes_of_one_pod_never_share_an_identity(
    pod: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Three worker processes of pod ids-2 (HOSTNAME inherited): three machines of
    datacenter 2, every id unique."""
    pod.setenv("HOSTNAME", "ids-2")
    url = f"k8s:?state_dir={tmp_path / 'state'}"
    procs = [start_worker(url, tmp_path / f"ids{i}", "--count", "3000") for i in range(3)]
    assert wait_all(procs) == [0, 0, 0]
    ids = [read_ids(tmp_path / f"ids{i}") for i in range(3)]
    workers = [{TWITTER.worker_of(v) for v in batch} for batch in ids]
    assert all(len(w) == 1 for w in workers)
    assert {TWITTER.split_worker(next(iter(w)))[0] for w in workers} == {2}
    assert len({next(iter(w)) for w in workers}) == 3
    assert len({v for batch in ids for v in batch}) == 9000


@pytest.mark.slow
def test_serve_with_a_k8s_lease(pod: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`snowid serve --lease k8s:…` in pod ids-6 with two worker processes: each serves ids
    from its own machine of datacenter 6."""
    import httpx

    from snowid import SnowId
    from tests.web.test_serve import STARTED, running_serve, wait_started

    pod.setenv("HOSTNAME", "ids-6")
    log = tmp_path / "serve.log"
    lease = f"k8s:?state_dir={tmp_path / 'state'}"
    with running_serve(["--lease", lease, "--workers", "2"], log) as url:
        wait_started(log, 2)  # the second process can start seconds after the first answers
        ids = httpx.post(f"{url}/api/ids?count=3").json()["ids"]
        assert {SnowId.from_str(i).parts[1] for i in ids} == {6}
    started = [(dc, m) for _, dc, m in STARTED.findall(log.read_text())]
    assert len(started) == 2
    assert {dc for dc, _ in started} == {"6"}
    assert len(set(started)) == 2
