"""What makes a layout usable, checked once when it is made (``Layout.__post_init__``).

Each refusal is an ``InvalidLayoutError`` whose ``reason`` names the rule broken; a wrong
type is a ``WrongTypeError``. No bits are touched here.
"""

from __future__ import annotations

import re
from typing import Final

from snowid._exceptions import InvalidLayoutError
from snowid._isotime import MAX_EXACT_MS
from snowid.ids._parse import wrong_type

__all__ = [
    "ID_BITS",
    "MAX_EXACT_MS",
    "MAX_FIELD_BITS",
    "MAX_UNIT_MS",
    "RESERVED_FIELDS",
    "check_layout",
    "read_fields",
]

ID_BITS: Final = 64
MAX_FIELD_BITS: Final = 32  # a field other than the time: its values stay exact everywhere
MAX_UNIT_MS: Final = 86_400_000  # one day
RESERVED_FIELDS: Final = frozenset({"timestamp", "layout", "id", "clock"})
_FIELD_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")


def read_fields(fields: object) -> tuple[tuple[str, int], ...]:
    """``fields`` as a tuple of (str, int) pairs, or a WrongTypeError."""
    try:
        pairs = tuple((name, width) for name, width in fields)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        pairs = ()
        bad = True
    else:
        bad = not all(
            isinstance(name, str) and type(width) is int for name, width in pairs
        ) or isinstance(fields, str | bytes)
    if bad:
        raise wrong_type("fields", fields, "Layout()", "(name, width) pairs")
    return pairs


def check_layout(
    name: str, epoch_ms: int, unit_ms: int, fields: tuple[tuple[str, int], ...], signed: bool
) -> None:
    for label, number in (("name", name), ("epoch_ms", epoch_ms), ("unit_ms", unit_ms)):
        expected = str if label == "name" else int
        if type(number) is not expected:
            raise wrong_type(label, number, "Layout()", expected.__name__)
    if not 0 <= epoch_ms <= MAX_EXACT_MS:
        raise InvalidLayoutError(value=name, reason="epoch", epoch=epoch_ms, max=MAX_EXACT_MS)
    if not 1 <= unit_ms <= MAX_UNIT_MS:
        raise InvalidLayoutError(value=name, reason="unit", unit=unit_ms, max=MAX_UNIT_MS)
    if not fields:
        raise InvalidLayoutError(value=name, reason="no_fields")
    seen: set[str] = set()
    expected_total = ID_BITS - 1 if signed else ID_BITS
    for index, (field_name, width) in enumerate(fields):
        if not _FIELD_NAME.fullmatch(field_name):
            raise InvalidLayoutError(value=name, reason="field_name", name=field_name)
        if field_name in seen:
            raise InvalidLayoutError(value=name, reason="duplicate_field", name=field_name)
        if index and field_name in RESERVED_FIELDS:
            raise InvalidLayoutError(value=name, reason="reserved_field", name=field_name)
        seen.add(field_name)
        widest = expected_total if index == 0 else MAX_FIELD_BITS
        if not 1 <= width <= widest:
            raise InvalidLayoutError(
                value=name, reason="width", name=field_name, width=width, max=widest
            )
    total = sum(width for _, width in fields)
    if total != expected_total:
        raise InvalidLayoutError(
            value=name, reason="total_width", total=total, expected=expected_total
        )
    last = epoch_ms + (2 ** fields[0][1] - 1) * unit_ms  # its last time (Layout derives it too)
    if last > MAX_EXACT_MS:
        raise InvalidLayoutError(value=name, reason="time_range", last=last, max=MAX_EXACT_MS)
