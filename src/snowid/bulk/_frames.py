"""Columns of numpy, pandas, polars and Arrow in and out: each becomes a numpy array (and
a mask of its nulls) on the way in, and the results go back as the same library's types.

Nothing here computes an id, a time or a field (``_columns`` does); a library is imported
only when an object of that library is passed in, so none of them is ever needed for
another's columns.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Literal

from snowid._exceptions import ExtraMissingError
from snowid.bulk._columns import Mask, numpy

__all__ = ["Column", "column_in", "frame_out", "series_out"]

Library = Literal["numpy", "pandas", "polars", "arrow"]


@dataclass(frozen=True, slots=True)
class Column:
    """One input column as numpy: its values, the mask of its nulls (None: none), and
    where it came from (for the results' types, and each row's value as given)."""

    values: Any
    null: Mask | None
    library: Library
    source: Any
    """The object as given (a pandas Series keeps its index; a row is read from it)."""
    name: str | None = None

    def original(self, row: int) -> object:
        """Row ``row`` as the caller's column holds it: what an error message shows."""
        if self.null is not None and self.null[row]:
            return None
        if self.library == "pandas":
            return _plain(self.source.iloc[row])
        if self.library in ("arrow", "polars"):
            return self.source[row].as_py()
        return _plain(self.values[row])


def _plain(value: Any) -> object:
    """A numpy scalar as the Python value it is (an int, a str, bytes)."""
    item = getattr(value, "item", None)
    if item is not None and type(value).__module__ == "numpy":
        return item()
    return value


def _library(value: object) -> str:
    return type(value).__module__.partition(".")[0]


