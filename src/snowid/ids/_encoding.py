"""Ids as short strings: hex, Crockford base32, base36, Bitcoin base58 and base62.

Each base is an alphabet; a number is written most significant digit first, with no
sign and (except hex) no leading zeros, so every id has exactly one spelling. Hex is
the 16 digits snowid always shows (``SnowId.hex``). Reading is lenient only where the
base says so: hex, base32 and base36 ignore case, Crockford base32 also reads I and L
as 1, O as 0 and skips hyphens; base58 and base62 are case-sensitive. Surrounding white
space is ignored. No shifts here: digits are taken with divmod.
"""

from __future__ import annotations

from typing import Final

from snowid._exceptions import EmptyValueError, InvalidEncodingError, NumberTooLongError
from snowid.ids._parse import to_int, wrong_type

__all__ = ["BASES", "decode_text", "encode", "read_number"]

_ALPHABETS: Final = {
    "hex": "0123456789abcdef",
    "base32": "0123456789ABCDEFGHJKMNPQRSTVWXYZ",  # Crockford: no I, L, O, U
    "base36": "0123456789abcdefghijklmnopqrstuvwxyz",
    "base58": "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",  # Bitcoin's
    "base62": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
}
BASES: Final[tuple[str, ...]] = tuple(_ALPHABETS)
"""The bases ``SnowId.format`` writes and ``SnowId.parse(…, base=…)`` reads."""

# What a message shows as the allowed digits of each base.
_DIGITS_SHOWN: Final = {
    "hex": "0-9, a-f (any case)",
    "base32": "0-9, A-Z without I, L, O, U (any case; I and L read as 1, O as 0)",
    "base36": "0-9, a-z (any case)",
    "base58": "1-9, A-Z without I and O, a-z without l",
    "base62": "0-9, A-Z, a-z",
}
_FOLDS_CASE: Final = frozenset({"hex", "base32", "base36"})
_MAX_TEXT: Final = 200  # far past any 64-bit number in any of these bases

_READERS: Final[dict[str, dict[str, int]]] = {}
for _base, _alphabet in _ALPHABETS.items():
    _digits = {char: index for index, char in enumerate(_alphabet)}
    if _base in _FOLDS_CASE:
        _digits |= {char.swapcase(): index for char, index in _digits.items()}
    if _base == "base32":
        _digits |= {"I": 1, "i": 1, "L": 1, "l": 1, "O": 0, "o": 0}
    _READERS[_base] = _digits


def _check_base(base: object) -> str:
    if not isinstance(base, str) or base not in _ALPHABETS:
        raise InvalidEncodingError(
            field="base", value=str(base), reason="unknown_base", allowed=", ".join(BASES)
        )
    return base


def encode(value: int, base: str) -> str:
    """``value`` (not negative) written in ``base``."""
    alphabet = _ALPHABETS[_check_base(base)]
    if base == "hex":
        return f"{value:016x}"
    radix = len(alphabet)
    digits = []
    while True:
        value, digit = divmod(value, radix)
        digits.append(alphabet[digit])
        if not value:
            return "".join(reversed(digits))


def decode_text(text: str, base: str, field: str = "id") -> int:
    """The number ``text`` writes in ``base`` (hex may start with 0x), or the error naming
    the first character (counted in ``text`` as given) that is not one of its digits."""
    digits = _READERS[_check_base(base)]
    body = text.strip()
    offset = len(text) - len(text.lstrip())
    if base == "hex" and body[:2] in ("0x", "0X"):
        body, offset = body[2:], offset + 2
    significant = body.replace("-", "") if base == "base32" else body
    if not significant:
        raise EmptyValueError(field=field, value=text)
    if len(body) > _MAX_TEXT:
        raise NumberTooLongError(field=field, value=text, digits=len(body))
    radix = len(_ALPHABETS[base])
    number = 0
    for position, char in enumerate(body, start=offset + 1):
        if char == "-" and base == "base32":
            continue  # Crockford: hyphens only group the digits for reading
        digit = digits.get(char)
        if digit is None:
            raise InvalidEncodingError(
                field=field,
                value=text,
                reason="digit",
                base=base,
                character=char,
                position=position,
                allowed=_DIGITS_SHOWN[base],
            )
        number = number * radix + digit
    return number


def read_number(value: object, field: str = "id", base: str | None = None) -> int:
    """A number as given: an int, a decimal string (spaces and ``_`` allowed), ``0x…`` hex,
    or, when ``base`` is named, text in that base."""
    if base is not None:
        _check_base(base)
        if not isinstance(value, str):
            raise wrong_type(field, value, f"parse(base={base!r})", "str")
        return decode_text(value, base, field)
    if isinstance(value, str) and value.strip()[:2] in ("0x", "0X"):
        return decode_text(value, "hex", field)
    return to_int(field, value)
