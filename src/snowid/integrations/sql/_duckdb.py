"""DuckDB: macros per layout, from ``_plan`` (a macro is inlined into the query, so DuckDB
vectorises it like any expression).

- ``<prefix>_checked(id)``: the id as an unsigned ``HUGEINT``, or snowid's error;
- ``<prefix>_timestamp(id) → TIMESTAMP WITH TIME ZONE``, ``<prefix>_unix_ms(id) →
  BIGINT``, ``<prefix>_<field>(id)`` for each field, and ``<prefix>_parts(id)``: a
  STRUCT of the time and every field;
- ``<prefix>_first_id_at(t)`` and ``<prefix>_last_id_at(t)`` for a ``TIMESTAMP`` (read as
  UTC) or ``TIMESTAMPTZ``: the bounds of ``BETWEEN``, as ``snowid.first_id_at`` and
  ``last_id_at`` compute them; a ``UBIGINT`` for a layout whose time reaches bit 63
  (keep such ids in a ``UBIGINT`` column), else a ``BIGINT``.

An id may be a ``BIGINT`` (a negative one of an unsigned layout is the stored form of an
id from ``2**63`` on), a ``UBIGINT`` or a ``HUGEINT``: it is read as a ``HUGEINT``, and a
value that is no id raises snowid's message through ``error()``, as does a time outside
the layout. Times are whole microseconds (``epoch_us``, ``make_timestamptz``): no float.
"""

from __future__ import annotations

from snowid.integrations.sql._plan import UNSIGNED_MAX, Plan

__all__ = ["names", "statements"]

_BIGINT_MIN = -(2**63)


def names(plan: Plan) -> list[str]:
    fields = [plan.name(field.name) for field in plan.fields]
    return [
        plan.name("checked"),
        plan.name("unix_ms"),
        plan.name("timestamp"),
        *fields,
        plan.name("parts"),
        plan.name("first_id_at"),
        plan.name("last_id_at"),
    ]


def _concat(*parts: str) -> str:
    return " || ".join(parts)


def _checked(plan: Plan, value: str) -> str:
    """``value`` as the unsigned id (a HUGEINT), or the error of the first check it fails."""
    given = f"CAST({value} AS HUGEINT)"
    checks = plan.id_checks(given, _BIGINT_MIN * 2, UNSIGNED_MAX + 1)
    cases = "".join(
        f" WHEN {check.condition} THEN error("
        f"{plan.message(check.error, f'CAST({given} AS VARCHAR)', _concat)})"
        for check in checks
    )
    unsigned = plan.unsigned_id(given)
    return f"(CASE{cases} ELSE {unsigned} END)" if cases else unsigned


def _time(ms: str) -> str:
    return f"make_timestamptz({ms} * 1000)"


def _macro(name: str, argument: str, body: str) -> str:
    return f"CREATE OR REPLACE MACRO {name}({argument}) AS\n    {body}"


def statements(plan: Plan) -> list[str]:
    """One ``CREATE OR REPLACE MACRO`` per name of ``names``, in that order: the others
    read the id through ``<prefix>_checked``, which raises for a value that is no id."""
    u = f"{plan.name('checked')}(id)"
    fields = [(field.name, f"CAST({plan.field(u, field)} AS BIGINT)") for field in plan.fields]
    time = _time(f"{plan.name('unix_ms')}(id)")
    parts = ", ".join([f'"timestamp" := {time}'] + [f'"{n}" := {v}' for n, v in fields])
    return [
        _macro(plan.name("checked"), "id", _checked(plan, "id")),
        _macro(plan.name("unix_ms"), "id", f"CAST({plan.unix_ms(u)} AS BIGINT)"),
        _macro(plan.name("timestamp"), "id", time),
        *(_macro(plan.name(name), "id", value) for name, value in fields),
        _macro(plan.name("parts"), "id", f"struct_pack({parts})"),
        _bound(plan, last=False),
        _bound(plan, last=True),
    ]


def _bound(plan: Plan, *, last: bool) -> str:
    micros = "epoch_us(t)"
    # whole-number division truncates: round the microseconds by their sign
    if last:
        ms = f"(CASE WHEN {micros} >= 0 THEN {micros} // 1000 ELSE -((999 - {micros}) // 1000) END)"
    else:
        ms = f"(CASE WHEN {micros} >= 0 THEN ({micros} + 999) // 1000 ELSE -((-{micros}) // 1000) END)"
    cases = "".join(
        f" WHEN {check.condition} THEN error("
        f"{plan.message(check.error, f'CAST({ms} AS VARCHAR)', _concat)})"
        for check in plan.bound_checks(ms, last=last)
    )
    kind = "UBIGINT" if plan.unsigned else "BIGINT"
    value = plan.bound(f"CAST({ms} AS HUGEINT)", lambda a, b: f"({a} // {b})", last=last)
    name = plan.name("last_id_at" if last else "first_id_at")
    return _macro(name, "t", f"(CASE{cases} ELSE CAST({value} AS {kind}) END)")
