"""The result of one id in any layout, as one typed view (``ResultView``): its writings,
time, bit blocks and fields, how it is built or read, and on the decoder its layout, the
other plausible readings of the same number and the warnings, all worded in the page's
language.

The numbers come from the library: one ``Decoded`` per id (``snowid.decode``), with the
views it offers (its ``segments``, its ``breakdown`` for a Twitter id: the seed's worked
formula), and ``snowid.readings``. This module only words them; what the id offers
decides what is shown (the seed's three steps for a Twitter id, the reading of each
field for another layout), never the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from urllib.parse import urlencode

from snowid import (
    LAYOUTS,
    SYSTEM_CLOCK,
    Breakdown,
    Clock,
    Decoded,
    Layout,
    SnowId,
    decode,
    readings,
)
from snowid._exceptions import InvalidLayoutError
from snowid.i18n import translate, translate_layout
from snowid.ids import builtin_layout, display_value, estimate_words, iso_ms
from snowid.web._copies_view import CopyValue, LinkedRow, copy_values, linked_rows
from snowid.web._view import (
    DEFAULT_LAYOUT,
    Block,
    Math,
    TimeView,
    bit_groups,
    decode_href,
    field_label,
    group_digits,
    group_numbers,
    input_value,
    layout_blocks,
    math,
    time_view,
    translator,
    utc_text,
)

__all__ = [
    "EstimateView",
    "Formula",
    "LayoutOption",
    "LayoutSummary",
    "Reading",
    "ReadingRow",
    "ResultView",
    "WarningView",
    "decoded_view",
    "layout_message",
    "layout_options",
    "layout_summary",
    "page_layout",
    "readings_view",
    "result_view",
]


def page_layout(text: str | None) -> Layout:
    """The layout a page was asked for: a built-in's name in any case; none (or blank) is
    Twitter. Like the JSON API, the pages take only the built-ins, which the picker lists."""
    if text is None or not text.strip():
        return DEFAULT_LAYOUT
    return builtin_layout(text.strip().lower())


def layout_message(error: InvalidLayoutError, lang: str) -> str:
    """What the page says of a layout it does not know: the library's message offers a
    custom spec, which the pages (like the JSON API) do not take, so name the list."""
    allowed = ", ".join(translate_layout(layout.name, lang) for layout in LAYOUTS)
    shown = display_value(error.value)  # shortened and made visible, as every error shows a value
    return translate("web.layout.unknown", lang, value=shown, allowed=allowed)


@dataclass(frozen=True, slots=True)
class LayoutOption:
    """One option of the layout picker."""

    name: str
    label: str
    selected: bool


def layout_options(selected: str | None, lang: str, auto: bool = False) -> list[LayoutOption]:
    """The picker's options, Twitter first (the library's order). ``auto`` (the decoder):
    first an empty option, "the link's layout, else Twitter", chosen when none is."""
    blank = not (selected or "").strip()
    chosen = (selected or DEFAULT_LAYOUT.name).strip().lower()
    options = [
        LayoutOption(layout.name, translate_layout(layout.name, lang), layout.name == chosen)
        for layout in LAYOUTS
    ]
    if not auto:
        return options
    first = LayoutOption("", translate("web.pasted.auto", lang), blank)
    return [first, *(replace(option, selected=option.selected and not blank) for option in options)]


@dataclass(frozen=True, slots=True)
class LayoutSummary:
    """A layout in a result: its name and label, its epoch and unit in words, its note."""

    name: str
    label: str
    text: str
    note: str


def layout_summary(layout: Layout, lang: str) -> LayoutSummary:
    """The layout's name, epoch and time unit in words, and its note (what is special)."""
    iso = iso_ms(layout.epoch_ms)
    return LayoutSummary(
        name=layout.name,
        label=translate_layout(layout.name, lang),
        text=translate(
            "web.layout.summary",
            lang,
            epoch=utc_text(iso) if iso is not None else layout.epoch_ms,
            epoch_ms=layout.epoch_ms,
            unit=layout.unit_ms,
        ),
        note=translate(f"layout_note.{layout.name}", lang),
    )


