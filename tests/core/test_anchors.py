"""The anchor tweets that ship with snowid, and the estimate of a pre-Snowflake tweet's time.

The table is TweetedAt's, copied unchanged: these tests check the copy against what can be
checked without the source (its row count, each row's date column against its Unix time, ids
and times rising together), that every anchor names its source and licence, that the stated
uncertainty is the leave-one-out figure of the shipped table (computed here, not written
down), and that tweet 20's estimate holds the time published for it.
"""

from __future__ import annotations

import datetime as dt
import itertools
import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path

import pytest

import snowid
from snowid import Anchor, AnchorSource, decode
from snowid.ids._anchors import LAST_SEQUENTIAL_TWEET_ID, SOURCES, TWEETEDAT, anchors
from snowid.ids._estimate import (
    AFTER_LAST,
    ANCHOR,
    BEFORE_FIRST,
    GAP,
    INTERPOLATED,
    AnchorTable,
    estimate_words,
    shipped_table,
)

UTC = dt.UTC


def ms(text: str) -> int:
    return int(dt.datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp() * 1000)


# Tweet 20, @jack's "just setting up my twttr": its page shows 12:50 PM, 21 March 2006, in
# Pacific time (PST, UTC-8: daylight time began on 2 April that year), quoted so by
# windowsobserver.com (2010-03-21) and by 140characters.com (2009-03-20). To the minute.
TWEET_20_PUBLISHED = (ms("2006-03-21 20:50:00"), ms("2006-03-21 20:50:59.999"))


def leave_one_out_ms(table: tuple[Anchor, ...]) -> list[float]:
    """Each anchor but the ends, placed on the straight line through its two neighbours
    (in floating point, unlike the library's integer line), minus its own time."""
    errors = []
    for below, anchor, above in zip(table, table[1:], table[2:], strict=False):
        share = (anchor.id - below.id) / (above.id - below.id)
        line = below.time_ms + share * (above.time_ms - below.time_ms)
        errors.append(abs(line - anchor.time_ms))
    return errors


def test_the_table_is_tweetedats_file_as_published() -> None:
    """The copy's size is the source's (95,931 characters in 2,362 rows), each row's third
    column is the UTC date of its second (the Unix time), and ids and times rise together:
    a digit mistyped in a time breaks the date check, and most in an id break the order."""
    text = resources.files("snowid.ids").joinpath("anchors", TWEETEDAT.file).read_text("ascii")
    rows = [line.split(",") for line in text.splitlines()]
    assert (len(text), len(rows)) == (95_931, 2_362)
    for _, seconds, shown in rows:
        assert dt.datetime.fromtimestamp(int(seconds), UTC).strftime("%Y-%m-%d %H:%M:%S") == shown
    table = anchors()
    assert [a.id for a in table] == [int(row[0]) for row in rows]
    assert all(a.id < b.id and a.time_ms < b.time_ms for a, b in itertools.pairwise(table))
    assert (table[0].id, table[-1].id) == (20, LAST_SEQUENTIAL_TWEET_ID)


def test_every_anchor_names_its_source_and_the_datas_licence() -> None:
    """Each anchor carries a source with the exact file it is published in (a commit, not a
    branch), the data's licence (its text ships beside the table) and how it was checked."""
    assert anchors()
    for anchor in anchors():
        assert anchor.source in SOURCES
    for source in SOURCES:
        assert isinstance(source, AnchorSource)
        assert source.url.startswith("https://")
        assert "/blob/" in source.url
        assert len(source.url.split("/blob/")[1].split("/")[0]) == 40  # a commit
        assert source.licence
        assert source.checked
        assert source.method
        assert source.precision_ms >= 1
    licence = resources.files("snowid.ids").joinpath("anchors", "LICENSE-tweetedat.txt")
    words = licence.read_text("ascii")
    assert "MIT License" in words
    assert "Copyright (c) 2019 ODU WS-DL" in words
    assert TWEETEDAT.file in words


