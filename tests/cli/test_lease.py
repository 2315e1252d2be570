"""`snowid lease init` and `snowid lease status`, human and JSON output, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snowid.cli import main
from snowid.lease import open_lease
from tests.support.marks import write_mark
from tests.support.pg import PG, fresh_table, sql

FAR = 8999998203945426302  # a stored ceiling far past year 9999


def test_file_init_then_status_lists_the_holder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"file://{tmp_path / 'state'}?range=0-7"
    assert main(["lease", "init", url]) == 0
    assert "is ready" in capsys.readouterr().out
    with open_lease(url) as lease:
        lease.acquire(0)
        assert main(["lease", "status", url, "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)["identities"]
        assert [(r["worker"], r["held"]) for r in rows] == [(lease.worker, True)]
        assert list(rows[0]) == [  # the JSON row: every field of IdentityStatus, in order
            "worker", "datacenter", "machine", "held", "holder", "epoch", "ceiling_ms",
            "since_ms", "expires_ms",
        ]  # fmt: skip
        assert main(["lease", "status", url]) == 0
        text = capsys.readouterr().out
        assert "holder" in text.splitlines()[0]
        assert f"pid {__import__('os').getpid()}" in text
    assert main(["lease", "status", url]) == 0
    assert "no identity" in capsys.readouterr().out
    assert main(["lease", "status", url, "--all", "--json"]) == 0
    assert [r["held"] for r in json.loads(capsys.readouterr().out)["identities"]] == [False]


def test_status_in_vietnamese(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"file://{tmp_path}"
    assert main(["--lang", "vi", "lease", "status", url]) == 0
    assert "không có danh tính" in capsys.readouterr().out


def test_bad_url_is_an_error_message_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lease", "status", "mongodb://x"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: lease URL mongodb://x cannot be used")


def test_unsupported_file_system_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lease", "init", "file:///dev/shm/snowid-test-state"]) == 1
    assert "tmpfs" in capsys.readouterr().err


@pytest.mark.slow
def test_postgres_init_is_idempotent_and_status_shows_ceilings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with fresh_table() as table:
        # ttl=3: the holder must still hold when status is read (a harness margin on load)
        url = f"{PG}?table={table}&range=0-3&ttl=3&timeout=2"
        assert main(["lease", "init", url, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["created"] is False
        with open_lease(url) as lease:
            grant = lease.acquire(0)
            assert main(["lease", "status", url, "--json"]) == 0
            (row,) = json.loads(capsys.readouterr().out)["identities"]
            assert row["held"] is True
            assert row["ceiling_ms"] >= grant.ceiling_ms
            assert row["since_ms"] is not None
            assert row["expires_ms"] is not None


@pytest.mark.slow
def test_postgres_init_on_a_new_table_quarantines_unless_first_deployment(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with fresh_table() as table:
        sql(f"DROP TABLE {table}, {table}_meta")
        url = f"{PG}?table={table}&ttl=1&timeout=2&max_skew=0.5"
        # The quarantine is measured from the store's clock before the init, not at the
        # SELECT after it: on a busy machine the init itself took over half a second.
        ((before,),) = sql("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint")
        assert main(["lease", "init", url]) == 0
        out = capsys.readouterr().out
        assert "created" in out
        assert "--first-deployment" in out
        ((low,),) = sql(f"SELECT min(ceiling_ms) - %s FROM {table}", (before,))
        assert low >= 2500  # ttl + span + max_skew = 2.5 s of quarantine
    with fresh_table() as table:
        sql(f"DROP TABLE {table}, {table}_meta")
        assert main(["lease", "init", f"{PG}?table={table}", "--first-deployment", "--json"]) == 0
        result = json.loads(capsys.readouterr().out)
        assert result["created"] is True
        assert result["quarantined"] is False
        assert sql(f"SELECT max(ceiling_ms) FROM {table}")[0][0] == 0


def test_status_all_shows_a_ceiling_beyond_any_date_as_the_raw_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 8 item 6: a stored ceiling past year 9999 used to crash `lease status --all`."""
    write_mark(tmp_path, 0, FAR)
    write_mark(tmp_path, 1, 253402300799999)  # the last millisecond a date can show
    assert main(["--lang", "en", "lease", "status", f"file://{tmp_path}", "--all"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    rows = [line.split() for line in out.splitlines()[1:]]
    assert rows[0][-1] == str(FAR)
    assert rows[1][-2:] == ["253402300799999", "(9999-12-31T23:59:59.999Z)"]


@pytest.mark.slow
def test_status_all_shows_a_far_ahead_postgres_ceiling(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with fresh_table() as table:
        sql(
            f"UPDATE {table} SET ceiling_ms = %s, epoch = 1, claimed_at = now() WHERE worker = 2",
            (FAR,),
        )
        assert main(["lease", "status", f"{PG}?table={table}", "--all"]) == 0
        out = capsys.readouterr().out
        assert str(FAR) in out


def test_a_control_character_in_a_file_path_is_an_error_not_a_new_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 8 item 13: the tab was dropped and ``<tmp>/ab`` created instead of refusing."""
    assert main(["lease", "init", f"file://{tmp_path}/a\tb"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: lease URL ")
    assert "control character U+0009" in err
    assert list(tmp_path.iterdir()) == []


# --- regression tests from the first wave's reviews (each failed before its fix) ---


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# Adversarial review, finding 3: a file: lease whose path cannot be a directory -> traceback (failed before its fix).
@pytest.mark.parametrize("command", ["generate", "lease-init", "lease-status"])
def test_file_lease_on_a_regular_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    url = f"file://{blocker}"
    argv = {
        "generate": ["generate", "--lease", url],
        "lease-init": ["lease", "init", url],
        "lease-status": ["lease", "status", url],
    }[command]
    code, _, err = run(capsys, *argv)
    assert code == 1
    assert err.startswith("Error: ")
    assert str(blocker) in err
