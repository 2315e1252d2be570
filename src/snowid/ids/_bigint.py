"""Instagram's ids as its database stores them: in a signed 64-bit ``bigint``.

Instagram's PL/pgSQL ``next_id()`` (its 2012 post "Sharding & IDs at Instagram") puts
``(ms - epoch) << 23 | shard << 10 | sequence`` into a ``bigint``. Its 41-bit time fills
bit 63, so from 2046-06-27T17:00:49.497Z (``BIGINT_WRAP_MS``) the stored value is negative:
the same 64 bits read as two's complement. snowid's ids stay the unsigned number (``compose``,
``first_id_at``, ``id_range`` give it); these helpers give the stored form, and the bounds
of a time window as ``BETWEEN`` ranges over the stored column: two ranges when the window
crosses that instant, since one range over the wrapped values would miss rows.
"""

from __future__ import annotations

from typing import Final

from snowid._exceptions import IdTooLargeError, NegativeIdError
from snowid.ids._builtins import INSTAGRAM, get_layout
from snowid.ids._layout import Layout
from snowid.ids._timerange import EMPTY, Moment, id_range

__all__ = ["BIGINT_WRAP_MS", "as_bigint", "bigint_ranges", "from_bigint"]

_TOP: Final = 2**63
_SPAN: Final = 2**64

BIGINT_WRAP_MS: Final = INSTAGRAM.epoch_ms + INSTAGRAM.split(_TOP)[0] * INSTAGRAM.unit_ms
"""The first Unix ms whose Instagram ids are stored negative: 2046-06-27T17:00:49.497Z."""


def as_bigint(value: int) -> int:
    """The unsigned 64-bit id ``value`` as a signed ``bigint`` column stores it (the same
    bits, two's complement): ids from ``2**63`` on become negative."""
    if value < 0:
        raise NegativeIdError(field="id", value=value, layout="bigint", max=_SPAN - 1)
    if value >= _SPAN:
        raise IdTooLargeError(field="id", value=value, layout="bigint", max=_SPAN - 1, bits=64)
    return value - _SPAN if value >= _TOP else value


def from_bigint(stored: int) -> int:
    """The unsigned id of a stored ``bigint`` (-2**63..2**63 - 1): ``as_bigint`` undone."""
    if not -_TOP <= stored < _TOP:
        raise IdTooLargeError(field="id", value=stored, layout="bigint", max=_TOP - 1, bits=64)
    return stored + _SPAN if stored < 0 else stored


def bigint_ranges(
    start: Moment, end: Moment, layout: Layout | str = INSTAGRAM
) -> tuple[tuple[int, int], ...]:
    """The ``(low, high)`` ranges of stored ``bigint`` values made in ``[start, end]``
    (``id_range``'s window, in the stored form): one range, or two when the window crosses
    ``2**63`` (for Instagram, 2046-06-27T17:00:49.497Z): the ids before it, then the
    negative ones after it. ``WHERE id BETWEEN a AND b OR id BETWEEN c AND d`` finds every
    row. A window without ids gives ``(EMPTY,)``."""
    low, high = id_range(start, end, get_layout(layout))
    if (low, high) == EMPTY:
        return (EMPTY,)
    if high < _TOP or low >= _TOP:
        return ((as_bigint(low), as_bigint(high)),)
    return ((low, _TOP - 1), (-_TOP, as_bigint(high)))
