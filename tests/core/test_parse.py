"""The boundary coercion: only whole numbers pass, every refusal names the field."""

from __future__ import annotations

import pytest

from snowid import SnowId
from snowid.errors import (
    EmptyValueError,
    IdTooLargeError,
    NotAnIntegerError,
    NumberTooLongError,
    TimestampAfterEndError,
)
from snowid.ids._fields import read_field
from snowid.ids._parse import to_int


@pytest.mark.parametrize(
    ("value", "expected"),
    [(5, 5), ("5", 5), (" 42 ", 42), ("-3", -3), ("1_000", 1000), (7.0, 7), ("+9", 9)],
)
def test_whole_numbers_pass(value: object, expected: int) -> None:
    assert to_int("machine", value) == expected


@pytest.mark.parametrize(
    "value",
    [
        True,
        False,
        1.5,
        float("nan"),
        float("inf"),
        "12abc",
        "1.0",
        "0x10",
        "１２",
        "--1",
        None,
        [1],
    ],
)
def test_non_integers_are_refused_with_the_field_named(value: object) -> None:
    with pytest.raises(NotAnIntegerError) as caught:
        to_int("sequence", value)
    assert caught.value.field == "sequence"
    assert str(caught.value).startswith("sequence ")
    assert isinstance(caught.value, ValueError)
    assert isinstance(caught.value, TypeError)


@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_string_is_its_own_error(value: str) -> None:
    with pytest.raises(EmptyValueError, match="datacenter is empty"):
        to_int("datacenter", value)


def test_long_numbers_are_converted_exactly_so_the_range_check_can_name_them() -> None:
    assert to_int("id", "9" * 100) == int("9" * 100)


def test_numbers_of_thousands_of_digits_are_refused_without_converting_them() -> None:
    with pytest.raises(NumberTooLongError) as caught:
        to_int("id", "9" * 100_000)
    assert caught.value.digits == 100_000
    assert "(100000 digits)" not in str(caught.value)  # the text is shortened, not the count
    assert len(str(caught.value)) < 200


# --- regression tests from the first wave's reviews (each failed before its fix) ---


# Adversarial review, finding 6: a long run of digits is called "not a whole number" (failed before its fix).
def test_a_huge_whole_number_is_out_of_range_not_not_an_integer() -> None:
    with pytest.raises(IdTooLargeError):
        SnowId.parse("9" * 50)
    with pytest.raises(TimestampAfterEndError):
        read_field("timestamp", "9" * 50)  # the page's and the CLI's reader