def test_the_stated_uncertainty_is_the_largest_leave_one_out_error_of_the_shipped_table() -> None:
    """Computed here from the shipped anchors, each left out in turn: the library states the
    largest miss (within a millisecond: it draws the line in integers), and its words give it
    rounded up to the minute, never less."""
    errors = leave_one_out_ms(anchors())
    assert len(errors) == len(anchors()) - 2
    assert abs(shipped_table().uncertainty_ms - max(errors)) <= 1
    minutes = -(-int(max(errors)) // 60_000)
    _, words = estimate_words(decode(12345).estimate, "en")  # type: ignore[arg-type]
    assert f"{minutes // 60} h {minutes % 60} min" in words


def test_the_docs_state_the_figures_of_the_shipped_table() -> None:
    """docs/layout.md names the table's size and the leave-one-out figure; both follow the
    table, so a new table cannot leave the page behind."""
    page = (Path(__file__).parents[2] / "docs/layout.md").read_text()
    minutes = -(-int(max(leave_one_out_ms(anchors()))) // 60_000)
    assert f"{len(anchors()):,} tweets" in page
    assert f"{minutes // 60} h {minutes % 60} min" in page


def test_tweet_20_is_estimated_within_its_stated_uncertainty_of_its_published_time() -> None:
    """Tweet 20 is an anchor: its range holds the minute published for it, and its best
    estimate is within the stated uncertainty of that minute."""
    estimate = decode(20).estimate
    assert estimate is not None
    assert estimate.basis == ANCHOR
    assert estimate.best is not None
    assert estimate.earliest is not None
    assert estimate.latest is not None
    start, end = TWEET_20_PUBLISHED
    assert estimate.earliest <= end
    assert estimate.latest >= start
    assert abs(estimate.best - start) <= estimate.uncertainty_ms


def test_tweet_20_left_out_of_the_table_is_bounded_on_one_side_by_the_next_anchor() -> None:
    """Without tweet 20 the table starts at tweet 75: tweet 20 was posted at or before it,
    and no earlier bound is claimed."""
    estimate = AnchorTable(anchors()[1:]).estimate(20)
    assert (estimate.basis, estimate.best, estimate.earliest) == (BEFORE_FIRST, None, None)
    assert estimate.latest is not None
    assert estimate.latest >= TWEET_20_PUBLISHED[1]


def test_an_anchor_left_out_lies_in_the_range_the_rest_of_the_table_gives() -> None:
    """Every 25th anchor, left out of the table, lies in the range the remaining table gives
    it (its own leave-one-out figure included). The table's two worst anchors (a burst of
    ids on 2006-08-27) each fall outside when left out alone: the figure is the largest miss
    with them in, and docs/layout.md says so."""
    table = anchors()
    errors = leave_one_out_ms(table)
    worst = 1 + errors.index(max(errors))
    burst = {table[worst - 1].id, table[worst].id}
    sample = sorted({*range(1, len(table) - 1, 25), worst - 1, worst})
    outside = set()
    for k in sample:
        estimate = AnchorTable(table[:k] + table[k + 1 :]).estimate(table[k].id)
        assert estimate.earliest is not None
        assert estimate.latest is not None
        if not estimate.earliest <= table[k].time_ms <= estimate.latest:
            outside.add(table[k].id)
    assert outside <= burst
    assert len(sample) > 90


# --- the estimator on small tables whose answers are worked by hand ------------------------

HAND = AnchorSource(
    key="hand",
    name="by hand",
    url="https://example.org/t",
    method="made up for the test",
    licence="none",
    checked="no",
    file="-",
    precision_ms=1000,
)


def table(*pairs: tuple[int, int]) -> AnchorTable:
    """Anchors from (id, seconds) pairs."""
    return AnchorTable(tuple(Anchor(number, seconds * 1000, HAND) for number, seconds in pairs))


# ids 100..400 at 0, 100, 200, 300 s: a steady pace, then 2,000 s to id 500. Leave one out:
# 200 and 300 miss by 0; 400, halfway on the line from 300 (200 s) to 500 (2,300 s), is put at
# 1,250 s: 950 s off. Each left-out anchor was 100 s from its nearest neighbour (the reach).
STEADY = ((100, 0), (200, 100), (300, 200), (400, 300), (500, 2300))


def test_leave_one_out_and_reach_on_a_hand_table() -> None:
    steady = table(*STEADY)
    assert steady.errors_ms == (0, 0, 950_000)
    assert steady.uncertainty_ms == 950_000
    assert steady.reach_ms == 100_000  # 400 is 100 s from 300


def test_an_id_between_two_anchors_is_on_their_line_within_the_bracket() -> None:
    """Id 150: on the line at 50 s; the range (the figure, 950 s, either side) is cut to
    the bracket: 0 s to 100.999 s (an anchor's time is cut to the second)."""
    estimate = table(*STEADY).estimate(150)
    assert (estimate.basis, estimate.best) == (INTERPOLATED, 50_000)
    assert (estimate.earliest, estimate.latest) == (0, 100_999)
    assert (estimate.below.id, estimate.above.id) == (100, 200)  # type: ignore[union-attr]


def test_deep_in_a_long_gap_the_range_is_the_whole_gap() -> None:
    """Id 450: on the line at 1,300 s, 1,000 s from both anchors, past the test's reach
    (100 s): the range is the gap, 300 s to 2,300.999 s."""
    estimate = table(*STEADY).estimate(450)
    assert (estimate.basis, estimate.best) == (GAP, 1_300_000)
    assert (estimate.earliest, estimate.latest) == (300_000, 2_300_999)


def test_near_an_anchor_in_a_long_gap_the_figure_applies() -> None:
    """Id 401: on the line at 320 s, 20 s from anchor 400, within reach: 320 s +- 950 s,
    cut below at 300 s."""
    estimate = table(*STEADY).estimate(401)
    assert (estimate.basis, estimate.best) == (INTERPOLATED, 320_000)
    assert (estimate.earliest, estimate.latest) == (300_000, 1_270_000)


def test_an_anchor_is_its_own_time_to_the_second() -> None:
    estimate = table(*STEADY).estimate(300)
    assert (estimate.basis, estimate.best, estimate.earliest, estimate.latest) == (
        ANCHOR,
        200_000,
        200_000,
        200_999,
    )
    assert estimate.as_dict()["anchors"] == [  # the anchor once, with its source
        {"id": "300", "timestamp": 200_000, "source": HAND.url, "licence": HAND.licence}
    ]


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        (99, (BEFORE_FIRST, None, None, 999)),
        (501, (AFTER_LAST, None, 2_300_000, None)),
    ],
)
def test_outside_the_anchors_the_estimate_is_bounded_on_one_side(
    number: int, expected: tuple[str, int | None, int | None, int | None]
) -> None:
    estimate = table(*STEADY).estimate(number)
    assert (estimate.basis, estimate.best, estimate.earliest, estimate.latest) == expected


