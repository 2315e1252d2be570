"""snowid.bulk on numpy columns: every row exactly what snowid.decode, compose,
first_id_at and last_id_at give for that value alone (issue 29 §1), random ids of every
layout and their edges; bad rows named or nulled, never a wrong date."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import snowid
from snowid import errors
from snowid.ids import LAYOUTS, Layout, get_layout

np = pytest.importorskip("numpy")
bulk = pytest.importorskip("snowid.bulk")

CUSTOM = (
    get_layout("name=tenths,epoch=1600000000000,unit=100,fields=t:40,zone:7,n:16"),
    get_layout("name=wide,epoch=0,unit=1000,fields=t:30,node:20,n:14,signed=no"),
)
EVERY = (*LAYOUTS, *CUSTOM)
INSTAGRAM = get_layout("instagram")


def _edges(layout: Layout) -> list[int]:
    """0, the largest id, the sign bit, every field at its largest, the first and last
    ticks, and Instagram's stored form (negative) after 2046."""
    top = layout.max_id
    found = {0, 1, top, top - 1, 2**63 - 1, layout.low_mask, layout.low_mask + 1}
    if not layout.signed:
        found |= {2**63, 2**63 + 1}
    for shift, maximum in zip(layout.shifts, layout.maxima, strict=True):
        found.add(maximum << shift)
    found.add(layout.tick_ids(layout.max_delta)[0])
    found.add(layout.tick_ids(layout.max_delta)[1])
    return sorted(value for value in found if 0 <= value <= top)


def _random_ids(layout: Layout, count: int, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    return [int(v) for v in rng.integers(0, layout.max_id, count, dtype=np.uint64, endpoint=True)]


def _as_array(values: list[int], layout: Layout) -> Any:
    return np.array(values, dtype=np.int64 if layout.signed else np.uint64)


def _check(decoded: dict[str, Any], values: list[Any], layout: Layout) -> None:
    times = decoded["time"].view(np.int64).tolist()
    fields = {name: decoded[name].tolist() for name in layout.field_names}
    assert decoded["time"].dtype == np.dtype("M8[ms]")
    for row, value in enumerate(values):
        one = snowid.decode(value, layout)
        assert times[row] == one.timestamp, (layout.name, value)
        assert {name: fields[name][row] for name in layout.field_names} == one.fields


@pytest.mark.parametrize("layout", EVERY, ids=lambda layout: layout.name)
def test_random_ids_and_edges_decode_as_the_scalar_does(layout: Layout) -> None:
    values = _edges(layout) + _random_ids(layout, 5_000, seed=len(layout.name))
    _check(bulk.decode(_as_array(values, layout), layout), values, layout)
    # the same ids as decimal strings, as text and as bytes
    _check(bulk.decode(np.array([str(v) for v in values]), layout), values, layout)
    _check(bulk.decode(np.array([str(v).encode() for v in values]), layout), values, layout)
    _check(bulk.decode(values, layout), values, layout)


def test_instagram_negative_numbers_are_its_stored_bigint_form() -> None:
    stored = [-1, -(2**63), -2, -(2**62), -123456789]
    rng = np.random.default_rng(7)
    stored += [int(v) for v in rng.integers(-(2**63), 0, 2_000, dtype=np.int64)]
    _check(bulk.decode(np.array(stored, dtype=np.int64), INSTAGRAM), stored, INSTAGRAM)
    _check(bulk.decode([str(v) for v in stored], INSTAGRAM), stored, INSTAGRAM)
    # after 2046-06-27T17:00:49.497Z its ids are past 2**63: the same rows unsigned
    unsigned = np.array(stored, dtype=np.int64).view(np.uint64)
    _check(bulk.decode(unsigned, INSTAGRAM), stored, INSTAGRAM)


@settings(max_examples=60)
@given(
    st.sampled_from(EVERY),
    st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=40),
)
def test_any_numbers_decode_or_fail_as_each_alone(layout: Layout, numbers: list[int]) -> None:
    """Good rows equal the scalar decode; the first row the scalar refuses is the error."""
    refused = []
    for row, value in enumerate(numbers):
        try:
            snowid.decode(value, layout)
        except errors.InvalidIdError as error:
            refused.append((row, type(error)))
    array = np.array(numbers, dtype=np.uint64)
    if refused:
        with pytest.raises(errors.BadRowError) as caught:
            bulk.decode(array, layout)
        assert (caught.value.row, type(caught.value.error)) == refused[0]
        assert caught.value.value == numbers[refused[0][0]]
        nulled = bulk.decode(array, layout, errors="null")
        assert nulled["time"].mask.tolist() == [
            row in {r for r, _ in refused} for row in range(len(numbers))
        ]
    else:
        _check(bulk.decode(array, layout), numbers, layout)


