"""PostgreSQL: four PL/pgSQL functions per layout, from ``_plan``.

- ``<prefix>_timestamp(bigint) → timestamptz``: when the id was made;
- ``<prefix>_parts(bigint) → ("timestamp" timestamptz, <each field>)``;
- ``<prefix>_first_id_at(timestamptz) → bigint`` and ``<prefix>_last_id_at(timestamptz) →
  bigint``: the bounds of ``WHERE id BETWEEN …`` for a time window, as
  ``snowid.first_id_at``/``last_id_at`` compute them (a time between two ticks rounds up
  for the first, down for the last), in the stored form: an id from ``2**63`` on of an
  unsigned layout is the negative ``bigint`` of the same bits.

All four are ``IMMUTABLE STRICT PARALLEL SAFE`` (usable in indexes and in parallel plans),
and in PL/pgSQL so that bad input raises snowid's message (a negative id of a signed
layout; a time outside the layout) instead of giving a wrong answer. Times are exact:
``extract(epoch …)`` is numeric (PostgreSQL 14 on) and the id's time is whole days plus
milliseconds of intervals.
"""

from __future__ import annotations

from snowid.integrations.sql._plan import BIGINT_MAX, BIGINT_MIN, Check, Plan

__all__ = ["names", "statements"]

_QUALIFIERS = "IMMUTABLE STRICT PARALLEL SAFE"


def names(plan: Plan) -> list[str]:
    """The functions, in the order they are created."""
    return [plan.name(suffix) for suffix in ("timestamp", "parts", "first_id_at", "last_id_at")]


def statements(plan: Plan) -> list[str]:
    """One ``CREATE OR REPLACE FUNCTION`` per function."""
    return [_timestamp(plan), _parts(plan), _bound(plan, last=False), _bound(plan, last=True)]


_DAY_MS = 86_400_000


def _time(plan: Plan) -> str:
    """The id's time as timestamptz, from immutable operations only (read as UTC). An
    interval times a number goes through a float: whole days and the milliseconds of the
    last day keep both factors small enough to stay exact for every layout."""
    ms = plan.unix_ms("id")
    days = f"({ms} / {_DAY_MS}) * INTERVAL '1 day'"
    rest = f"({ms} % {_DAY_MS}) * INTERVAL '1 millisecond'"
    return f"(TIMESTAMP '1970-01-01 00:00:00' + {days} + {rest}) AT TIME ZONE 'UTC'"


def _raise(plan: Plan, check: Check, value_sql: str, code: str) -> str:
    message = plan.message(check.error, value_sql, lambda *parts: " || ".join(parts))
    return (
        f"    IF {check.condition} THEN\n"
        f"        RAISE EXCEPTION USING ERRCODE = '{code}', MESSAGE = {message};\n"
        "    END IF;\n"
    )


def _id_checks(plan: Plan) -> str:
    checks = plan.id_checks("id", BIGINT_MIN, BIGINT_MAX)
    return "".join(_raise(plan, check, "id::text", "22003") for check in checks)


def _function(name: str, arguments: str, returns: str, body: str, declare: str = "") -> str:
    return (
        f"CREATE OR REPLACE FUNCTION {name}({arguments})\n{returns}"
        f"LANGUAGE plpgsql {_QUALIFIERS}\nAS $snowid$\n{declare}BEGIN\n{body}END\n$snowid$"
    )


def _timestamp(plan: Plan) -> str:
    body = f"{_id_checks(plan)}    RETURN {_time(plan)};\n"
    return _function(plan.name("timestamp"), "id bigint", "RETURNS timestamptz\n", body)


def _parts(plan: Plan) -> str:
    outs = ['    OUT "timestamp" timestamptz']
    assignments = [f'    "timestamp" := {_time(plan)};\n']
    for field in plan.fields:
        kind = "integer" if field.width <= 31 else "bigint"
        outs.append(f'    OUT "{field.name}" {kind}')
        assignments.append(f'    "{field.name}" := {plan.field("id", field)};\n')
    arguments = "\n    id bigint,\n" + ",\n".join(outs) + "\n"
    body = _id_checks(plan) + "".join(assignments)
    return _function(plan.name("parts"), arguments, "", body)


def _bound(plan: Plan, *, last: bool) -> str:
    """``first_id_at`` (the time rounded up to a tick) or ``last_id_at`` (rounded down)."""
    rounding = "floor" if last else "ceil"
    name = plan.name("last_id_at" if last else "first_id_at")
    # extract(epoch) is numeric (exact) since PostgreSQL 14; ±infinity stays infinite and
    # fails a check before any cast.
    declare = f"DECLARE\n    ms numeric := {rounding}(extract(epoch FROM t) * 1000);\n"
    checks = "".join(
        _raise(plan, check, "ms::text", "22008") for check in plan.bound_checks("ms", last=last)
    )
    value = plan.bound("ms::bigint", lambda a, b: f"({a} / {b})", last=last)
    body = f"{checks}    RETURN {value};\n"
    return _function(name, "t timestamptz", "RETURNS bigint\n", body, declare)
