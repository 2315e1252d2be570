"""The one reader of typed-in compose fields (the page's and the CLI's): blank defaults,
lenient numbers, every bad field reported on its own."""

from __future__ import annotations

import pytest

from snowid import SnowId
from snowid.errors import (
    EmptyValueError,
    NotAnIntegerError,
    OutOfRangeError,
    TimestampAfterEndError,
)
from snowid.ids._fields import COMPOSE_FIELDS, read_compose_fields, read_field, read_id
from snowid.testing import FakeClock

NOW = 1288834975657
SEED = {"timestamp": "1288834975657", "datacenter": "1", "machine": "1", "sequence": "0"}


def test_the_seed_example_as_typed() -> None:
    assert read_compose_fields(SEED).snow_id() == SnowId(4194439168)


@pytest.mark.parametrize("blank", [None, "", "   ", "\t"])
def test_a_blank_timestamp_is_the_clocks_now_and_a_blank_sequence_zero(
    blank: str | None,
) -> None:
    clock = FakeClock(NOW)
    assert read_field("timestamp", blank, clock) == NOW
    assert read_field("sequence", blank, clock) == 0
    texts = {**SEED, "timestamp": blank, "sequence": blank}
    assert read_compose_fields(texts, clock).snow_id() == SnowId(4194439168)


@pytest.mark.parametrize("blank", [None, "", "  "])
def test_a_blank_identity_is_an_error_naming_its_field(blank: str | None) -> None:
    with pytest.raises(EmptyValueError, match=r"^machine is empty"):
        read_field("machine", blank)


def test_numbers_as_a_person_types_them() -> None:
    assert read_field("machine", " 31 ") == 31
    assert read_field("timestamp", "1_288_834_975_657") == NOW


def test_a_clock_past_the_last_millisecond_is_refused_for_a_blank_timestamp() -> None:
    with pytest.raises(TimestampAfterEndError):
        read_field("timestamp", "", FakeClock(2**42 + NOW))


def test_every_bad_field_is_reported_on_its_own() -> None:
    read = read_compose_fields({"timestamp": "x", "datacenter": "32", "machine": "1"})
    assert set(read.errors) == {"timestamp", "datacenter"}
    assert isinstance(read.errors["timestamp"], NotAnIntegerError)
    assert isinstance(read.errors["datacenter"], OutOfRangeError)
    assert read.numbers == {"machine": 1, "sequence": 0}  # a missing sequence is blank: 0
    with pytest.raises(NotAnIntegerError):  # the first in the form's order
        read.snow_id()
    assert read.first_error is read.errors["timestamp"]
    assert COMPOSE_FIELDS[0] == "timestamp"


def test_read_id_takes_what_a_person_pastes() -> None:
    assert read_id(" 4_194_439_168\n") == SnowId(4194439168)
    with pytest.raises(EmptyValueError):
        read_id("  ")