def _import(name: str, extra: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ExtraMissingError(feature="snowid.bulk", package=name, extra=extra) from None


def column_in(value: object) -> Column:
    """Any supported column as numpy: a numpy array, a list or tuple, a pandas Series or
    Index, a polars Series, an Arrow Array or ChunkedArray."""
    np = numpy()
    origin = _library(value)
    if origin == "pandas":
        return _pandas_in(np, value)
    if origin == "polars":
        arrow = value.to_arrow()  # type: ignore[attr-defined]
        column = _arrow_in(np, arrow, "polars")
        return Column(column.values, column.null, "polars", arrow, getattr(value, "name", None))
    if origin == "pyarrow":
        return _arrow_in(np, value, "arrow")
    array = value if isinstance(value, np.ndarray) else _sequence(np, value)
    if array.ndim != 1:
        array = array.reshape(-1)
    return Column(array, None, "numpy", array)


def _sequence(np: Any, value: Any) -> Any:
    """A list (or any iterable) as a numpy array; ints stay exact (numpy would make a list
    with one int past 2**63 floats)."""
    items = list(value)
    if items and all(type(item) is int for item in items):
        for kind in (np.int64, np.uint64):
            try:
                return np.array(items, dtype=kind)
            except OverflowError:
                pass
        return np.array(items, dtype=object)
    array = np.asarray(items)
    return np.array(items, dtype=object) if array.dtype.kind in "fc" else array


def _pandas_in(np: Any, series: Any) -> Column:
    if type(series).__name__.endswith("Index"):
        series = series.to_series(index=range(len(series)))
    null_mask = series.isna().to_numpy()
    null = null_mask if null_mask.any() else None
    dtype = series.dtype
    kind = getattr(dtype, "kind", "O")
    if str(getattr(dtype, "tz", None) or "") and kind == "M":
        values = series.dt.tz_convert(None).to_numpy()
    elif kind in "iu" and null is not None:
        numpy_type = "uint64" if kind == "u" else "int64"
        values = series.to_numpy(dtype=numpy_type, na_value=0)
    elif kind in "iuM":
        values = series.to_numpy()
    else:
        values = series.to_numpy(dtype=object)
    return Column(values, null, "pandas", series, series.name)


def _arrow_in(np: Any, array: Any, library: Library) -> Column:
    pa = _import("pyarrow", "parquet")
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    kind = array.type
    null = array.is_null().to_numpy(zero_copy_only=False) if array.null_count else None
    if pa.types.is_integer(kind):
        values = (array.fill_null(0) if null is not None else array).to_numpy()
    elif pa.types.is_timestamp(kind):
        values = array.to_numpy(zero_copy_only=False)
    elif pa.types.is_date(kind):
        values = array.cast(pa.timestamp("ms")).to_numpy(zero_copy_only=False)
    elif _is_text(pa, kind):
        text = array.cast(pa.large_string()).fill_null("")
        values = text.to_numpy(zero_copy_only=False)
    else:
        values = array.to_numpy(zero_copy_only=False)
    return Column(values, null, library, array)


def _is_text(pa: Any, kind: Any) -> bool:
    checks = ("is_string", "is_large_string", "is_string_view")
    return any(getattr(pa.types, check, lambda _: False)(kind) for check in checks)


# --- results ------------------------------------------------------------------------


def frame_out(
    column: Column, ms: Any, fields: dict[str, Any], bad: Mask | None, nulls: bool
) -> Any:
    """The decoded columns as the input's library gives a table: a dict of numpy arrays
    (masked arrays when ``nulls``), a pandas or polars DataFrame, an Arrow Table. The time
    is UTC: ``datetime64[ms]`` in numpy, a UTC-aware timestamp elsewhere."""
    np = numpy()
    if column.library == "numpy":
        time = ms.view("M8[ms]")
        if bad is not None:
            time = np.where(bad, np.datetime64("NaT", "ms"), time)
        if not nulls:
            return {"time": time, **fields}
        mask = bad if bad is not None else np.zeros(len(ms), bool)
        return {
            "time": np.ma.masked_array(time, mask=mask),
            **{name: np.ma.masked_array(value, mask=mask) for name, value in fields.items()},
        }
    if column.library == "pandas":
        pd = _import("pandas", "bulk")
        index = column.source.index
        columns = {"time": _pandas_time(pd, np, ms, bad, index)}
        for name, value in fields.items():
            columns[name] = _pandas_ints(pd, value, bad, index, nulls)
        return pd.DataFrame(columns, index=index)
    table = _arrow_table(np, ms, fields, bad)
    if column.library == "polars":
        return _import("polars", "bulk").from_arrow(table)
    return table


def _pandas_time(pd: Any, np: Any, ms: Any, bad: Mask | None, index: Any) -> Any:
    time = ms.view("M8[ms]")
    if bad is not None:
        time = np.where(bad, np.datetime64("NaT", "ms"), time)
    return pd.Series(time, index=index, copy=False).dt.tz_localize("UTC")


def _pandas_ints(pd: Any, value: Any, bad: Mask | None, index: Any, nulls: bool) -> Any:
    if not nulls:
        return pd.Series(value, index=index, copy=False)
    np = numpy()
    mask = bad if bad is not None else np.zeros(len(value), bool)
    return pd.Series(pd.arrays.IntegerArray(value, mask), index=index, copy=False)


def _arrow_table(np: Any, ms: Any, fields: dict[str, Any], bad: Mask | None) -> Any:
    pa = _import("pyarrow", "parquet")
    columns = {"time": pa.array(ms, type=pa.timestamp("ms", tz="UTC"), mask=bad)}
    for name, value in fields.items():
        columns[name] = pa.array(value, type=pa.int64(), mask=bad)
    return pa.table(columns)


def series_out(column: Column, values: Any, bad: Mask | None, nulls: bool, kind: str) -> Any:
    """One result column (ids: ``kind`` ``uint64`` or ``int64``) as the input's library
    gives one: a numpy array (masked when ``nulls``), a pandas or polars Series, an Arrow
    Array."""
    np = numpy()
    values = values.astype(kind, copy=False)
    if column.library == "numpy":
        if not nulls:
            return values
        return np.ma.masked_array(
            values, mask=bad if bad is not None else np.zeros(len(values), bool)
        )
    if column.library == "pandas":
        pd = _import("pandas", "bulk")
        index = column.source.index
        if not nulls:
            return pd.Series(values, index=index, name=column.name, copy=False)
        mask = bad if bad is not None else np.zeros(len(values), bool)
        return pd.Series(pd.arrays.IntegerArray(values, mask), index=index, name=column.name)
    pa = _import("pyarrow", "parquet")
    array = pa.array(values, mask=bad)
    if column.library == "polars":
        return _import("polars", "bulk").from_arrow(array).alias(column.name or "id")
    return array
