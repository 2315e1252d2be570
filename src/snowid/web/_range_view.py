"""The "ids between two times" page: reading its form and wording ``snowid.id_range``.

The form is two date-and-time text fields (ISO 8601, the same in every browser locale) read
in the zone chosen beside them (UTC, or the visitor's own zone by its name, as the
generator's date input does) and a layout picker,
sent as a GET form (so it works without JavaScript and every answer has an address); the
bounds are the library's (``range_info``: ``id_range`` and its decimal strings), shown
with copy buttons and the SQL that uses them. A reversed window is an error on its end
with a button that swaps the two times (``_fixes``).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from urllib.parse import urlencode
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from starlette.datastructures import QueryParams

from snowid import SYSTEM_CLOCK, Clock, Layout
from snowid._exceptions import InvalidLayoutError, InvalidValueError, ReversedWindowError
from snowid.i18n import translate, translate_layout
from snowid.ids import iso_ms, parse_time
from snowid.integrations.sql import range_info, signed_note
from snowid.web._decoded_view import LayoutSummary, layout_message, layout_summary, page_layout
from snowid.web._exceptions import InvalidTimeZoneError, NumberNotADateError
from snowid.web._fixes import FieldFix, date_seconds_fix, swap_fix
from snowid.web._forms import localized_message, repeated
from snowid.web._view import TimeView, decode_href, input_value, time_view, translator

__all__ = [
    "RANGE_FIELDS",
    "RangeForm",
    "RangeView",
    "range_view",
    "read_range",
    "read_zone",
    "zone_input_value",
]

RANGE_FIELDS = ("from", "to", "layout", "zone")
_UTC_NAMES = {"", "utc", "z", "etc/utc"}
_MAX_ZONE_TEXT = 64


def read_zone(text: str) -> ZoneInfo | None:
    """The zone the dates are read in: None for UTC (blank, ``UTC``), else the IANA zone
    ``text`` names (``Asia/Ho_Chi_Minh``); InvalidTimeZoneError when this host knows none."""
    name = text.strip()
    if name.lower() in _UTC_NAMES:
        return None
    if len(name) > _MAX_ZONE_TEXT:
        raise InvalidTimeZoneError(field="zone", value=text)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise InvalidTimeZoneError(field="zone", value=text) from None


def _in_zone(name: str, text: str, zone: ZoneInfo | None) -> int:
    """``text`` as ``parse_time`` reads it, except that a date and time without an offset
    is a time in ``zone`` (UTC when None)."""
    stripped = text.strip()
    if zone is not None and not stripped.isdigit():
        try:
            when = _dt.datetime.fromisoformat(stripped)
        except ValueError:
            when = None
        if when is not None and when.tzinfo is None:
            # within hours of year 1 or 9999 the text stays as typed: parse_time says why
            with suppress(OverflowError):
                text = when.replace(tzinfo=zone).astimezone(_dt.UTC).isoformat()
    return parse_time(name, text)


_MIN_DATE_DIGITS = 11
"""A date field's bare number needs this many digits (from 1970-04-26 on, as Unix ms):
a shorter one is a year, a date without its dashes or Unix seconds, never meant as a
moment of early 1970."""


def _date_text(name: str, text: str) -> str:
    """``text`` as given, unless it is a bare number too short to be a date in Unix ms
    (``2022``, ``26102022``, Unix seconds): NumberNotADateError, rather than an answer
    for 1970-01-01."""
    stripped = text.strip()
    if stripped.isascii() and stripped.isdigit() and len(stripped) < _MIN_DATE_DIGITS:
        raise NumberNotADateError(field=name, value=stripped)
    return text


def zone_input_value(ms: int, zone: ZoneInfo | None) -> str | None:
    """Unix ms as the value of a ``datetime-local`` input read in ``zone`` (UTC when None),
    if a date shows it there."""
    utc = input_value(ms)
    if zone is None or utc is None:
        return utc
    try:
        local = _dt.datetime.fromisoformat(utc).replace(tzinfo=_dt.UTC).astimezone(zone)
    except OverflowError:
        return None
    return local.strftime("%Y-%m-%dT%H:%M:%S.") + f"{local.microsecond // 1000:03d}"


@dataclass(slots=True)
class RangeForm:
    """The inputs as the form shows them again, a message per bad field, and the window
    (Unix ms) with its layout when everything reads."""

    values: dict[str, str]
    errors: dict[str, str] = field(default_factory=dict)
    fixes: dict[str, FieldFix] = field(default_factory=dict)
    layout: Layout | None = None
    zone: ZoneInfo | None = None
    start_ms: int | None = None
    end_ms: int | None = None
    end_is_now: bool = False


def read_range(
    query: Mapping[str, str], lang: str, clock: Clock = SYSTEM_CLOCK
) -> RangeForm | None:
    """The form as asked; None when nothing was asked yet (the empty form). A blank end
    is now; a blank start is a message of its own, not a parse error. The dates are read
    in the zone ``zone`` names (blank: UTC); Unix ms and times with an offset are exact
    whatever it is."""
    if "from" not in query and "to" not in query:
        return None
    values = {name: query.get(name, "") for name in RANGE_FIELDS}
    form = RangeForm(values=values)
    try:
        form.layout = page_layout(values["layout"])
        values["layout"] = form.layout.name
    except InvalidLayoutError as error:
        form.errors["layout"] = layout_message(error, lang)
    try:
        form.zone = read_zone(values["zone"])
        values["zone"] = "UTC" if form.zone is None else form.zone.key
    except InvalidTimeZoneError as error:
        form.errors["zone"] = localized_message(error, lang)
        return form  # the dates cannot be read without their zone

    def read_time(name: str, text: str) -> int | None:
        """The bound typed in ``name``, shown again as the input writes it; else its error
        (with a button giving Unix seconds as milliseconds)."""
        try:
            ms = _in_zone(name, _date_text(name, text), form.zone)
        except InvalidValueError as error:
            form.errors[name] = localized_message(error, lang)
            if isinstance(error, NumberNotADateError):
                fix = date_seconds_fix(form.errors[name], error, lang)
                if fix is not None:
                    form.fixes[name] = fix
            return None
        values[name] = zone_input_value(ms, form.zone) or text
        return ms

    start_text, end_text = values["from"].strip(), values["to"].strip()
    if not start_text:
        form.errors["from"] = translate("web.range.from_required", lang)
    else:
        form.start_ms = read_time("from", start_text)
    if not end_text:
        form.end_ms, form.end_is_now = clock.time_ms(), True
    else:
        form.end_ms = read_time("to", end_text)
        if form.start_ms is not None and form.end_ms is not None and form.end_ms < form.start_ms:
            swapped = ReversedWindowError(field="to", value=end_text, start=start_text)
            form.errors["to"] = localized_message(swapped, lang)
            form.fixes["to"] = swap_fix(form.errors["to"], values["from"], values["to"], lang)
    if isinstance(query, QueryParams):  # a field given twice: which value counts is a guess
        for name, twice in repeated(query, RANGE_FIELDS).items():
            form.errors[name] = localized_message(twice, lang)
    return form


@dataclass(frozen=True, slots=True, kw_only=True)
class RangeView:
    """What the range page's result shows: the window, the ids ``low`` and ``high`` that
    bound it (decimal strings) with the SQL using them, and notes where the window reaches
    past the layout or its ticks are longer than a millisecond."""

    layout: LayoutSummary
    start: TimeView
    end: TimeView
    zone: str
    """The zone the dates were read in (its IANA name); empty for UTC."""
    start_local: str
    end_local: str
    """The window's ends as read in ``zone`` (empty for UTC, or where a date cannot show it)."""
    end_is_now: bool
    empty: bool
    """No id of the layout falls in the window (``low`` and ``high`` are then not shown)."""
    low: str
    high: str
    sql: str
    low_href: str
    high_href: str
    notes: list[str]
    api_href: str
    announce: str