@pytest.mark.parametrize(
    "pairs",
    [((1, 0), (2, 1)), ((1, 0), (3, 2), (2, 3)), ((1, 0), (2, 5), (3, 5))],
    ids=["too few", "ids fall", "times stand still"],
)
def test_a_table_whose_anchors_do_not_rise_together_is_refused(
    pairs: tuple[tuple[int, int], ...],
) -> None:
    with pytest.raises(ValueError, match="anchor"):
        table(*pairs)


def test_only_a_twitter_id_up_to_the_last_counted_tweet_has_an_estimate() -> None:
    assert decode(LAST_SEQUENTIAL_TWEET_ID).estimate is not None
    assert decode(LAST_SEQUENTIAL_TWEET_ID + 1).estimate is None
    assert decode(20, layout="discord").estimate is None
    assert isinstance(decode(0).estimate, snowid.Estimate)


def test_the_table_is_read_from_a_zipped_package_too(tmp_path: Path) -> None:
    """The package's loader reads the table (``get_data``), so snowid imported from a zip
    (a zipapp, a wheel on sys.path) estimates as it does from a folder."""
    package = Path(snowid.__file__).parent
    archive = tmp_path / "snowid.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in package.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                zipped.write(path, path.relative_to(package.parent).as_posix())
    probe = "import snowid; print(snowid.__file__); print(snowid.decode(12345).estimate.best)"
    done = subprocess.run(
        [sys.executable, "-S", "-c", probe],
        env={"PYTHONPATH": str(archive)},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    where, best = done.stdout.split()
    assert where.startswith(str(archive))
    assert int(best) == decode(12345).estimate.best  # type: ignore[union-attr]
