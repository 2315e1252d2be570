"""Errors a visitor can act on: a field's message led by one short line, then a button
that fixes it, then the details in smaller text.

A fix is a submit button of the page's GET form, ``name="fix"``, whose value is the
query it sets (``timestamp=1700000000000``, or ``from=…&to=…`` for a swapped range).
Without JavaScript the server answers that request with a redirect to the form's
address with those values in place (``fixed_query``); with JavaScript, app.js puts the
same values in the fields and updates the result.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

from starlette.datastructures import QueryParams

from snowid._exceptions import InvalidValueError, TimestampBeforeEpochError
from snowid.i18n import translate, translate_layout
from snowid.ids import iso_ms
from snowid.web._exceptions import NumberNotADateError

__all__ = ["FIX", "FieldFix", "date_seconds_fix", "fixed_query", "seconds_fix", "swap_fix"]

FIX = "fix"
"""The query parameter a fix button sends."""


@dataclass(frozen=True, slots=True)
class FieldFix:
    """What a field's error shows: ``lead`` (what is wrong, one short line), the button
    (``button``, sending ``sets`` as ``?fix=``) and the smaller ``detail`` after it."""

    lead: str
    button: str
    sets: str
    detail: str = ""


def seconds_fix(error: InvalidValueError, lang: str) -> FieldFix | None:
    """A timestamp before the epoch that looks like Unix seconds: the fix puts the same
    instant in milliseconds in the field; the allowed range follows it."""
    if not isinstance(error, TimestampBeforeEpochError):
        return None
    milliseconds = error.as_milliseconds
    if milliseconds is None or not isinstance(error.max, int):
        return None
    layout = translate_layout(error.layout, lang)
    lead = translate("web.fix.before_epoch", lang, value=error.value, layout=layout)
    detail = translate(
        "web.fix.allowed",
        lang,
        min=error.min,
        max=error.max,
        min_utc=iso_ms(error.min) or error.min,
        max_utc=iso_ms(error.max) or error.max,
    )
    button = translate("web.fix.seconds", lang, milliseconds=milliseconds)
    return FieldFix(lead, button, urlencode({error.field: milliseconds}), detail)


def date_seconds_fix(message: str, error: NumberNotADateError, lang: str) -> FieldFix | None:
    """A date field holding what looks like Unix seconds: the fix puts the same instant in
    milliseconds in the field (the page then shows it as a date)."""
    milliseconds = error.as_milliseconds
    if milliseconds is None:
        return None
    button = translate("web.fix.seconds", lang, milliseconds=milliseconds)
    return FieldFix(message, button, urlencode({error.field: milliseconds}))


def swap_fix(message: str, start: str, end: str, lang: str) -> FieldFix:
    """A window whose end is before its start: the fix swaps the two times."""
    sets = urlencode({"from": end, "to": start})
    return FieldFix(message, translate("web.fix.swap", lang), sets)


def fixed_query(query: QueryParams, fields: Iterable[str]) -> str | None:
    """The query a fix button asks for: ``query`` without ``fix``, with the values the fix
    sets (only of ``fields``: a fix cannot add anything else); None when no fix was sent."""
    if FIX not in query:
        return None
    allowed = set(fields)
    sets = {k: v for k, v in parse_qsl(query[FIX], keep_blank_values=True) if k in allowed}
    kept = [(k, sets.pop(k) if k in sets else v) for k, v in query.multi_items() if k != FIX]
    return urlencode(kept + list(sets.items()))
