"""`snowid sql postgres --check-index`: the verdict on pgstatindex's numbers (a pure
function of one table of thresholds), the report's words, and the arguments and URLs
refused before any database answers. The readings on a real server are in
test_index_check_pg.py."""

from __future__ import annotations

import json
import sys

import pytest

from snowid.cli import main
from snowid.cli._check_index import report
from snowid.integrations.sql import (
    CASES,
    DENSE,
    MIN_LEAF_PAGES,
    RULES,
    IndexCheck,
    KeyKind,
    Verdict,
    advice,
    judge,
)
from tests.support.servers import free_port

# --- the verdict ------------------------------------------------------------------------

# The key kind each documented case was measured with (docs/keys.md's PostgreSQL table).
MEASURED_WITH: dict[str, KeyKind] = {
    "one_writer": "snowflake",
    "workers": "snowflake",
    "client_blocks": "snowflake",
    "uuid7_many": "uuid7",
    "uuid4": "uuid",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_documented_density_is_judged_as_its_own_case(name: str) -> None:
    """The thresholds agree with the figures they come from: an index at exactly the
    density docs/keys.md measured for a case is judged to be that case."""
    case = CASES[name]
    verdict = judge(MEASURED_WITH[name], case.density, 1000)
    assert verdict.case == case
    assert verdict.dense is (case.density >= DENSE)


@pytest.mark.parametrize(
    ("kind", "density", "expected"),
    [
        ("snowflake", DENSE, "one_writer"),
        ("snowflake", DENSE - 0.1, "workers"),
        ("integer", 60.0, "workers"),
        ("integer", 59.9, "client_blocks"),
        ("snowflake", 10.0, "client_blocks"),
        ("uuid7", 95.0, "one_writer"),
        ("uuid7", 79.9, "uuid7_many"),
        ("uuid", 50.0, "uuid4"),
        ("other", 90.0, "one_writer"),
    ],
)
def test_the_case_changes_at_the_tables_floors(
    kind: KeyKind, density: float, expected: str
) -> None:
    assert judge(kind, density, MIN_LEAF_PAGES).case == CASES[expected]


def test_a_sparse_key_of_another_kind_has_no_documented_case() -> None:
    verdict = judge("other", 55.0, 500)
    assert verdict == Verdict(case=None, dense=False, too_small=False)


@pytest.mark.parametrize(("density", "pages"), [(50.0, MIN_LEAF_PAGES - 1), (None, 500)])
def test_a_small_index_or_one_without_a_density_gets_no_verdict(
    density: float | None, pages: int
) -> None:
    verdict = judge("snowflake", density, pages)
    assert verdict.case is None
    assert verdict.too_small
    assert advice(verdict) == []


def test_the_rules_name_only_documented_cases_and_each_kind_reaches_a_floor_of_zero() -> None:
    assert {rule.case for rule in RULES} == set(CASES)
    for kind in ("snowflake", "integer", "uuid7", "uuid"):
        assert any(kind in rule.kinds and rule.min_density == 0 for rule in RULES), kind


def test_advice_only_for_a_sparse_index_and_smaller_batches_only_for_client_blocks() -> None:
    assert advice(judge("snowflake", 90.0, 500)) == []
    assert advice(judge("snowflake", 67.0, 500)) == ["identities", "reindex", "fillfactor"]
    assert advice(judge("snowflake", 53.0, 500)) == [
        "identities",
        "batch",
        "reindex",
        "fillfactor",
    ]


# --- the report -------------------------------------------------------------------------


def _found(density: float, kind: KeyKind = "snowflake", pages: int = 900) -> IndexCheck:
    return IndexCheck(
        table='shop."Orders"',
        index='shop."Orders_pkey"',
        columns=("id",),
        types=("bigint",),
        kind=kind,
        uuid_version=None,
        rows=200_000,
        index_bytes=7 * 2**20,
        leaf_pages=pages,
        density=density,
        fragmentation=4.7,
        verdict=judge(kind, density, pages),
    )


def test_the_report_names_the_case_its_documented_density_and_the_rebuild() -> None:
    lines = report(_found(53.5), "en")
    text = "\n".join(lines)
    assert lines[0] == 'table: shop."Orders", about 200,000 rows (the planner\'s estimate)'
    assert lines[1] == 'primary key: shop."Orders_pkey", 7.0 MiB, 900 leaf pages'
    assert lines[3] == "leaf density: 53.5 %, leaf fragmentation: 4.7 %"
    assert "buffered client blocks" in lines[4]
    assert "docs/keys.md measured 52.8 % leaf density" in lines[4]
    assert 'REINDEX INDEX CONCURRENTLY shop."Orders_pkey";' in text
    assert "Client(batch=128)" in text
    vietnamese = "\n".join(report(_found(53.5), "vi"))
    assert "mật độ trang lá: 53.5 %" in vietnamese
    assert 'REINDEX INDEX CONCURRENTLY shop."Orders_pkey";' in vietnamese


def test_a_dense_index_gets_no_options_and_a_small_one_no_verdict() -> None:
    dense = report(_found(90.0), "en")
    assert dense[-1] == "the index is dense: nothing to do"
    assert not any("REINDEX" in line for line in dense)
    small = report(_found(40.0, pages=3), "en")
    assert (
        small[-1]
        == f"verdict: too small to tell (3 leaf pages; at least {MIN_LEAF_PAGES} are needed)"
    )


def test_the_json_face_carries_the_numbers_the_case_and_the_options() -> None:
    found = _found(67.0).as_dict()
    assert json.loads(json.dumps(found)) == found
    assert found["verdict"] == {
        "case": "workers",
        "documented_density": 67.6,
        "dense": False,
        "too_small": False,
    }
    assert found["options"] == ["identities", "reindex", "fillfactor"]
    assert found["reindex"] == 'REINDEX INDEX CONCURRENTLY shop."Orders_pkey";'
    assert (found["density"], found["leaf_pages"], found["columns"]) == (67.0, 900, ["id"])


# --- arguments and URLs -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--json"], "argument --json: the following arguments are required: --check-index"),
        (["--check-index", "orders"], "argument --check-index: expected 2 arguments"),
        (
            ["--check-index", "orders", "postgresql://db/app", "--apply", "postgresql://db/app"],
            "argument --apply: not allowed with argument --check-index",
        ),
    ],
)
def test_arguments_that_do_not_go_together_are_usage_errors(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["sql", "postgres", *argv])
    assert caught.value.code == 2
    assert words in capsys.readouterr().err