@dataclass(frozen=True, slots=True)
class WarningView:
    """A warning of the library's (``Decoded.messages``): its code and its message."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class EstimateView:
    """A tweet id from before Snowflake: the headline the result leads with, and when the
    tweet was posted in words (``basis``: how it was estimated, ``Estimate.basis``)."""

    headline: str
    text: str
    basis: str


@dataclass(frozen=True, slots=True)
class ReadingRow:
    """The same number read in another built-in layout, with the link that shows it so."""

    layout: str
    label: str
    time: TimeView
    fields: list[tuple[str, int]]
    warnings: list[str]
    href: str
    link_text: str


@dataclass(frozen=True, slots=True)
class Formula:
    """The seed's worked formula that builds a Twitter id: the delta, the four shifts, the
    sum (the library's ``Breakdown.steps``)."""

    delta: Math
    shifts: list[Math]
    combine: Math


@dataclass(frozen=True, slots=True)
class Reading:
    """How an id of another layout is read: each field taken out, then its time."""

    extract: list[Math]
    to_time: Math


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultView:
    """Everything the result block (``_result.html``) shows of one id. ``formula`` or
    ``reading``, never both, says how the id is built or read. The compose page shows a
    Twitter id as composed; the decoder adds the layout, the warnings, the readings in the
    other layouts and the range page's link (None or empty on the compose page)."""

    decimal: str
    hex: str
    binary: str
    binary_groups: list[str]
    time: TimeView
    blocks: list[Block]
    fields: list[tuple[str, int]]
    formula: Formula | None
    reading: Reading | None
    announce: str
    """What the live region says when the result changes."""
    decode_href: str
    compose_href: str | None
    """The compose page's address for the same fields (a Twitter id only)."""
    layout: LayoutSummary | None = None
    warnings: list[WarningView]
    readings: list[ReadingRow] | None = None
    """The other readings, behind a disclosure (None on the compose page)."""
    also: ReadingRow | None = None
    """The one reading named under the time: Discord, when the visitor chose no layout, the
    number was read as Twitter and its Discord time lies between 2015 and now."""
    range_href: str | None = None
    copies: list[CopyValue] = field(default_factory=list)
    """The time as people copy it: Unix seconds, Discord's markup, ISO 8601."""
    linked: list[LinkedRow] = field(default_factory=list)
    """The other ids of the link pasted (a Discord message's channel and server)."""
    estimate: EstimateView | None = None
    """What the decoder leads with for a tweet id from before Snowflake."""


def result_view(snow_id: SnowId, lang: str, now_ms: int | None = None) -> ResultView:
    """The compose page's result: the id as composed, without the decoder's readings and
    warnings."""
    now = SYSTEM_CLOCK.time_ms() if now_ms is None else now_ms
    return _result(decode(snow_id), lang, now, decoder=None)


def decoded_view(
    decoded: Decoded,
    lang: str,
    clock: Clock = SYSTEM_CLOCK,
    *,
    chosen: bool = True,
    linked: Sequence[tuple[str, Decoded]] = (),
) -> ResultView:
    """Everything the decoder shows of one number read in one layout; ``chosen`` False: the
    layout is the default, neither the visitor nor a pasted link chose it; ``linked``: the
    other ids of the link it leads (what each names, its reading)."""
    now = clock.time_ms()
    view = _result(decoded, lang, now, decoder=clock, chosen=chosen)
    return replace(view, linked=linked_rows(linked, lang, now)) if linked else view


def readings_view(decoded: Decoded, lang: str, clock: Clock = SYSTEM_CLOCK) -> list[ReadingRow]:
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
            ReadingRow(
                layout=other.layout,
                label=label,
                time=time_view(other.timestamp, lang, now),
                fields=[(field_label(name, lang), v) for name, v in other.fields.items()],
                warnings=[t(f"web.warning_short.{code}") for code in other.warnings],
                href=decode_href(other.id, other.spec, lang),
                link_text=t("web.readings.open", layout=label),
            )
        )
    return rows


def _range_href(decoded: Decoded, lang: str) -> str | None:
    """The time-range page for the ids made in the same tick as this one."""
    when = input_value(decoded.timestamp)
    if when is None:
        return None
    query = {"from": when, "to": when, "layout": decoded.layout, "lang": lang}
    return "/range?" + urlencode(query)