@pytest.mark.parametrize(
    ("values", "layout", "row", "error"),
    [
        (np.array([5, -1, -2], dtype=np.int64), "twitter", 1, errors.NegativeIdError),
        (np.array([5, -1], dtype=np.int64), "discord", 1, errors.NegativeIdError),
        (np.array([1, 2**63], dtype=np.uint64), "twitter", 1, errors.SignBitSetError),
        (np.array([1, 2**63], dtype=np.uint64), "sonyflake", 1, errors.SignBitSetError),
        (["1", "12x", "-"], "twitter", 1, errors.NotAnIntegerError),
        (["1", " 12"], "twitter", 1, errors.ContainsSpacesError),
        (["1", ""], "twitter", 1, errors.EmptyValueError),
        (["1", "1.5"], "twitter", 1, errors.NotAnIntegerError),
        (["1", "٣"], "twitter", 1, errors.NotAnIntegerError),  # a digit, but not ASCII
        (["1", "18446744073709551616"], "discord", 1, errors.IdTooLargeError),
        (["1", "9223372036854775808"], "twitter", 1, errors.SignBitSetError),
        (["1", "9" * 5000], "twitter", 1, errors.NumberTooLongError),
        (np.array(["1", None], dtype=object), "twitter", 1, errors.EmptyValueError),
        (np.array([1.0, 2.0]), "twitter", 0, errors.NotAnIntegerError),
    ],
)
def test_a_bad_row_is_named_with_the_error_its_value_gets(
    values: Any, layout: str, row: int, error: type[Exception]
) -> None:
    with pytest.raises(errors.BadRowError) as caught:
        bulk.decode(values, layout)
    assert caught.value.row == row
    assert type(caught.value.error) is error
    assert str(caught.value).startswith(f"row {row}: ")
    assert caught.value.message("vi").startswith(f"hàng {row}: ")
    nulled = bulk.decode(values, layout, errors="null")
    assert bool(nulled["time"].mask[row])
    assert all(bool(nulled[name].mask[row]) for name in get_layout(layout).field_names)


def test_nulled_rows_leave_the_good_ones_exact_and_the_input_untouched() -> None:
    values = np.array([1541815603606036480, -5, 0], dtype=np.int64)
    before = values.copy()
    nulled = bulk.decode(values, errors="null")
    assert nulled["time"].mask.tolist() == [False, True, False]
    assert np.isnat(nulled["time"].data[1])
    assert nulled["time"].data[0] == np.datetime64(snowid.decode(int(values[0])).iso_utc[:-1])
    assert (values == before).all()


def test_numbers_with_leading_zeros_are_read_as_the_scalar_reads_them() -> None:
    values = ["0" * 25 + "42", "007"]
    decoded = bulk.decode(values)
    assert decoded["sequence"].tolist() == [42, 7]


def test_an_empty_column_gives_empty_columns() -> None:
    decoded = bulk.decode(np.array([], dtype=np.int64), "discord")
    assert list(decoded) == ["time", "worker", "process", "increment"]
    assert all(len(column) == 0 for column in decoded.values())


def test_a_field_named_time_is_refused_for_decode() -> None:
    layout = get_layout("epoch=0,fields=t:41,time:22")
    with pytest.raises(errors.InvalidLayoutError):
        bulk.decode([1], layout)


def test_errors_takes_raise_or_null() -> None:
    with pytest.raises(errors.InvalidValueError):
        bulk.decode([1], errors="ignore")  # type: ignore[arg-type]


# --- compose and the bounds of time windows -----------------------------------------


def _random_times(layout: Layout, count: int, seed: int) -> list[int]:
    rng = np.random.default_rng(seed)
    last = min(layout.max_timestamp + layout.unit_ms - 1, 2**62)
    edges = [layout.epoch_ms, layout.epoch_ms + 1, last, last - 1, layout.max_timestamp]
    return edges + [int(v) for v in rng.integers(layout.epoch_ms, last, count)]