def test_check_index_is_offered_by_postgres_only(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["sql", "postgres", "--help"])
    assert "--check-index TABLE URL" in capsys.readouterr().out
    with pytest.raises(SystemExit) as caught:
        main(["sql", "mysql", "--check-index", "t", "mysql://db/app"])
    assert caught.value.code == 2


def test_a_url_of_another_kind_is_named_with_its_option_and_without_its_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["sql", "postgres", "--check-index", "orders", "mysql://u:s3cr3t-Pw@db/app"]) == 1
    err = capsys.readouterr().err
    assert err == (
        "Error: --check-index mysql://db/app is not a PostgreSQL URL;"
        " use postgresql://USER:PASSWORD@HOST:PORT/DATABASE\n"
    )


def test_a_refused_connection_is_one_line_naming_the_database(
    capsys: pytest.CaptureFixture[str],
) -> None:
    port = free_port()  # nothing listens there
    url = f"postgresql://app:s3cr3t-Pw@127.0.0.1:{port}/app"
    assert main(["sql", "postgres", "--check-index", "orders", url]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        f"Error: cannot connect to the database postgresql://127.0.0.1:{port}/app: "
    )
    assert "refused" in err
    assert "s3cr3t" not in err
    assert err.count("\n") == 1


def test_without_psycopg_it_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg now fails
    assert main(["sql", "postgres", "--check-index", "t", "postgresql://db/app"]) == 1
    err = capsys.readouterr().err
    assert err == (
        "Error: snowid sql postgres --check-index needs the Python package psycopg, which is"
        " not installed: pip install 'snowid[postgres]'\n"
    )
