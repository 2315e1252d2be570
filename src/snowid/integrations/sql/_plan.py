"""What every engine's SQL for one layout is made of, read from the layout and written once.

Each engine module (``_postgres``, ``_mysql``, ``_sqlite``, ``_duckdb``) wraps these
pieces in its own statements; none of them writes a number of its own. Every shift and
mask is the layout's (``Layout.shifts``, ``maxima``, ``low_mask``), the epoch and unit are
its, and the limits are its ranges: the SQL shifts and masks, this module only writes
the text that does. The expressions are fully parenthesised, since the engines rank
``<<``, ``&`` and ``+`` differently.

An id in an SQL engine is a signed 64-bit integer (PostgreSQL ``bigint``, SQLite
``INTEGER``, MySQL ``BIGINT``, DuckDB ``BIGINT``) or, in MySQL and DuckDB, also an
unsigned one. A layout whose time reaches bit 63 (Discord, Instagram, Mastodon, an
unsigned custom layout) has ids from ``2**63`` on that a signed column keeps as the
negative number of the same bits, as Instagram's ``next_id()`` does. ``(id >> shift) &
max`` reads the same fields from either form (the shift copies the sign bit in, the mask
cuts it off), so the decoding expressions take both.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from snowid._exceptions import (
    IdTooLargeError,
    NegativeIdError,
    SignBitSetError,
    SnowIdError,
    TimestampAfterEndError,
    TimestampBeforeEpochError,
)
from snowid.ids import TWITTER, Layout, get_layout
from snowid.integrations.sql._exceptions import SqlNameError

__all__ = [
    "BIGINT_MAX",
    "BIGINT_MIN",
    "MARK",
    "UNSIGNED_MAX",
    "Check",
    "Plan",
    "literal",
    "plan",
]

MARK: Final = "@@snowid-sql-value@@"
"""Where the SQL value goes inside a catalog message (``Plan.message``)."""
BIGINT_MIN: Final = -(2**63)
BIGINT_MAX: Final = 2**63 - 1
UNSIGNED_MAX: Final = 2**64 - 1
WRAP: Final = 2**64
"""Added to a negative stored id: the unsigned id of the same bits."""

_IDENT = re.compile(r"[a-z][a-z0-9_]*")
_MAX_NAME = 63  # PostgreSQL cuts longer names (NAMEDATALEN - 1); MySQL allows 64
SUFFIXES: Final = ("timestamp", "parts", "unix_ms", "first_id_at", "last_id_at", "checked")
"""What each function's name ends in, after the layout's prefix; a field adds its name."""


@dataclass(frozen=True, slots=True)
class Field:
    """One field other than the time: its name, shift and largest value, from the layout."""

    name: str
    shift: int
    maximum: int
    width: int


@dataclass(frozen=True, slots=True)
class Check:
    """A condition on an SQL value that makes the input wrong, and the error it raises."""

    condition: str
    error: SnowIdError


@dataclass(frozen=True, slots=True)
class Plan:
    """The SQL pieces of one layout, in the language ``lang`` of the errors they raise."""

    layout: Layout
    lang: str
    prefix: str
    """``snowid`` for Twitter (today's PostgreSQL names), ``snowid_<name>`` for the others."""

    @property
    def fields(self) -> tuple[Field, ...]:
        layout = self.layout
        found = zip(layout.fields, layout.shifts, layout.maxima, strict=True)
        return tuple(Field(name, shift, top, width) for (name, width), shift, top in found)[1:]

    @property
    def unsigned(self) -> bool:
        """The time reaches bit 63: a signed column keeps the later ids negative."""
        return not self.layout.signed

    def name(self, suffix: str) -> str:
        """The function (or view column) name ending in ``suffix``."""
        return f"{self.prefix}_{suffix}"

    # --- reading an id ---------------------------------------------------------------

    def field(self, source: str, field: Field) -> str:
        moved = source if field.shift == 0 else f"({source} >> {field.shift})"
        return f"({moved} & {field.maximum})"

    def ticks(self, source: str) -> str:
        """The time field's raw value (ticks since the epoch)."""
        layout = self.layout
        time = Field(layout.time_field, layout.shifts[0], layout.maxima[0], 0)
        return self.field(source, time)

    def unix_ms(self, source: str) -> str:
        """The id's time in Unix milliseconds (an integer: exact in every engine)."""
        layout = self.layout
        ticks = self.ticks(source)
        scaled = ticks if layout.unit_ms == 1 else f"({ticks} * {layout.unit_ms})"
        return scaled if layout.epoch_ms == 0 else f"({layout.epoch_ms} + {scaled})"

    def id_checks(self, value: str, low: int, high: int) -> list[Check]:
        """What makes ``value`` (an SQL integer that may hold ``low..high``) no id of the
        layout, as ``Layout.check_id`` decides; a negative value is an id of an unsigned
        layout down to ``BIGINT_MIN`` (the stored form of a signed column)."""
        layout, checks = self.layout, []
        name, top, bits = layout.name, layout.max_id, layout.total_bits
        lowest = BIGINT_MIN if self.unsigned else 0
        if low < lowest:
            negative = NegativeIdError(field="id", value=MARK, layout=name, max=top)
            checks.append(Check(f"{value} < {lowest}", negative))
        if high > UNSIGNED_MAX:
            large = IdTooLargeError(field="id", value=MARK, layout=name, max=top, bits=bits)
            checks.append(Check(f"{value} > {UNSIGNED_MAX}", large))
        if layout.signed and high > top:
            sign = SignBitSetError(field="id", value=MARK, layout=name, max=top, bit=bits - 1)
            checks.append(Check(f"{value} > {top}", sign))
        return checks

    def unsigned_id(self, value: str) -> str:
        """``value`` (checked) as the unsigned id: a negative stored id plus ``2**64``."""
        if not self.unsigned:
            return value
        return f"(CASE WHEN {value} < 0 THEN {value} + {WRAP} ELSE {value} END)"

    # --- the ids of a time ---------------------------------------------------------------

    def bound_checks(self, ms: str, *, last: bool) -> list[Check]:
        """Unix ms ``ms`` (already rounded: up for the first id, down for the last) outside
        the ticks an id holds: ``first_id_at``/``last_id_at``'s errors, as Python raises
        them (``Layout.time_error``)."""
        layout = self.layout
        first, unit = layout.epoch_ms, layout.unit_ms
        end = layout.max_timestamp + unit - 1
        before = TimestampBeforeEpochError(
            field="timestamp", value=MARK, min=first, max=end, layout=layout.name
        )
        after = TimestampAfterEndError(
            field="timestamp", value=MARK, min=first, max=end, layout=layout.name
        )
        if last:  # the tick it falls in: none before the epoch, none past the last tick
            return [Check(f"{ms} < {first}", before), Check(f"{ms} > {end}", after)]
        # rounded up to the next tick: the first tick from a unit before the epoch on
        return [
            Check(f"{ms} <= {first - unit}", before),
            Check(f"{ms} > {layout.max_timestamp}", after),
        ]

    def bound(self, ms: str, divide: Callable[[str, int], str], *, last: bool) -> str:
        """The first (or last) id of the tick of checked Unix ms ``ms``: ``divide(a, b)``
        is the engine's whole-number division of a non-negative ``a``."""
        layout = self.layout
        since = f"({ms} - {layout.epoch_ms})" if layout.epoch_ms else ms
        if layout.unit_ms == 1:
            ticks = since
        elif last:
            ticks = divide(since, layout.unit_ms)
        else:
            ticks = divide(f"({since} + {layout.unit_ms - 1})", layout.unit_ms)
        first = f"({ticks} << {layout.shifts[0]})"
        return f"({first} | {layout.low_mask})" if last else first

    # --- messages -----------------------------------------------------------------------

    def message(
        self,
        error: SnowIdError,
        value_sql: str,
        concat: Callable[..., str],
        *,
        backslashes: bool = False,
    ) -> str:
        """``error``'s catalog message as SQL: ``concat(head, value_sql, tail)`` with the
        two texts as literals (``literal``)."""
        head, _, tail = error.message(self.lang).partition(MARK)
        return concat(
            literal(head, backslashes=backslashes),
            value_sql,
            literal(tail, backslashes=backslashes),
        )


def literal(text: str, *, backslashes: bool = False) -> str:
    """``text`` as an SQL string literal; ``backslashes`` doubles them (MySQL reads ``\\``
    as an escape in its literals)."""
    if backslashes:
        text = text.replace("\\", "\\\\")
    return "'" + text.replace("'", "''") + "'"


def plan(layout: Layout | str = TWITTER, lang: str = "en") -> Plan:
    """The plan of ``layout`` (a Layout, a built-in's name or a spec); SqlNameError when
    its name cannot name SQL functions, or a field's name clashes with one of them."""
    spec = get_layout(layout)
    if spec == TWITTER:
        prefix = "snowid"
    else:
        ident = spec.name.strip().lower().replace("-", "_")
        if not _IDENT.fullmatch(ident):
            raise SqlNameError(field="layout", value=spec.name, reason="layout")
        prefix = f"snowid_{ident}"
    result = Plan(layout=spec, lang=lang, prefix=prefix)
    names = [*SUFFIXES, *(field.name for field in result.fields)]
    clash = next((name for name in result.layout.field_names if name in SUFFIXES), None)
    if clash is not None:
        raise SqlNameError(field="layout", value=clash, reason="clash")
    longest = max((result.name(name) for name in names), key=len)
    if len(longest) > _MAX_NAME:
        raise SqlNameError(field="layout", value=longest, reason="length")
    return result