@pytest.mark.parametrize("layout", EVERY, ids=lambda layout: layout.name)
def test_compose_gives_the_scalar_ids(layout: Layout) -> None:
    times = _random_times(layout, 2_000, seed=3)
    rng = np.random.default_rng(4)
    fields = {
        name: rng.integers(0, layout.field_max(name), len(times), endpoint=True)
        for name in layout.field_names
    }
    ids = bulk.compose(np.array(times), layout, **fields)
    assert ids.dtype == (np.int64 if layout.signed else np.uint64)
    for row, ms in enumerate(times):
        given = {name: int(value[row]) for name, value in fields.items()}
        assert int(ids[row]) == snowid.compose(ms, layout, **given)
    # a field given once for every row
    first = layout.field_names[0]
    one = bulk.compose(np.array(times[:3]), layout, **{first: 1})
    assert [int(v) for v in one] == [snowid.compose(ms, layout, **{first: 1}) for ms in times[:3]]


@pytest.mark.parametrize("layout", EVERY, ids=lambda layout: layout.name)
def test_window_bounds_give_the_scalar_ids_near_every_edge(layout: Layout) -> None:
    unit, epoch, end = layout.unit_ms, layout.epoch_ms, layout.max_timestamp
    near = [epoch + d for d in range(-2 * unit, 2 * unit + 2)]
    near += [end + d for d in range(-2 * unit, 2 * unit + 2)]
    times = near + _random_times(layout, 1_000, seed=5)
    for first, scalar, convert in (
        (True, snowid.first_id_at, bulk.first_id_at),
        (False, snowid.last_id_at, bulk.last_id_at),
    ):
        got = convert(np.array(times, dtype=np.int64), layout, errors="null")
        for row, ms in enumerate(times):
            try:
                expected = scalar(ms, layout)
            except errors.OutOfRangeError:
                assert got.mask[row], (first, ms)
            else:
                assert not got.mask[row]
                assert int(got.data[row]) == expected, (first, ms)


def test_bounds_of_datetime64_round_a_fraction_of_a_millisecond_as_the_scalar_does() -> None:
    times = np.array(
        ["2020-01-01T00:00:00.000500", "2020-01-01T00:00:00.001000", "2046-06-27T17:00:49.497"],
        dtype="M8[us]",
    )
    for layout in ("twitter", "sonyflake", "instagram"):
        first = bulk.first_id_at(times, layout)
        last = bulk.last_id_at(times, layout)
        for row, value in enumerate(times.astype(object).tolist()):
            assert int(first[row]) == snowid.first_id_at(value, layout)
            assert int(last[row]) == snowid.last_id_at(value, layout)
    seconds = np.array(["2020-01-01T00:00:01"], dtype="M8[s]")
    assert int(bulk.first_id_at(seconds)[0]) == snowid.first_id_at(1577836801000)


def test_a_time_outside_the_layout_is_a_bad_row() -> None:
    times = np.array([1577836800000, 1000], dtype=np.int64)
    with pytest.raises(errors.BadRowError) as caught:
        bulk.first_id_at(times)
    assert caught.value.row == 1
    assert isinstance(caught.value.error, errors.TimestampBeforeEpochError)
    with pytest.raises(errors.BadRowError) as caught:
        bulk.compose(np.array(["NaT", "2020-01-01"], dtype="M8[ms]"))
    assert caught.value.row == 0
    assert isinstance(caught.value.error, errors.EmptyValueError)


def test_compose_refuses_a_field_out_of_range_and_an_unknown_field() -> None:
    times = np.array([1577836800000, 1577836800000])
    with pytest.raises(errors.BadRowError) as caught:
        bulk.compose(times, datacenter=np.array([3, 32]))
    assert caught.value.row == 1
    assert isinstance(caught.value.error, errors.OutOfRangeError)
    with pytest.raises(errors.UnknownFieldError):
        bulk.compose(times, shard=1)
    nulled = bulk.compose(times, datacenter=np.array([3, 32]), errors="null")
    assert nulled.mask.tolist() == [False, True]
    assert int(nulled.data[0]) == snowid.compose(1577836800000, datacenter=3)


def test_times_as_python_datetimes_and_text() -> None:
    when = dt.datetime(2020, 1, 1, 7, tzinfo=dt.timezone(dt.timedelta(hours=7)))
    values = np.array([when, "2020-01-01T00:00:00Z", 1577836800000], dtype=object)
    ids = bulk.first_id_at(values)
    assert len({int(v) for v in ids}) == 1
    assert int(ids[0]) == snowid.first_id_at(when)
