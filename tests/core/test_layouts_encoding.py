"""SnowId.format and SnowId.parse in hex, Crockford base32, base36, Bitcoin base58, base62."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snowid import BASES, SnowId, decode
from snowid.errors import (
    EmptyValueError,
    InvalidEncodingError,
    NumberTooLongError,
    SignBitSetError,
    WrongTypeError,
)
from snowid.ids._encoding import decode_text, encode

ALPHABETS = {
    "hex": "0123456789abcdef",
    "base32": "0123456789ABCDEFGHJKMNPQRSTVWXYZ",
    "base36": "0123456789abcdefghijklmnopqrstuvwxyz",
    "base58": "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",
    "base62": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
}


@given(st.integers(0, 2**63 - 1), st.sampled_from(BASES))
def test_every_id_round_trips_through_every_base(value: int, base: str) -> None:
    sid = SnowId(value)
    text = sid.format(base)
    assert SnowId.parse(text, base=base) == sid
    assert set(text) <= set(ALPHABETS[base])


@given(st.integers(0, 2**64 - 1), st.sampled_from([b for b in BASES if b != "hex"]))
def test_the_spelling_is_the_shortest_and_the_only_one(value: int, base: str) -> None:
    """No leading zero digit (except for 0 itself), and the digits are the number's in the
    base, most significant first: the same value reads back from Python's own int() where
    Python knows the base (36), and digit by digit for the others."""
    text = encode(value, base)
    alphabet = ALPHABETS[base]
    assert text == alphabet[0] or text[0] != alphabet[0]
    total = 0
    for char in text:
        total = total * len(alphabet) + alphabet.index(char)
    assert total == value
    if base == "base36":
        assert int(text, 36) == value


@pytest.mark.parametrize(
    ("base", "value", "text"),
    [
        # Each base's digits are its alphabet: the last digit, then the first two-digit number.
        ("base58", 57, "z"),
        ("base58", 58, "21"),
        ("base62", 61, "z"),
        ("base62", 62, "10"),
        ("base32", 31, "Z"),
        ("base32", 1234, "16J"),  # 1*32**2 + 6*32 + 18 (J is Crockford's 18)
        ("base36", 35, "z"),
        ("hex", 4194439168, "00000000fa021000"),
    ],
)
def test_known_spellings(base: str, value: int, text: str) -> None:
    assert encode(value, base) == text
    assert decode_text(text, base) == value


def test_hex_is_the_16_digits_snowid_always_shows() -> None:
    sid = SnowId(4194439168)
    assert sid.format("hex") == sid.hex
    assert SnowId.parse("0xFA021000") == sid
    assert SnowId.parse(" 0x00000000fa021000 ") == sid
    assert SnowId.parse("fa021000", base="hex") == sid


def test_crockford_base32_reads_leniently() -> None:
    """Crockford's decoding rules: any case, I and L are 1, O is 0, hyphens are ignored."""
    assert decode_text("16j", "base32") == 1234
    assert decode_text("IL-o", "base32") == decode_text("110", "base32")
    with pytest.raises(InvalidEncodingError) as caught:
        decode_text("1U", "base32")  # U is not a Crockford digit
    assert (caught.value.character, caught.value.position) == ("U", 2)


def test_base58_and_base62_are_case_sensitive() -> None:
    assert decode_text("z", "base62") != decode_text("Z", "base62")
    with pytest.raises(InvalidEncodingError) as caught:
        decode_text("10l", "base58")  # l (and 0, O, I) are left out of Bitcoin's alphabet
    message = str(caught.value)
    assert "10l is not a base58 number: 0 at position 2" in message
    assert "1-9, A-Z without I and O, a-z without l" in message


@pytest.mark.parametrize(
    ("text", "base", "error"),
    [
        ("", "base62", EmptyValueError),
        ("0x", "hex", EmptyValueError),
        ("zz", "hex", InvalidEncodingError),
        ("z" * 300, "base62", NumberTooLongError),
    ],
)
def test_text_that_is_no_number_in_the_base_is_refused(
    text: str, base: str, error: type[Exception]
) -> None:
    with pytest.raises(error):
        SnowId.parse(text, base=base)


def test_a_number_past_the_twitter_range_is_refused_after_reading() -> None:
    big = encode(2**63, "base62")
    with pytest.raises(SignBitSetError):
        SnowId.parse(big, base="base62")
    assert decode(decode_text(big, "base62"), "discord").id == 2**63


def test_unknown_bases_and_wrong_types_are_named() -> None:
    with pytest.raises(InvalidEncodingError) as caught:
        SnowId(1).format("base64")
    assert "hex, base32, base36, base58, base62" in str(caught.value)
    with pytest.raises(WrongTypeError):
        SnowId.parse(5, base="base62")
    assert "hệ cơ số" in caught.value.message("vi")
