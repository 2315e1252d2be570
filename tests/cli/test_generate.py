"""``snowid generate`` with a fixed identity: lines, JSON, validation and exit codes.

The lease path (no --datacenter/--machine) is tested with the lease layer.
"""

from __future__ import annotations

import itertools
import json

import pytest

from snowid import TWITTER
from snowid.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_generate_prints_count_fresh_ids_one_per_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "generate", "--count", "5", "--datacenter", "1", "--machine", "2")
    assert (code, err) == (0, "")
    ids = [int(line) for line in out.splitlines()]
    assert len(ids) == 5
    assert all(a < b for a, b in itertools.pairwise(ids))
    assert {TWITTER.decompose(v)[1:3] for v in ids} == {(1, 2)}


def test_generate_defaults_to_one_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "generate", "--datacenter", "0", "--machine", "0")
    assert code == 0
    assert len(out.splitlines()) == 1


def test_generate_json_is_an_array_of_decimal_strings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys, "generate", "--count", "3", "--datacenter", "31", "--machine", "31", "--json"
    )
    assert code == 0
    data = json.loads(out)
    assert isinstance(data, list)
    assert len(data) == 3
    assert all(isinstance(item, str) and item.isdigit() for item in data)
    assert {TWITTER.decompose(int(v))[1:3] for v in data} == {(31, 31)}


def test_generate_streams_many_ids_across_milliseconds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # An identity no other test takes: this one holds it for 0.1 s, and the host-wide guard
    # would refuse another xdist worker's process meanwhile (docs/development.md).
    code, out, _ = run(
        capsys, "generate", "--count", "70000", "--datacenter", "7", "--machine", "1"
    )
    assert code == 0
    ids = [int(line) for line in out.splitlines()]
    assert len(ids) == len(set(ids)) == 70000
    assert ids == sorted(ids)


def test_generate_json_with_many_ids_is_valid(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "generate", "--count", "70000", "--datacenter", "7", "--machine", "2", "--json"
    )
    assert code == 0
    assert len(set(json.loads(out))) == 70000


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--count", "0"], "Error: count 0 is out of range 1..10000000"),
        (["--count", "abc"], "Error: count abc is not a whole number"),
        (["--datacenter", "32", "--machine", "1"], "Error: datacenter 32 is out of range 0..31"),
        (["--datacenter", "1"], "Error: machine is empty; a whole number is required"),
        (["--machine", "1"], "Error: datacenter is empty; a whole number is required"),
    ],
)
def test_generate_errors_exit_1_with_a_clear_message(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    full = ["--lang", "en", "generate", *argv]
    if "--datacenter" not in argv and "--machine" not in argv:
        full += ["--datacenter", "1", "--machine", "1"]
    code, out, err = run(capsys, *full)
    assert code == 1
    assert out == ""
    assert err.strip() == message


def test_generate_errors_speak_vietnamese(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "generate", "--lang", "vi", "--datacenter", "99", "--machine", "1")
    assert code == 1
    assert err.startswith("Lỗi: ")


def test_generate_without_an_identity_leases_one(capsys: pytest.CaptureFixture[str]) -> None:
    """No --datacenter/--machine: the identity comes from the lease URL."""
    pytest.importorskip("snowid.lease")
    code, out, _ = run(capsys, "generate", "--count", "3", "--lease", "static://2/3")
    assert code == 0
    ids = [int(line) for line in out.splitlines()]
    assert len(ids) == 3
    assert {TWITTER.decompose(v)[1:3] for v in ids} == {(2, 3)}


def test_generate_with_an_unusable_lease_url_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("snowid.lease")
    code, out, err = run(capsys, "--lang", "en", "generate", "--lease", "nope://x")
    assert code == 1
    assert out == ""
    assert err.startswith("Error: ")
