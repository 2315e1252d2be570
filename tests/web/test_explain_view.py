"""Issue 19 §3 and §6 without a browser: the decoder's "how it is built" section is written
from the layout it reads (every built-in, both languages), the seed's worked example stays
as text, and the words the issue names are gone from the pages."""

from __future__ import annotations

import re

import pytest

from snowid import LAYOUTS, Layout
from snowid.i18n import translate_layout
from snowid.web._explain_view import explain_view, seed_example
from snowid.web._view import group_digits, group_numbers


@pytest.mark.parametrize("lang", ["en", "vi"])
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: layout.name)
def test_the_explanation_follows_each_layouts_own_numbers(layout: Layout, lang: str) -> None:
    view = explain_view(layout, lang)
    label = translate_layout(layout.name, lang)
    assert label in view.heading
    (_, time_width), *others = layout.fields
    # The epoch, the time's width and every other field's width, from the layout itself.
    assert f"d = t − {layout.epoch_ms}" in view.formula or (
        f"d = ⌊(t − {layout.epoch_ms}) / {layout.unit_ms}⌋" in view.formula
    )
    assert f"I = (d << {layout.shifts[0]})" in view.formula
    assert view.formula.count("|") == len(others)
    parts = view.structure.split(":", 1)[1]  # after "it holds:", the fields in order
    widths = [int(w) for w in re.findall(r"(\d+) bit", parts)]
    assert widths == [time_width, *(width for _, width in others)]
    assert ("bit dấu" in view.structure or "sign bit" in view.structure) == layout.signed
    assert (view.unsigned is None) == layout.signed
    assert [f.name for f in view.fields] == [name for name, _ in layout.fields]
    top = layout.shifts[0] + time_width - 1
    assert f"{top}–{layout.shifts[0]}" in view.fields[0].bits
    for info, maximum in zip(view.fields, layout.maxima, strict=True):
        assert group_digits(maximum, lang) in info.meaning
    ms_word = "mili giây" if lang == "vi" else "milliseconds"
    unit = ms_word if layout.unit_ms == 1 else f"{layout.unit_ms} ms"
    assert unit in view.structure
    assert str(layout.epoch_ms) in view.limits[0]


def test_discords_explanation_is_not_twitters() -> None:
    """The issue's example: with Discord chosen, no word of Twitter's sign bit, 41 bits or
    epoch; Discord's 42 bits from 2015 and its fields instead."""
    from snowid import DISCORD, TWITTER

    discord = explain_view(DISCORD, "en")
    text = " ".join(
        [discord.structure, discord.formula, discord.formula_text, *discord.limits]
        + [f.meaning for f in discord.fields]
    )
    assert "42 bits of time" in text
    assert "2015-01-01 00:00:00.000 UTC" in text
    assert "Worker in 5 bits; Process in 5 bits; Increment in 12 bits" in text
    assert "sign bit, always 0" not in text
    assert "41 bits" not in text
    assert str(TWITTER.epoch_ms) not in text
    assert "POST /api/ids" not in text


def test_a_layout_with_no_texts_of_its_own_is_explained_from_its_field_names() -> None:
    custom = Layout(
        name="mine", epoch_ms=0, unit_ms=4, fields=[("time", 40), ("node", 24)], signed=False
    )
    view = explain_view(custom, "en")
    assert view.heading == "How a mine ID is built"
    assert "node in 24 bits" in view.structure
    assert "ticks of 4 ms" in view.structure
    assert view.fields[1].meaning == "Values 0 to 16,777,215."  # no catalog text: range alone


def test_a_layouts_own_meaning_wins_over_the_field_names() -> None:
    from snowid import MASTODON, TWITTER

    mastodon = {f.name: f.meaning for f in explain_view(MASTODON, "en").fields}
    twitter = {f.name: f.meaning for f in explain_view(TWITTER, "en").fields}
    assert mastodon["sequence"].startswith("Not a counter")
    assert twitter["sequence"].startswith("Counts the IDs")


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", ["exactly 1,000 ms after the epoch", "= 4,194,304,000", "= 4,194,439,168"]),
        ("vi", ["cách epoch đúng 1.000 ms", "= 4.194.304.000", "= 4.194.439.168"]),
    ],
)
def test_the_seeds_example_reads_in_the_pages_digit_groups(lang: str, words: list[str]) -> None:
    text = seed_example(1288834975657, 1, 1, 0, lang)
    for word in words:
        assert word in text
    assert "1288834975657" in text  # the timestamp as typed in the form


def test_grouping_touches_whole_numbers_of_four_digits_or_more_only() -> None:
    assert group_numbers("(175928847299117063 >> 17) & 31", "vi") == (
        "(175.928.847.299.117.063 >> 17) & 31"
    )
    assert group_numbers("1000 × 10", "en") == "1,000 × 10"
    assert group_digits(4194304000, "vi") == "4.194.304.000"
