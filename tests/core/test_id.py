"""SnowId: constructors, fields, conversions and the value-type contract."""

from __future__ import annotations

import datetime as dt
import operator
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowid import SnowId
from snowid.errors import (
    ContainsSpacesError,
    EmptyValueError,
    IdTooLargeError,
    NegativeIdError,
    NotAnIntegerError,
    NumberTooLongError,
    OutOfRangeError,
    SignBitSetError,
    TimestampAfterEndError,
    TimestampBeforeEpochError,
    WrongTypeError,
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


def test_from_parts_takes_ints_only_text_is_the_readers_job() -> None:
    with pytest.raises(WrongTypeError) as caught:
        SnowId.from_parts(timestamp="1288834975657", datacenter=1, machine=1)  # type: ignore[arg-type]
    assert (caught.value.field, caught.value.expected, caught.value.given_type) == (
        "timestamp",
        "int",
        "str",
    )
    assert str(caught.value) == (
        "SnowId.from_parts() takes int for timestamp, not str ('1288834975657')"
    )


def test_a_none_timestamp_means_now() -> None:
    before = dt.datetime.now(dt.UTC)
    value = SnowId.from_parts(timestamp=None, datacenter=0, machine=0, sequence=0)
    assert abs(value.datetime - before) < dt.timedelta(seconds=5)
    assert abs(SnowId.from_parts(datacenter=0, machine=0).datetime - before) < dt.timedelta(
        seconds=5
    )


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
        ({"machine": True}, WrongTypeError, "machine"),
        ({"sequence": 1.5}, WrongTypeError, "sequence"),
        ({"sequence": 2.0}, WrongTypeError, "sequence"),
        ({"datacenter": "12abc"}, WrongTypeError, "datacenter"),
        ({"machine": ""}, WrongTypeError, "machine"),
        ({"sequence": None}, WrongTypeError, "sequence"),
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
        (True, WrongTypeError),
        ("12abc", WrongTypeError),
        ("4194439168", WrongTypeError),
        ("", WrongTypeError),
        (1.5, WrongTypeError),
        (4194439168.0, WrongTypeError),
        (SnowId(5), WrongTypeError),
    ],
)
def test_invalid_ids_never_become_a_snowid(value: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        SnowId(value)  # type: ignore[arg-type]


def test_a_wrong_type_is_a_type_error_and_a_value_error() -> None:
    """pydantic turns only ValueErrors raised in a validator into a ValidationError."""
    with pytest.raises(WrongTypeError) as caught:
        SnowId("4194439168")  # type: ignore[arg-type]
    assert isinstance(caught.value, TypeError)
    assert isinstance(caught.value, ValueError)
    assert str(caught.value) == "SnowId() takes int for ID, not str ('4194439168')"
    assert "SnowId()" in caught.value.message("vi")


def test_an_int_subclass_is_taken_as_its_plain_value() -> None:
    class Number(int):
        pass

    value = SnowId(Number(SEED))
    assert value == SnowId(SEED)
    assert type(int(value)) is int


@pytest.mark.parametrize(
    ("text", "error"),
    [
        # Issue 18 §8: spaces and a minus sign get their own errors, as everywhere else
        # (before: "ID  4194439168 is not a whole number", the space invisible).
        (" 4194439168", ContainsSpacesError),
        ("4194439168 ", ContainsSpacesError),
        ("+4194439168", NotAnIntegerError),
        ("4_194_439_168", NotAnIntegerError),
        ("\u0664\u0661", NotAnIntegerError),
        ("-1", NegativeIdError),
        (" -1", NegativeIdError),
        (" ", EmptyValueError),
        ("", EmptyValueError),
        ("9" * 5000, NumberTooLongError),
        ("9" * 30, IdTooLargeError),
        (4194439168, WrongTypeError),
        (b"4194439168", WrongTypeError),
    ],
)
def test_from_str_takes_a_string_of_decimal_digits_and_nothing_else(
    text: object, error: type[Exception]
) -> None:
    with pytest.raises(error):
        SnowId.from_str(text)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "value",
    [
        SnowId(SEED),
        SEED,
        "4194439168",
        " 4194439168\t",
        "4_194_439_168",
        "+4194439168",
        4194439168.0,
    ],
)
def test_parse_is_the_one_lenient_entry(value: object) -> None:
    assert SnowId.parse(value) == SnowId(SEED)


