"""Issue 19 §4: Instagram's ids as its PL/pgSQL next_id() stores them, a signed bigint that
is negative from 2046-06-27T17:00:49.497Z on. snowid's ids stay unsigned; ``as_bigint`` and
``bigint_ranges`` give the stored form, and ``decode`` reads a stored negative."""

from __future__ import annotations

import pytest

import snowid
from snowid import BIGINT_WRAP_MS, INSTAGRAM, as_bigint, bigint_ranges, compose, from_bigint
from snowid.errors import IdTooLargeError, NegativeIdError
from snowid.ids import iso_ms

# 2047-06-28, shard 7485, sequence 52 (the example): the same 64 bits twice.
STORED = -8958609928324058060
UNSIGNED = 9488134145385493556


def test_the_wrap_is_the_first_millisecond_whose_id_sets_bit_63() -> None:
    assert iso_ms(BIGINT_WRAP_MS) == "2046-06-27T17:00:49.497Z"
    assert snowid.first_id_at(BIGINT_WRAP_MS, INSTAGRAM) == 2**63
    assert snowid.last_id_at(BIGINT_WRAP_MS - 1, INSTAGRAM) == 2**63 - 1


def test_decode_reads_instagrams_stored_negative_and_says_so() -> None:
    reading = snowid.decode(STORED, "instagram")
    assert reading.id == UNSIGNED
    assert reading.stored == STORED
    assert reading.fields == {"shard": 7485, "sequence": 52}
    assert reading.iso_utc is not None
    assert reading.iso_utc.startswith("2047-06-28")
    assert "instagram_bigint" in reading.warnings
    message = reading.messages("en")[-1]["message"]
    assert str(STORED) in message
    assert str(UNSIGNED) in message
    assert str(STORED) in reading.messages("vi")[-1]["message"]
    assert reading.as_dict()["stored"] == str(STORED)
    assert snowid.decode(str(STORED), "instagram") == reading
    assert snowid.decode(UNSIGNED, "instagram").stored is None


@pytest.mark.parametrize("layout", ["twitter", "discord", "mastodon", "sonyflake"])
def test_a_minus_sign_is_still_the_negative_id_error_in_every_other_layout(layout: str) -> None:
    with pytest.raises(NegativeIdError):
        snowid.decode(STORED, layout)


def test_below_the_bigint_range_is_refused() -> None:
    with pytest.raises(NegativeIdError):
        snowid.decode(-(2**63) - 1, "instagram")


def test_compose_and_the_bounds_stay_unsigned_and_as_bigint_gives_the_stored_form() -> None:
    ms = snowid.decode(UNSIGNED, "instagram").timestamp
    composed = compose(ms, "instagram", shard=7485, sequence=52)
    assert composed == UNSIGNED
    assert as_bigint(composed) == STORED
    assert from_bigint(STORED) == UNSIGNED
    assert as_bigint(2**63 - 1) == 2**63 - 1
    assert as_bigint(2**63) == -(2**63)
    with pytest.raises(NegativeIdError):
        as_bigint(-1)
    with pytest.raises(IdTooLargeError):
        as_bigint(2**64)


def test_a_window_crossing_the_wrap_gives_two_ranges_that_cover_it_all() -> None:
    start, end = BIGINT_WRAP_MS - 1000, BIGINT_WRAP_MS + 1000
    low, high = snowid.id_range(start, end, INSTAGRAM)
    assert bigint_ranges(start, end) == (
        (low, 2**63 - 1),
        (-(2**63), as_bigint(high)),
    )
    # A window on one side gives one range: unchanged before, negative after.
    assert bigint_ranges(start, BIGINT_WRAP_MS - 1) == ((low, 2**63 - 1),)
    after = bigint_ranges(BIGINT_WRAP_MS, end)
    assert after == ((-(2**63), as_bigint(high)),)
    assert bigint_ranges(end, start) == ((1, 0),)