def _result(
    decoded: Decoded, lang: str, now: int, *, decoder: Clock | None, chosen: bool = True
) -> ResultView:
    """The one builder of a result: what every id shows, then what the decoder adds when
    ``decoder`` (its clock, for the readings) is given."""
    t = translator(lang)
    number, spec = decoded.id, decoded.spec
    binary = spec.bits(number)
    decimal = str(number)
    # What the id offers decides what is shown: a Twitter id has its breakdown (the seed's
    # formula, the worker, the compose page's fields), any other is read field by field.
    view = decoded.breakdown
    if view is not None:
        fields, formula, reading = _formula_fields(view, lang), _formula(view, lang), None
        compose_href: str | None = _compose_href(view, lang)
    else:
        fields = [
            (t("web.label.timestamp"), decoded.timestamp),
            *((field_label(name, lang), value) for name, value in decoded.fields.items()),
        ]
        formula, reading, compose_href = None, _reading(decoded, lang), None
    announce = translate("web.announce.id", lang, id=decimal)
    layout, warnings, others, range_href = None, [], None, None
    also, estimate = None, None
    if decoder is not None:
        layout = layout_summary(spec, lang)
        found = decoded.estimate
        if found is not None:
            estimate = EstimateView(*estimate_words(found, lang), basis=found.basis)
            announce += ". " + estimate.headline
        warnings = [WarningView(m["code"], m["message"]) for m in decoded.messages(lang)]
        others = readings_view(decoded, lang, decoder)
        if not chosen and spec is DEFAULT_LAYOUT:
            also = next(
                (r for r in others if r.layout == "discord" and r.time.timestamp <= now), None
            )
            others = [r for r in others if r is not also]
        range_href = _range_href(decoded, lang)
        if warnings:
            announce += ". " + t("web.announce.warnings", count=len(warnings))
    return ResultView(
        decimal=decimal,
        hex=f"0x{number:016x}",
        binary=binary,
        binary_groups=bit_groups(binary),
        time=time_view(decoded.timestamp, lang, now),
        blocks=layout_blocks(spec, decoded.segments, lang),
        fields=fields,
        formula=formula,
        reading=reading,
        announce=announce,
        decode_href=decode_href(number, spec, lang),
        compose_href=compose_href,
        layout=layout,
        warnings=warnings,
        readings=others,
        also=also,
        range_href=range_href,
        copies=copy_values(decoded, lang),
        estimate=estimate,
    )


def _formula_fields(view: Breakdown, lang: str) -> list[tuple[str, int]]:
    t = translator(lang)
    parts = view.parts
    return [
        (t("web.label.timestamp"), parts.timestamp),
        (t("web.label.datacenter"), parts.datacenter),
        (t("web.label.machine"), parts.machine),
        (t("web.label.sequence"), parts.sequence),
        (t("web.result.worker"), view.worker),
    ]


def _formula(view: Breakdown, lang: str) -> Formula:
    """The library's steps as the seed's three: the delta, the shifts, the sum."""
    t = translator(lang)
    delta, *shifts, combine = view.steps
    return Formula(
        delta=math(delta, lang),
        shifts=[math(s, lang, t(f"web.step.shift.{s.key}"), keyed=True) for s in shifts],
        combine=math(combine, lang),
    )


def _compose_href(view: Breakdown, lang: str) -> str:
    """The compose page with this id's four fields filled in."""
    parts = view.parts
    query = {**parts._asdict(), "lang": lang}
    return "/?" + urlencode(query)


def _reading(decoded: Decoded, lang: str) -> Reading:
    """How each field of an id in another layout is taken out, then its time."""
    spec = decoded.spec
    number = decoded.id
    raw = decoded.raw  # every field's value, the time as ticks since the epoch
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
            Math(
                group_numbers(expression, lang),
                group_digits(value, lang),
                field_label(name, lang),
            )
        )
    ticks = raw[0]
    scaled = f"{ticks}" if spec.unit_ms == 1 else f"{ticks} × {spec.unit_ms}"
    return Reading(
        extract=extract,
        to_time=Math(
            group_numbers(f"{spec.epoch_ms} + {scaled}", lang),
            group_digits(decoded.timestamp, lang),
        ),
    )
