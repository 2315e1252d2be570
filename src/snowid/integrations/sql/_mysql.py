"""MySQL and MariaDB: one stored function per value, from ``_plan`` (a function there
returns one value, so the fields are functions of their own).

- ``<prefix>_timestamp(id) → DATETIME(3)`` (UTC; NULL past 9999-12-31, the last
  DATETIME), ``<prefix>_unix_ms(id) → BIGINT`` (exact for every layout), and
  ``<prefix>_<field>(id) → INT UNSIGNED`` for each field;
- ``<prefix>_first_id_at(t DATETIME(6))`` and ``<prefix>_last_id_at(t)``: the bounds of
  ``BETWEEN`` for a time window (``t`` read as UTC), as ``snowid.first_id_at`` and
  ``last_id_at`` compute them; ``BIGINT UNSIGNED`` for a layout whose time reaches
  bit 63, where such ids belong in a ``BIGINT UNSIGNED`` column, else ``BIGINT``.

An id is taken as ``DECIMAL(20,0)``, so that a ``BIGINT`` and a ``BIGINT UNSIGNED``
column are both read exactly (a negative ``BIGINT`` of an unsigned layout is the stored
form of an id from ``2**63`` on). Every function is ``DETERMINISTIC NO SQL``, which a
server with binary logging requires of a function created without SUPER, and raises
snowid's message with ``SIGNAL`` for an id or time it cannot answer. Times go through
``TIMESTAMPADD``/``TIMESTAMPDIFF`` in microseconds from a DATETIME literal, never
``FROM_UNIXTIME`` (which follows the session's time zone and stops in 2038 or 2106).
"""

from __future__ import annotations

from snowid._isotime import LAST_DATETIME_MS
from snowid.integrations.sql._plan import Check, Plan

__all__ = ["names", "script", "statements"]

_QUALIFIERS = "DETERMINISTIC NO SQL"
_UNIX = "TIMESTAMP '1970-01-01 00:00:00'"
_ID_TYPE = "DECIMAL(20,0)"
_DECIMAL_MAX = 10**20 - 1  # what DECIMAL(20,0) holds
_FIELD_TYPE = "INT UNSIGNED"  # a field is at most 32 bits wide


def names(plan: Plan) -> list[str]:
    fields = [plan.name(field.name) for field in plan.fields]
    bounds = [plan.name("first_id_at"), plan.name("last_id_at")]
    return [plan.name("timestamp"), plan.name("unix_ms"), *fields, *bounds]


def statements(plan: Plan) -> list[str]:
    """A ``DROP FUNCTION IF EXISTS`` and a ``CREATE FUNCTION`` per function (MySQL has no
    ``CREATE OR REPLACE FUNCTION``), each one statement for a driver."""
    created = [
        _reader(plan, "timestamp", "DATETIME(3)", _datetime(plan.unix_ms("u"))),
        _reader(plan, "unix_ms", "BIGINT", plan.unix_ms("u")),
        *(_reader(plan, f.name, _FIELD_TYPE, plan.field("u", f)) for f in plan.fields),
        _bound(plan, last=False),
        _bound(plan, last=True),
    ]
    found = []
    for name, create in zip(names(plan), created, strict=True):
        found += [f"DROP FUNCTION IF EXISTS {name}", create]
    return found


def script(plan: Plan, header: str) -> str:
    """The statements for the ``mysql``/``mariadb`` client: the bodies hold ``;``, so the
    script changes the client's delimiter around them."""
    body = "\n".join(
        f"{statement} $$\n" if statement.startswith("CREATE") else f"{statement};"
        for statement in statements(plan)
    )
    return f"-- {header}\nSET NAMES utf8mb4;\nDELIMITER $$\n{body}DELIMITER ;\n"


def _concat(*parts: str) -> str:
    return f"CONCAT({', '.join(parts)})"


def _signal(plan: Plan, check: Check, value_sql: str, state: str) -> str:
    message = plan.message(check.error, value_sql, _concat, backslashes=True)
    return (
        f"    IF {check.condition} THEN\n        SET msg = {message};\n"
        f"        SIGNAL SQLSTATE '{state}' SET MESSAGE_TEXT = msg;\n    END IF;\n"
    )


def _function(name: str, argument: str, returns: str, declare: str, body: str) -> str:
    return (
        f"CREATE FUNCTION {name}({argument}) RETURNS {returns}\n{_QUALIFIERS}\nBEGIN\n"
        f"    DECLARE msg VARCHAR(512) CHARACTER SET utf8mb4;\n{declare}{body}END"
    )


def _datetime(ms: str) -> str:
    """Unix ms as DATETIME(3): NULL past the last DATETIME (a Mastodon id after year 9999)."""
    return f"IF({ms} > {LAST_DATETIME_MS}, NULL, TIMESTAMPADD(MICROSECOND, {ms} * 1000, {_UNIX}))"


def _reader(plan: Plan, suffix: str, returns: str, value: str) -> str:
    """A function of the id ``u``: checked, then (unsigned layouts) made unsigned."""
    checks = plan.id_checks("id", -_DECIMAL_MAX, _DECIMAL_MAX)
    body = "".join(_signal(plan, check, "id", "22003") for check in checks)
    body += f"    SET u = {plan.unsigned_id('id')};\n    RETURN {value};\n"
    declare = "    DECLARE u BIGINT UNSIGNED;\n"
    return _function(plan.name(suffix), f"id {_ID_TYPE}", returns, declare, body)


def _bound(plan: Plan, *, last: bool) -> str:
    rounding = "FLOOR" if last else "CEILING"
    name = plan.name("last_id_at" if last else "first_id_at")
    micros = f"TIMESTAMPDIFF(MICROSECOND, {_UNIX}, t)"
    declare = f"    DECLARE ms BIGINT DEFAULT {rounding}({micros} / 1000);\n"
    checks = plan.bound_checks("ms", last=last)
    body = "".join(_signal(plan, check, "ms", "22008") for check in checks)
    value = plan.bound("ms", lambda a, b: f"({a} DIV {b})", last=last)
    body += f"    RETURN {value};\n"
    returns = "BIGINT UNSIGNED" if plan.unsigned else "BIGINT"
    return _function(name, "t DATETIME(6)", returns, declare, body)
