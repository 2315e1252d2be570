"""The decoder's result in any layout: its fields by the layout's own names, how each
field is read, the other plausible readings of the same number, and the warnings, all
worded in the page's language.

The numbers come from the library (``snowid.decode``, ``snowid.readings``, the layout's
``split``); this module only words them (``_view.id_view`` builds what every result
shares: the writings, the time and the bit blocks). The Twitter layout keeps the seed's
worked formula (``_view.result_view``) and gains the same readings and warnings.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from snowid import LAYOUTS, SYSTEM_CLOCK, TWITTER, Clock, Decoded, Layout, SnowId, readings
from snowid._exceptions import InvalidLayoutError
from snowid.i18n import translate, translate_layout
from snowid.ids import builtin_layout, display_value, iso_ms
from snowid.web._view import (
    decode_href,
    field_label,
    id_view,
    input_value,
    result_view,
    time_view,
    translator,
    utc_text,
)

__all__ = [
    "decoded_view",
    "layout_message",
    "layout_options",
    "layout_summary",
    "page_layout",
    "readings_view",
]


def page_layout(text: str | None) -> Layout:
    """The layout a page was asked for: a built-in's name in any case; none (or blank) is
    Twitter. Like the JSON API, the pages take only the built-ins, which the picker lists."""
    if text is None or not text.strip():
        return TWITTER
    return builtin_layout(text.strip().lower())


def layout_message(error: InvalidLayoutError, lang: str) -> str:
    """What the page says of a layout it does not know: the library's message offers a
    custom spec, which the pages (like the JSON API) do not take, so name the list."""
    allowed = ", ".join(translate_layout(layout.name, lang) for layout in LAYOUTS)
    shown = display_value(error.value)  # shortened and made visible, as every error shows a value
    return translate("web.layout.unknown", lang, value=shown, allowed=allowed)


def layout_options(selected: str | None, lang: str) -> list[dict[str, Any]]:
    """The picker's options, Twitter first (the library's order)."""
    chosen = (selected or "twitter").strip().lower()
    return [
        {
            "name": layout.name,
            "label": translate_layout(layout.name, lang),
            "selected": layout.name == chosen,
        }
        for layout in LAYOUTS
    ]


def layout_summary(layout: Layout, lang: str) -> dict[str, str]:
    """The layout's name, epoch and time unit in words, and its note (what is special)."""
    iso = iso_ms(layout.epoch_ms)
    return {
        "name": layout.name,
        "label": translate_layout(layout.name, lang),
        "text": translate(
            "web.layout.summary",
            lang,
            epoch=utc_text(iso) if iso is not None else layout.epoch_ms,
            epoch_ms=layout.epoch_ms,
            unit=layout.unit_ms,
        ),
        "note": translate(f"layout_note.{layout.name}", lang),
    }


def decoded_view(decoded: Decoded, lang: str, clock: Clock = SYSTEM_CLOCK) -> dict[str, Any]:
    """Everything the decoder shows of one number read in one layout."""
    t = translator(lang)
    now = clock.time_ms()
    if decoded.spec is TWITTER:
        view = result_view(SnowId(decoded.id), lang, now)
    else:
        view = _layout_result(decoded, lang, now)
    warnings = decoded.messages(lang)
    view["layout"] = layout_summary(decoded.spec, lang)
    view["warnings"] = warnings
    view["readings"] = readings_view(decoded, lang, clock)
    view["range_href"] = _range_href(decoded, lang)
    if warnings:
        view["announce"] += ". " + t("web.announce.warnings", count=len(warnings))
    return view


def readings_view(decoded: Decoded, lang: str, clock: Clock = SYSTEM_CLOCK) -> list[dict[str, Any]]:
    """The number's plausible readings in the other built-in layouts (``snowid.readings``),
    each with a link to the decoder in that layout: the reader chooses, the page does not
    guess."""
    t = translator(lang)
    now = clock.time_ms()
    rows = []
    for other in readings(decoded.id, clock=clock):
        if other.spec is decoded.spec:
            continue
        label = translate_layout(other.layout, lang)
        rows.append(
            {
                "layout": other.layout,
                "label": label,
                **time_view(other.timestamp, lang, now),
                "fields": [(field_label(name, lang), v) for name, v in other.fields.items()],
                "warnings": [t(f"web.warning_short.{code}") for code in other.warnings],
                "href": decode_href(other.id, other.spec, lang),
                "link_text": t("web.readings.open", layout=label),
            }
        )
    return rows


def _range_href(decoded: Decoded, lang: str) -> str | None:
    """The time-range page for the ids made in the same tick as this one."""
    when = input_value(decoded.timestamp)
    if when is None:
        return None
    query = {"from": when, "to": when, "layout": decoded.layout, "lang": lang}
    return "/range?" + urlencode(query)


def _layout_result(decoded: Decoded, lang: str, now: int) -> dict[str, Any]:
    """The result of a layout other than Twitter: its fields and the reading steps."""
    t = translator(lang)
    spec = decoded.spec
    number = decoded.id
    raw = spec.split(number)  # every field's value, the time as ticks since the epoch
    extract = []
    for (name, width), shift, maximum, value in zip(
        spec.fields, spec.shifts, spec.maxima, raw, strict=True
    ):
        if shift == 0:
            expression = f"{number} & {maximum}"
        elif shift + width == spec.total_bits:  # the top field: nothing above it to clear
            expression = f"{number} >> {shift}"
        else:
            expression = f"({number} >> {shift}) & {maximum}"
        extract.append(
            {"label": field_label(name, lang), "expression": expression, "result": str(value)}
        )
    ticks = raw[0]
    scaled = f"{ticks}" if spec.unit_ms == 1 else f"{ticks} × {spec.unit_ms}"
    return {
        "kind": "layout",
        **id_view(number, spec, decoded.segments, decoded.timestamp, lang=lang, now_ms=now),
        "fields": [
            (t("web.label.timestamp"), decoded.timestamp),
            *((field_label(name, lang), value) for name, value in decoded.fields.items()),
        ],
        "extract": extract,
        "to_time": {
            "expression": f"{spec.epoch_ms} + {scaled}",
            "result": str(decoded.timestamp),
        },
        "compose_href": None,
    }
