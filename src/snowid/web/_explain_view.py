"""The decoder's "how it is built" section, written from the layout it reads.

Everything in it comes from the ``Layout`` the decoder uses: the epoch, the time unit,
each field's width, place and largest value, whether bit 63 is a sign bit. The catalogs
give only the sentences and a meaning per field name (``web.meaning.<field>``, or
``web.meaning.<layout>.<field>`` where one layout's field means something else), so a new
layout needs no new text beyond its field names; a field with no meaning in the catalog
is described by its width and range alone. The compose page keeps the seed's own text
(it explains the generator, not a reading).
"""

from __future__ import annotations

from dataclasses import dataclass

from snowid import TWITTER, Layout
from snowid.i18n import catalog, translate_layout
from snowid.ids import iso_ms
from snowid.web._view import field_label, group_digits, translator, utc_text

__all__ = ["ExplainView", "FieldInfo", "explain_view", "seed_example"]

# Letters standing for the fields after the time in the formula (d is the time).
_LETTERS = "abcefghjkmnpqrsuvwxyz"
_YEAR_MS = 365.2425 * 86_400_000


@dataclass(frozen=True, slots=True)
class FieldInfo:
    """One field of the layout: its label, its bits, what it holds."""

    name: str
    label: str
    bits: str
    meaning: str


@dataclass(frozen=True, slots=True)
class ExplainView:
    """The section's texts for one layout, in the page's language."""

    layout: str
    heading: str
    structure: str
    unsigned: str | None
    """Said when bit 63 is the top of the time (no sign bit)."""
    formula: str
    formula_text: str
    fields: list[FieldInfo]
    limits: list[str]


def _epoch_text(ms: int) -> str:
    iso = iso_ms(ms)
    return utc_text(iso) if iso is not None else str(ms)


def _meaning(layout: Layout, name: str, lang: str) -> str | None:
    """What the field holds: this layout's own sentence, else the field name's."""
    texts = catalog(lang)
    return texts.get(f"web.meaning.{layout.name}.{name}") or texts.get(f"web.meaning.{name}")


def explain_view(layout: Layout, lang: str) -> ExplainView:
    """How an id of ``layout`` is built, from the layout's own numbers."""
    t = translator(lang)
    label = translate_layout(layout.name, lang)
    tick = (
        t("web.explain.ms") if layout.unit_ms == 1 else t("web.explain.tick", unit=layout.unit_ms)
    )
    epoch = _epoch_text(layout.epoch_ms)
    (time_name, time_width), *others = layout.fields
    parts = [t("web.explain.part_sign")] if layout.signed else []
    parts.append(t("web.explain.part_time", width=time_width, tick=tick, epoch=epoch))
    parts += [
        t("web.explain.part_field", label=field_label(name, lang), width=width)
        for name, width in others
    ]
    structure = t("web.explain.gen_structure", layout=label, parts="; ".join(parts))
    letters = _LETTERS[: len(others)]
    shifted = [
        f"({letter} << {shift})" if shift else letter
        for letter, shift in zip(letters, layout.shifts[1:], strict=True)
    ]
    delta = (
        f"d = t − {layout.epoch_ms}"
        if layout.unit_ms == 1
        else f"d = ⌊(t − {layout.epoch_ms}) / {layout.unit_ms}⌋"
    )
    formula = f"{delta}; I = (d << {layout.shifts[0]})" + "".join(f" | {s}" for s in shifted)
    legend = ", ".join(
        t("web.explain.letter", letter=letter, label=field_label(name, lang))
        for letter, (name, _) in zip(letters, others, strict=True)
    )
    formula_text = t(
        "web.explain.gen_formula",
        tick=tick,
        legend=legend,
        shift=layout.shifts[0],
        power=group_digits(2 ** layout.shifts[0], lang),
    )
    fields = []
    for (name, width), shift, maximum in zip(
        layout.fields, layout.shifts, layout.maxima, strict=True
    ):
        high, low = shift + width - 1, shift
        bits = (
            t("web.block.span_one", high=high)
            if width == 1
            else t("web.block.span", high=high, low=low)
        )
        if name == time_name:
            meaning = t("web.explain.meaning_time", tick=tick, epoch=epoch)
        else:
            meaning = _meaning(layout, name, lang) or ""
        span = t("web.explain.values", max=group_digits(maximum, lang))
        fields.append(FieldInfo(name, field_label(name, lang), bits, f"{meaning} {span}".strip()))
    years = (layout.max_timestamp - layout.epoch_ms) / _YEAR_MS
    below = layout.shifts[0]
    limits = [
        t("web.explain.gen_epoch", epoch=epoch, epoch_ms=layout.epoch_ms),
        t(
            "web.explain.gen_end",
            width=time_width,
            tick=tick,
            years=group_digits(round(years), lang),
            end=_epoch_text(layout.max_timestamp),
        ),
        t("web.explain.gen_per_tick", bits=below, count=group_digits(2**below, lang), tick=tick),
        t("web.explain.limit_order"),
    ]
    return ExplainView(
        layout=layout.name,
        heading=t("web.explain.gen_heading", layout=label),
        structure=structure,
        unsigned=None if layout.signed else t("web.explain.unsigned"),
        formula=formula,
        formula_text=formula_text,
        fields=fields,
        limits=limits,
    )


def seed_example(timestamp: int, datacenter: int, machine: int, sequence: int, lang: str) -> str:
    """The seed's worked example as a sentence that stays put while the form changes, its
    numbers grouped in ``lang``'s way. The values are the page's own constants, so this is
    Twitter's layout arithmetic on them, not a second reading of the form."""
    layout = TWITTER
    delta = timestamp - layout.epoch_ms
    values = (delta, datacenter, machine, sequence)
    d_shift, c_shift, m_shift, _ = (
        value * 2**shift for value, shift in zip(values, layout.shifts, strict=True)
    )
    g = group_digits
    return translator(lang)(
        "web.explain.example",
        timestamp=timestamp,
        utc=_epoch_text(timestamp),
        delta=g(delta, lang),
        datacenter=datacenter,
        machine=machine,
        sequence=sequence,
        d_shift=g(d_shift, lang),
        c_shift=g(c_shift, lang),
        m_shift=g(m_shift, lang),
        id=g(layout.join(values), lang),
    )
