"""What the integrations accept as an id: a SnowId, an int or a decimal string, nothing else."""

from __future__ import annotations

import enum

import pytest

from snowid import SnowId
from snowid.errors import (
    EmptyValueError,
    FloatIdError,
    IdTooLargeError,
    InvalidValueError,
    NegativeIdError,
    NotAnIntegerError,
    SignBitSetError,
)
from snowid.ids._convert import to_snowid

MAX = 2**63 - 1


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (SnowId(4194439168), 4194439168),
        (4194439168, 4194439168),
        ("4194439168", 4194439168),
        ("9223372036854775807", MAX),
        (MAX, MAX),
        (0, 0),
        ("0", 0),
        ("0004194439168", 4194439168),
    ],
)
def test_accepted_forms(value: object, expected: int) -> None:
    result = to_snowid(value)
    assert type(result) is SnowId
    assert int(result) == expected


def test_an_int_subclass_is_taken_by_value_and_a_snowid_is_returned_as_is() -> None:
    class Big(enum.IntEnum):
        SEED = 4194439168

    assert to_snowid(Big.SEED) == SnowId(4194439168)
    # Its plain value: int() of a SnowId holding the member itself warned (DeprecationWarning,
    # __int__ returned non-int), and SnowIdType binds int(to_snowid(value)).
    assert type(int(to_snowid(Big.SEED))) is int
    sid = SnowId(5)
    assert to_snowid(sid) is sid


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (4194439168.0, FloatIdError),  # a JSON number: may already be another id
        (9.223372036854776e18, FloatIdError),
        (1.5, FloatIdError),
        (True, NotAnIntegerError),
        (None, NotAnIntegerError),
        (b"4194439168", NotAnIntegerError),
        ("", EmptyValueError),
        (" 4194439168", NotAnIntegerError),
        ("+4194439168", NotAnIntegerError),
        ("4_194_439_168", NotAnIntegerError),
        ("0x10", NotAnIntegerError),
        ("٤١٩", NotAnIntegerError),  # digits, but not ASCII ones
        ("abc", NotAnIntegerError),
        ("-5", NegativeIdError),
        (-5, NegativeIdError),
        (MAX + 1, SignBitSetError),
        (str(MAX + 1), SignBitSetError),
        (2**64, IdTooLargeError),
        ("9" * 30, IdTooLargeError),
    ],
)
def test_refusals_are_specific_and_name_the_field(value: object, error: type[Exception]) -> None:
    with pytest.raises(error) as caught:
        to_snowid(value, "author_id")
    assert isinstance(caught.value, InvalidValueError)
    assert caught.value.field == "author_id"
    assert str(caught.value).startswith("author_id")