def test_a_snowid_is_not_an_index() -> None:
    """``int(sid)`` is the way; a SnowId is not a list index."""
    assert not hasattr(SnowId, "__index__")
    with pytest.raises(TypeError):
        [0][SnowId(0)]  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        hex(SnowId(SEED))  # type: ignore[arg-type]


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
    assert pickle.loads(pickle.dumps(b)) == b


# Issue 18 §3 reversed the old rule ("compared only with its own type, like uuid.UUID"):
# an id is a number to its users, so `if post.author_id == user_id:` must be right.
SID = 4194439168


@pytest.mark.parametrize(
    ("other", "same"),
    [(SID, True), (SID - 1, False), (SID + 1, False), (True, False), (0, False)],
)
def test_compares_with_an_int_exactly_as_the_int_would(other: int, same: bool) -> None:
    sid = SnowId(SID)
    assert (sid == other) is (other == SID) is same
    assert (other == sid) is same
    assert (sid != other) is (not same)
    for op in (operator.lt, operator.le, operator.gt, operator.ge):
        assert op(sid, other) is op(SID, other)
        assert op(other, sid) is op(other, SID)


@given(st.integers(0, 2**63 - 1), st.integers(-(2**70), 2**70))
def test_every_comparison_with_any_int_is_the_int_s(value: int, other: int) -> None:
    sid = SnowId(value)
    for op in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
        assert op(sid, other) is op(value, other)
        assert op(other, sid) is op(other, value)
    assert hash(sid) == hash(value)


def test_hashes_as_its_int_so_sets_and_dict_keys_mix() -> None:
    sid = SnowId(SID)
    assert hash(sid) == hash(SID)
    assert SID in {sid}
    assert sid in {SID}
    assert {SnowId(5): "a", 5: "b"} == {5: "b"}  # one key
    assert len({SnowId(1), 1}) == 1


@pytest.mark.parametrize("other", [str(SID), float(SID), SID + 0j, b"4194439168", None])
def test_never_equals_a_str_float_or_anything_else(other: object) -> None:
    sid = SnowId(SID)
    assert sid != other
    assert other != sid
    assert sid.__eq__(other) is NotImplemented
    assert sid.__lt__(other) is NotImplemented  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        _ = sid < other  # type: ignore[operator]


def test_stays_a_distinct_type_without_arithmetic() -> None:
    sid = SnowId(SID)
    assert not isinstance(sid, int)
    with pytest.raises(TypeError):
        _ = sid + 1  # type: ignore[operator]
    with pytest.raises(TypeError):
        _ = -sid  # type: ignore[operator]


@pytest.mark.parametrize("spec", [",", "_", "x", "X", "d", "020d", ">15", "<15,", "#x", "b", ""])
def test_formats_with_the_int_format_specs(spec: str) -> None:
    assert format(SnowId(SID), spec) == format(SID, spec)
    assert f"{SnowId(SID):,}" == "4,194,439,168"


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


def test_from_datetime_refuses_what_is_not_a_datetime() -> None:
    with pytest.raises(
        WrongTypeError, match=r"^SnowId.from_datetime\(\) takes datetime for datetime, not str"
    ):
        SnowId.from_datetime("2020", datacenter=1, machine=1)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [-1, 2**63])
def test_the_fast_constructor_asserts_its_int_is_a_twitter_id(value: int) -> None:
    """Issue 17: one fast constructor, inside SnowId's module, as uuid.UUID._from_int:
    no second check, but an assertion against the bug of a wrong int."""
    assert SnowId._from_int(4194439168) == SnowId(4194439168)
    with pytest.raises(AssertionError):
        SnowId._from_int(value)


def test_the_process_wide_next_id_is_a_named_function_that_pickles() -> None:
    """snowid.next_id is a plain function of snowid.process._default (issue 28 replaced
    SnowId._from_source by the generator's runs): it looks and pickles like one."""
    import pickle

    import snowid

    assert snowid.next_id.__name__ == "next_id"
    assert snowid.next_id.__doc__
    assert pickle.loads(pickle.dumps(snowid.next_id)) is snowid.next_id


def test_from_ints_makes_the_same_ids_as_from_int() -> None:
    """Issue 28 §3: snowid.next_ids builds its SnowIds in two C loops (SnowId._from_ints)."""
    values = range(4194439168, 4194439168 + 300)
    made = SnowId._from_ints(values)
    assert made == [SnowId(v) for v in values]
    assert all(type(sid) is SnowId for sid in made)
    assert SnowId._from_ints([]) == []
    with pytest.raises(AssertionError):
        SnowId._from_ints([-1])