def range_view(form: RangeForm, lang: str, clock: Clock = SYSTEM_CLOCK) -> RangeView | None:
    """What the result shows: the window, ``low`` and ``high``, the SQL, and notes where
    the window reaches past the layout or its ticks are longer than a millisecond."""
    if form.errors or form.layout is None or form.start_ms is None or form.end_ms is None:
        return None
    t = translator(lang)
    layout, start, end = form.layout, form.start_ms, form.end_ms
    info = range_info(start, end, layout)
    low, high = str(info["low"]), str(info["high"])
    name = translate_layout(layout.name, lang)
    notes = []
    if start < layout.epoch_ms:
        notes.append(t("web.range.before_epoch", layout=name))
    if end > layout.max_timestamp + layout.unit_ms - 1:
        notes.append(t("web.range.after_end", layout=name))
    if layout.unit_ms > 1:
        notes.append(t("web.range.ticks", layout=name, unit=layout.unit_ms))
    wrap = signed_note(info, layout)
    if wrap is not None:
        notes.append(t("web.range.signed", layout=name, wrap=iso_ms(wrap)))
    api: dict[str, str | int] = {"from": start, "to": end, "layout": layout.name}
    if form.end_is_now:
        del api["to"]
    now = clock.time_ms()
    empty = bool(info["empty"])
    zone = form.zone
    return RangeView(
        layout=layout_summary(layout, lang),
        start=time_view(start, lang, now),
        end=time_view(end, lang, now),
        zone="" if zone is None else zone.key,
        start_local=_local_text(start, zone),
        end_local=_local_text(end, zone),
        end_is_now=form.end_is_now,
        empty=empty,
        low=low,
        high=high,
        sql=f"WHERE {info['sql']}",
        low_href=decode_href(int(low), layout, lang),
        high_href=decode_href(int(high), layout, lang),
        notes=notes,
        api_href="/api/range?" + urlencode(api),
        announce=t("web.announce.range_empty")
        if empty
        else t("web.announce.range", low=low, high=high),
    )


def _local_text(ms: int, zone: ZoneInfo | None) -> str:
    """``ms`` as a time in ``zone`` written as the page writes times; empty for UTC."""
    value = zone_input_value(ms, zone) if zone is not None else None
    return "" if value is None else value.replace("T", " ")
