"""snowid.bulk with pandas, polars and Arrow columns: the same rows as numpy's, in each
library's own types (a UTC-aware time, nullable integers for bad rows)."""

from __future__ import annotations

import datetime as dt

import pytest

import snowid
from snowid import errors

np = pytest.importorskip("numpy")
bulk = pytest.importorskip("snowid.bulk")

IDS = [1541815603606036480, 0, 2**63 - 1, 1288834974657 << 22]
DISCORD = [175928847299117063, 2**64 - 1]


def _expected(values: list[int], layout: str = "twitter") -> list[tuple[int, dict[str, int]]]:
    return [(d.timestamp, d.fields) for d in (snowid.decode(v, layout) for v in values)]


def test_pandas_series_of_ints_strings_and_nullable_ints() -> None:
    pd = pytest.importorskip("pandas")
    for series in (
        pd.Series(IDS, index=[10, 11, 12, 13]),
        pd.Series([str(v) for v in IDS], index=[10, 11, 12, 13]),
        pd.Series(IDS, dtype="Int64", index=[10, 11, 12, 13]),
    ):
        frame = bulk.decode(series)
        assert list(frame.columns) == ["time", "datacenter", "machine", "sequence"]
        assert str(frame["time"].dtype) == "datetime64[ms, UTC]"
        assert list(frame.index) == [10, 11, 12, 13]
        ms = frame["time"].dt.tz_convert(None).to_numpy().astype("M8[ms]").view("i8").tolist()
        assert ms == [t for t, _ in _expected(IDS)]
        assert frame["sequence"].tolist() == [f["sequence"] for _, f in _expected(IDS)]


def test_pandas_nulls_and_bad_rows() -> None:
    pd = pytest.importorskip("pandas")
    series = pd.Series([IDS[0], None, -1], dtype="Int64")
    with pytest.raises(errors.BadRowError) as caught:
        bulk.decode(series)
    assert caught.value.row == 1
    assert isinstance(caught.value.error, errors.EmptyValueError)
    frame = bulk.decode(series, errors="null")
    assert frame["time"].isna().tolist() == [False, True, True]
    assert str(frame["machine"].dtype) == "Int64"
    assert frame["machine"].isna().tolist() == [False, True, True]
    assert frame["machine"][0] == 26


def test_pandas_times_to_bounds_and_compose() -> None:
    pd = pytest.importorskip("pandas")
    times = pd.Series(
        pd.to_datetime(
            ["2020-01-01T07:00:00+07:00", "2021-05-06T01:02:03.0045Z"], format="ISO8601", utc=True
        )
    )
    first = bulk.first_id_at(times)
    assert first.dtype == "int64"
    assert first.tolist() == [
        snowid.first_id_at(dt.datetime(2020, 1, 1, tzinfo=dt.UTC)),
        snowid.first_id_at(dt.datetime(2021, 5, 6, 1, 2, 3, 4500, tzinfo=dt.UTC)),
    ]
    last = bulk.last_id_at(times, "discord")
    assert last.dtype == "uint64"
    ids = bulk.compose(times, datacenter=pd.Series([1, 2]))
    assert ids.tolist() == [
        snowid.compose(1577836800000, datacenter=1),
        snowid.compose(1620262923004, datacenter=2),
    ]


def test_polars_series_and_nulls() -> None:
    pl = pytest.importorskip("polars")
    frame = bulk.decode(pl.Series("id", DISCORD, dtype=pl.UInt64), "discord")
    assert frame.columns == ["time", "worker", "process", "increment"]
    assert frame.schema["time"] == pl.Datetime("ms", "UTC")
    ms = frame["time"].dt.epoch("ms").to_list()
    assert ms == [t for t, _ in _expected(DISCORD, "discord")]
    assert frame["increment"].to_list() == [
        f["increment"] for _, f in _expected(DISCORD, "discord")
    ]
    text = bulk.decode(pl.Series("id", ["175928847299117063", None, "x"]), "discord", errors="null")
    assert text["worker"].to_list() == [1, None, None]
    with pytest.raises(errors.BadRowError) as caught:
        bulk.decode(pl.Series("id", ["175928847299117063", "x"]), "discord")
    assert (caught.value.row, caught.value.value) == (1, "x")
    times = pl.Series("t", [dt.datetime(2016, 4, 30, 11, 18, 25, 796000)])
    assert bulk.first_id_at(times, "discord").to_list() == [175928847298985984]


def test_arrow_arrays_chunked_and_text() -> None:
    pa = pytest.importorskip("pyarrow")
    chunked = pa.chunked_array([pa.array(IDS[:2], pa.int64()), pa.array(IDS[2:], pa.int64())])
    table = bulk.decode(chunked)
    assert table.schema.field("time").type == pa.timestamp("ms", tz="UTC")
    assert table.column("time").cast(pa.int64()).to_pylist() == [t for t, _ in _expected(IDS)]
    nulled = bulk.decode(pa.array(["1541815603606036480", None, "12x"]), errors="null")
    assert nulled.column("datacenter").to_pylist() == [11, None, None]
    ids = bulk.first_id_at(pa.array([dt.datetime(2020, 1, 1)], pa.timestamp("us", tz="UTC")))
    assert ids.to_pylist() == [snowid.first_id_at(dt.datetime(2020, 1, 1, tzinfo=dt.UTC))]


def test_the_libraries_load_only_when_their_column_is_passed() -> None:
    import subprocess
    import sys

    code = (
        "import sys, numpy, snowid.bulk as b; b.decode(numpy.array([1]));"
        " print(sorted(m for m in ('pandas', 'polars', 'pyarrow') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"


def test_without_numpy_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(errors.ExtraMissingError) as caught:
        bulk.decode([1, 2])
    assert "snowid[bulk]" in str(caught.value)
    assert not bulk.columnar()
