"""SnowId: constructors, fields, conversions and the value-type contract."""

from __future__ import annotations

import datetime as dt
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowid import SnowId
from snowid.errors import (
    EmptyValueError,
    IdTooLargeError,
    InvalidValueError,
    NegativeIdError,
    NotAnIntegerError,
    OutOfRangeError,
    SignBitSetError,
    TimestampAfterEndError,
    TimestampBeforeEpochError,
)

SEED = 4194439168


def test_the_seed_example_every_way() -> None:
    built = SnowId.from_parts(timestamp=1288834975657, datacenter=1, machine=1, sequence=0)
    assert built == SnowId(SEED) == SnowId.from_str("4194439168") == SnowId.parse(" 4194439168 ")
    assert int(built) == SEED
    assert str(built) == "4194439168"
    assert repr(built) == "SnowId(4194439168)"
    assert eval(repr(built)) == built


def test_fields_of_the_seed_example() -> None:
    value = SnowId(SEED)
    assert (value.timestamp, value.datacenter, value.machine, value.sequence) == (
        1288834975657,
        1,
        1,
        0,
    )
    assert value.worker == 33
    assert value.datetime == dt.datetime(2010, 11, 4, 1, 42, 55, 657000, tzinfo=dt.UTC)
    assert value.hex == "00000000fa021000"
    assert value.binary == "0" + format(1000, "041b") + "00001" + "00001" + "0" * 12
    assert len(value.binary) == 64


def test_string_form_values_are_accepted_by_from_parts() -> None:
    assert SnowId.from_parts(
        timestamp="1288834975657", datacenter="1", machine="1", sequence="0"
    ) == SnowId(SEED)


def test_blank_timestamp_means_now() -> None:
    before = dt.datetime.now(dt.UTC)
    for blank in (None, ""):
        value = SnowId.from_parts(timestamp=blank, datacenter=0, machine=0, sequence=0)
        assert abs(value.datetime - before) < dt.timedelta(seconds=5)


def test_from_datetime_truncates_to_the_millisecond() -> None:
    when = dt.datetime(2010, 11, 4, 1, 42, 55, 657999, tzinfo=dt.UTC)
    assert SnowId.from_datetime(when, datacenter=1, machine=1) == SnowId(SEED)
    naive = when.replace(tzinfo=None)
    assert SnowId.from_datetime(naive, datacenter=1, machine=1) == SnowId(SEED)


@pytest.mark.parametrize(
    ("kwargs", "error", "field"),
    [
        ({"timestamp": 1288834974656}, TimestampBeforeEpochError, "timestamp"),
        ({"timestamp": 3487858230209}, TimestampAfterEndError, "timestamp"),
        ({"datacenter": 32}, OutOfRangeError, "datacenter"),
        ({"machine": 32}, OutOfRangeError, "machine"),
        ({"sequence": 4096}, OutOfRangeError, "sequence"),
        ({"machine": True}, NotAnIntegerError, "machine"),
        ({"sequence": 1.5}, NotAnIntegerError, "sequence"),
        ({"datacenter": "12abc"}, NotAnIntegerError, "datacenter"),
        ({"machine": ""}, EmptyValueError, "machine"),
    ],
)
def test_every_invalid_part_raises_its_own_error(
    kwargs: dict[str, object], error: type[Exception], field: str
) -> None:
    parts: dict[str, object] = {
        "timestamp": 1288834975657,
        "datacenter": 1,
        "machine": 1,
        "sequence": 0,
    }
    parts.update(kwargs)
    with pytest.raises(error) as caught:
        SnowId.from_parts(**parts)  # type: ignore[arg-type]
    assert caught.value.field == field  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (-1, NegativeIdError),
        (2**64, IdTooLargeError),
        (2**63, SignBitSetError),
        (True, NotAnIntegerError),
        ("12abc", NotAnIntegerError),
        ("", EmptyValueError),
        (1.5, NotAnIntegerError),
    ],
)
def test_invalid_ids_never_become_a_snowid(value: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        SnowId(value)  # type: ignore[arg-type]


def test_immutable_hashable_and_ordered() -> None:
    a, b = SnowId(1), SnowId(2)
    assert a < b
    assert b > a
    assert a <= SnowId(1)
    assert b >= SnowId(2)
    assert len({a, SnowId(1), b}) == 2
    with pytest.raises(TypeError):
        a._value = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        del a._value
    assert a != 1  # compared only with its own type, like uuid.UUID
    with pytest.raises(TypeError):
        _ = a < 2  # type: ignore[operator]
    assert pickle.loads(pickle.dumps(b)) == b


@given(st.integers(0, 2**63 - 1))
def test_id_to_str_to_id_round_trips(value: int) -> None:
    snow = SnowId(value)
    assert SnowId.from_str(str(snow)) == snow
    assert int(SnowId.from_str(str(snow))) == value
    assert int(snow.binary, 2) == value == int(snow.hex, 16)


@given(
    timestamp=st.integers(1288834974657, 3487858230208),
    datacenter=st.integers(0, 31),
    machine=st.integers(0, 31),
    sequence=st.integers(0, 4095),
)
def test_parts_to_snowid_to_parts_round_trips(
    timestamp: int, datacenter: int, machine: int, sequence: int
) -> None:
    snow = SnowId.from_parts(
        timestamp=timestamp, datacenter=datacenter, machine=machine, sequence=sequence
    )
    assert (snow.timestamp, snow.datacenter, snow.machine, snow.sequence) == (
        timestamp,
        datacenter,
        machine,
        sequence,
    )


@pytest.mark.parametrize("blank", [None, "", "   ", "\t"])
def test_a_blank_sequence_means_zero(blank: object) -> None:
    value = SnowId.from_parts(timestamp=1288834975657, datacenter=1, machine=1, sequence=blank)
    assert value == SnowId(4194439168)


def test_whitespace_timestamp_means_now_as_on_the_page() -> None:
    value = SnowId.from_parts(timestamp="  ", datacenter=0, machine=0)
    assert abs(value.datetime - dt.datetime.now(dt.UTC)) < dt.timedelta(seconds=5)


def test_from_datetime_refuses_what_is_not_a_datetime() -> None:
    with pytest.raises(InvalidValueError, match=r"^datetime '2020' is not a valid value$"):
        SnowId.from_datetime("2020", datacenter=1, machine=1)  # type: ignore[arg-type]


def test_field_value_is_the_one_place_for_the_blank_defaults() -> None:
    """The page's per-field validation and from_parts share it: blank timestamp = the clock's
    now, blank sequence = 0, a blank identity is an error naming its field."""
    from snowid._id import field_value
    from snowid.testing import FakeClock

    clock = FakeClock(1288834975657)
    assert field_value("timestamp", " ", clock) == 1288834975657
    assert field_value("sequence", "", clock) == 0
    assert field_value("machine", "31", clock) == 31
    with pytest.raises(EmptyValueError, match=r"^machine is empty"):
        field_value("machine", "", clock)
    with pytest.raises(OutOfRangeError, match=r"^sequence 4096 is out of range 0\.\.4095$"):
        field_value("sequence", 4096, clock)
