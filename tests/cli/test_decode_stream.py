"""snowid decode - and --file: many ids as CSV, JSON lines or Parquet (issue 29 §2);
bad lines reported with their number, never a wrong row, output before them whole."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import snowid
from snowid.bulk import read_lines
from snowid.cli import main
from snowid.ids import get_layout

TWEETS = [1541815603606036480, 0, 2**63 - 1, 1288834974657 << 22, 20]


def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    stdin: bytes,
    *argv: str,
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def lines(values: list[int] | list[str]) -> bytes:
    return "".join(f"{value}\n" for value in values).encode()


def expected_csv(values: list[int], layout: str = "twitter") -> str:
    spec = get_layout(layout)
    rows = [",".join(("id", "time", *spec.field_names))]
    for value in values:
        one = snowid.decode(value, layout)
        fields = [str(v) for v in one.fields.values()]
        rows.append(",".join([str(one.id), one.iso_utc or "", *fields]))
    return "\n".join(rows) + "\n"


LAYOUT_IDS = {
    "twitter": TWEETS,
    "discord": [175928847299117063, 2**64 - 1, 0],
    "instagram": [2**63 + 5, 1314220021721 << 23],
    "sonyflake": [2**63 - 1, 12345678901234],
    "mastodon": [2**64 - 1, 109_000_000_000_000_000],  # past year 9999: no ISO time
    "epoch=1600000000000,unit=100,fields=t:40,zone:7,n:16": [2**63 - 1, 99],
}


@pytest.mark.parametrize("layout", list(LAYOUT_IDS))
def test_stdin_to_csv_is_the_scalar_decode_row_by_row(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    values = LAYOUT_IDS[layout]
    code, out, err = run(capsys, monkeypatch, lines(values), "decode", "-", "--layout", layout)
    assert (code, err) == (0, "")
    assert out == expected_csv(values, layout)


def test_the_pure_python_path_writes_the_same_bytes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = lines([*TWEETS, "x", "-3"])
    for layout in LAYOUT_IDS:
        fast = run(
            capsys, monkeypatch, data, "decode", "-", "--layout", layout, "--on-error", "skip"
        )
        with monkeypatch.context() as patch:
            patch.setitem(sys.modules, "numpy", None)
            slow = run(
                capsys, monkeypatch, data, "decode", "-", "--layout", layout, "--on-error", "skip"
            )
        assert fast == slow


def test_a_bad_line_stops_there_with_the_rows_before_it_whole(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = lines([TWEETS[0], TWEETS[1], "12x", TWEETS[2]])
    code, out, err = run(capsys, monkeypatch, data, "decode", "-")
    assert code == 1
    assert out == expected_csv(TWEETS[:2])
    assert err == "Error: line 3: ID 12x is not a whole number\n"


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("-1", "ID -1 is negative"),
        ("9223372036854775808", "has the sign bit (bit 63) set"),
        ("", "ID is empty"),
        (" 5", "contains spaces"),
        ("1\x002", "is not a whole number"),
        ("99999999999999999999999", "needs more than 64 bits"),
    ],
)
def test_skip_reports_each_bad_line_and_goes_on(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, bad: str, message: str
) -> None:
    data = lines([TWEETS[0], bad, TWEETS[2]])
    code, out, err = run(capsys, monkeypatch, data, "decode", "-", "--on-error", "skip")
    assert code == 0
    assert out == expected_csv([TWEETS[0], TWEETS[2]])
    assert err.startswith("skipped line 2: ")
    assert message in err
    assert err.count("\n") == 1


def test_crlf_and_a_last_line_without_its_end(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "ids.txt"
    path.write_bytes(b"1541815603606036480\r\n0\r\n20")
    code, out, _ = run(capsys, monkeypatch, b"", "decode", "--file", str(path))
    assert code == 0
    assert out == expected_csv([TWEETS[0], 0, 20])


def test_line_numbers_count_across_chunks() -> None:
    data = lines(list(range(1000)))
    chunks = list(read_lines(io.BytesIO(data), chunk=7))
    numbers = [chunk.first + index for chunk in chunks for index in range(len(chunk.lines))]
    assert numbers == list(range(1, 1001))
    assert [int(line) for chunk in chunks for line in chunk.lines] == list(range(1000))


def test_jsonl_lines_are_the_decode_json_objects(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    values = ["175928847299117063", "-1"]
    code, out, err = run(
        capsys,
        monkeypatch,
        lines(values),
        "decode",
        "-",
        "--format",
        "jsonl",
        "--layout",
        "instagram",
    )
    assert (code, err) == (0, "")
    rows = [json.loads(line) for line in out.splitlines()]
    for value, row in zip(values, rows, strict=True):
        assert main(["decode", value, "--layout", "instagram", "--json"]) == 0
        single = json.loads(capsys.readouterr().out)
        assert row == single
    assert rows[1]["stored"] == "-1"
    # --json means the same
    code, again, _ = run(
        capsys, monkeypatch, lines(values), "decode", "-", "--json", "--layout", "instagram"
    )
    assert again == out


def test_a_csv_column(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "tweets.csv"
    path.write_text('text,tweet_id\n"hi, there",1541815603606036480\n"two\nlines",0\nshort\n')
    code, out, err = run(
        capsys,
        monkeypatch,
        b"",
        "decode",
        "--file",
        str(path),
        "--column",
        "tweet_id",
        "--on-error",
        "skip",
    )
    assert code == 0
    assert out == expected_csv([TWEETS[0], 0])
    assert err.startswith("skipped line 5: ID is empty")
    code, _, err = run(capsys, monkeypatch, b"", "decode", "--file", str(path), "--column", "id")
    assert code == 1
    assert "has no column id; its columns are: text, tweet_id" in err


def test_parquet_out_and_in(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out_path = tmp_path / "decoded.parquet"
    data = lines([*LAYOUT_IDS["discord"], "bad", 5])
    code, _, err = run(
        capsys,
        monkeypatch,
        data,
        "decode",
        "-",
        "--layout",
        "discord",
        "--format",
        "parquet",
        "--output",
        str(out_path),
    )
    assert code == 1
    assert "line 4" in err
    table = pq.read_table(out_path)  # closed properly: what came before the bad line
    assert table.column_names == ["id", "time", "worker", "process", "increment"]
    assert table.column("id").to_pylist() == LAYOUT_IDS["discord"]
    ms = table.column("time").cast("int64").to_pylist()
    assert ms == [snowid.decode(v, "discord").timestamp for v in LAYOUT_IDS["discord"]]
    # that file read back, decoded again to CSV
    code, out, _ = run(
        capsys, monkeypatch, b"", "decode", "--file", str(out_path), "--layout", "discord"
    )
    assert code == 0
    assert out == expected_csv(LAYOUT_IDS["discord"], "discord")


def test_options_that_do_not_go_together(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for argv in (
        ["decode", "-", "--file", "x"],
        ["decode", "5", "--format", "csv"],
        ["decode"],
        ["decode", "-", "--steps"],
    ):
        code, out, err = run(capsys, monkeypatch, b"", *argv)
        assert code == 2, argv
        assert err.startswith("Error: ")
        assert out == ""


def test_a_missing_file_and_no_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "snowid", "decode", "--file", str(tmp_path / "none.txt")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("Error: ")


def test_end_to_end_through_a_pipe() -> None:
    data = lines([*TWEETS, "oops", 7])
    done = subprocess.run(
        [sys.executable, "-m", "snowid", "decode", "-", "--lang", "vi"],
        input=data,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    assert done.stdout.decode() == expected_csv(TWEETS)
    assert done.stderr.decode().startswith("Lỗi: dòng 6: ")
