"""When a tweet numbered before Snowflake was posted, estimated from the anchor tweets.

Twitter's counter only rose, so a tweet between two anchors (by id) was posted between their
times: that bracket is certain. Inside it the estimate is a straight line in (id, time)
between the two, as TweetedAt does. How far off that line can be is measured, not assumed:
each anchor in turn is left out and estimated from its neighbours (leave one out), and the
largest miss over the whole table is the stated uncertainty. The largest, not a quantile:
then no anchor missed by more, and the bracket narrows the range wherever it is tighter.

The test only shows the line's accuracy as far from an anchor as a left-out anchor was from
its nearest neighbour (``reach_ms``). Deeper into a longer gap between anchors the range is
the whole gap (basis ``gap``). Below the first anchor the tweet is bounded on one side only
(``before_first``), and likewise above the last (``after_last``).
"""

from __future__ import annotations

import bisect
import datetime as _dt
import functools
import itertools
from dataclasses import dataclass
from typing import Final

from snowid._isotime import iso_ms
from snowid.ids._anchors import Anchor, anchors, counted_tweet
from snowid.ids._layout import Layout

__all__ = [
    "AFTER_LAST",
    "ANCHOR",
    "BASES",
    "BEFORE_FIRST",
    "GAP",
    "INTERPOLATED",
    "AnchorTable",
    "Estimate",
    "estimate_for",
    "estimate_words",
    "shipped_table",
]

ANCHOR: Final = "anchor"
"""The id is an anchor: its published time (to the source's precision)."""
INTERPOLATED: Final = "interpolated"
"""Between two anchors, within the leave-one-out uncertainty and their times."""
GAP: Final = "gap"
"""In a gap between anchors, further from both than the leave-one-out test reached."""
BEFORE_FIRST: Final = "before_first"
"""Below the first anchor: at or before its time, no earlier bound."""
AFTER_LAST: Final = "after_last"
"""Above the last anchor: at or after its time, no later bound."""
BASES: Final = (ANCHOR, INTERPOLATED, GAP, BEFORE_FIRST, AFTER_LAST)


@dataclass(frozen=True, slots=True)
class Estimate:
    """When the tweet with this id was posted (Unix ms): ``best`` the estimate, between
    ``earliest`` and ``latest`` (both included). ``best`` is None, and one bound too, when the
    id is outside the anchors. ``basis`` says how it was found (``BASES``); ``below`` and
    ``above`` are the anchors it was found from; ``uncertainty_ms`` and ``anchor_count`` are
    the table's (its largest leave-one-out error, its size)."""

    best: int | None
    earliest: int | None
    latest: int | None
    basis: str
    below: Anchor | None
    above: Anchor | None
    uncertainty_ms: int
    anchor_count: int

    def as_dict(self) -> dict[str, object]:
        """The JSON object (``estimate`` in the decode answers), words left to the caller:
        times in Unix ms and ISO 8601 (null where the estimate has none)."""
        return {
            "basis": self.basis,
            "best": self.best,
            "earliest": self.earliest,
            "latest": self.latest,
            "best_datetime": None if self.best is None else iso_ms(self.best),
            "earliest_datetime": None if self.earliest is None else iso_ms(self.earliest),
            "latest_datetime": None if self.latest is None else iso_ms(self.latest),
            "uncertainty_ms": self.uncertainty_ms,
            "anchor_count": self.anchor_count,
            "anchors": [
                {
                    "id": str(anchor.id),
                    "timestamp": anchor.time_ms,
                    "source": anchor.source.url,
                    "licence": anchor.source.licence,
                }
                for anchor in dict.fromkeys((self.below, self.above))  # an anchor once
                if anchor is not None
            ],
        }


class AnchorTable:
    """Anchors by rising id (and rising time), with their leave-one-out errors."""

    def __init__(self, table: tuple[Anchor, ...]) -> None:
        if len(table) < 3:  # leaving one out needs a neighbour on each side
            raise ValueError("an anchor table needs at least 3 anchors")
        for low, high in itertools.pairwise(table):
            if not (low.id < high.id and low.time_ms < high.time_ms):
                raise ValueError(f"anchors {low.id} and {high.id} do not rise together")
        self.anchors = table
        self._ids = [anchor.id for anchor in table]

    @functools.cached_property
    def errors_ms(self) -> tuple[int, ...]:
        """Leave one out: each anchor but the first and last, estimated from its two
        neighbours, minus its published time (absolute, ms), in the table's order."""
        table = self.anchors
        return tuple(
            abs(_line(below, above, anchor.id) - anchor.time_ms)
            for below, anchor, above in zip(table, table[1:], table[2:], strict=False)
        )

    @functools.cached_property
    def uncertainty_ms(self) -> int:
        """The largest leave-one-out error: the stated uncertainty of every estimate."""
        return max(self.errors_ms)

    @functools.cached_property
    def reach_ms(self) -> int:
        """How far from its nearest remaining anchor a left-out anchor ever was: the test
        says nothing of the line further from an anchor than this."""
        table = self.anchors
        return max(
            min(anchor.time_ms - below.time_ms, above.time_ms - anchor.time_ms)
            for below, anchor, above in zip(table, table[1:], table[2:], strict=False)
        )

    def estimate(self, number: int) -> Estimate:
        """When the tweet ``number`` was posted, from this table."""
        table, at = self.anchors, bisect.bisect_left(self._ids, number)
        found = functools.partial(
            Estimate, uncertainty_ms=self.uncertainty_ms, anchor_count=len(table)
        )
        if at < len(table) and table[at].id == number:
            anchor = table[at]
            last = anchor.time_ms + anchor.source.precision_ms - 1
            return found(anchor.time_ms, anchor.time_ms, last, ANCHOR, anchor, anchor)
        if at == 0:
            return found(None, None, _latest(table[0]), BEFORE_FIRST, None, table[0])
        if at == len(table):
            return found(None, table[-1].time_ms, None, AFTER_LAST, table[-1], None)
        below, above = table[at - 1], table[at]
        best = _line(below, above, number)
        earliest, latest = below.time_ms, _latest(above)
        if min(best - earliest, latest - best) > self.reach_ms:
            return found(best, earliest, latest, GAP, below, above)
        spread = self.uncertainty_ms
        earliest, latest = max(earliest, best - spread), min(latest, best + spread)
        return found(best, earliest, latest, INTERPOLATED, below, above)


def _line(below: Anchor, above: Anchor, number: int) -> int:
    """The time of ``number`` on the straight line through two anchors (ms, rounded down)."""
    span = above.time_ms - below.time_ms
    return below.time_ms + span * (number - below.id) // (above.id - below.id)


def _latest(anchor: Anchor) -> int:
    """The last moment ``anchor`` may have been posted, its time being cut to its precision."""
    return anchor.time_ms + anchor.source.precision_ms - 1


@functools.cache
def shipped_table() -> AnchorTable:
    """The table of the anchors that ship with snowid (built on first use)."""
    return AnchorTable(anchors())


def estimate_for(layout: Layout, number: int) -> Estimate | None:
    """When ``number`` was posted if it is a tweet id from Twitter's counter (a Twitter-layout
    number up to ``LAST_SEQUENTIAL_TWEET_ID``); None for every other number."""
    if not counted_tweet(layout, number):
        return None
    return shipped_table().estimate(number)


def estimate_words(estimate: Estimate, lang: str) -> tuple[str, str]:
    """The headline ("This ID is from before Snowflake …") and the estimate in words, in
    ``lang``: times to the minute (the earliest rounded down, the latest up), an anchor's to
    the second."""
    from snowid.i18n import translate

    def shown(ms: int | None, up: bool = False) -> str:
        if ms is None:
            return ""
        when = _dt.datetime.fromtimestamp(ms / 1000, _dt.UTC)
        if estimate.basis == ANCHOR:
            return when.strftime("%Y-%m-%d %H:%M:%S UTC")
        if up and when != when.replace(second=0, microsecond=0):
            when += _dt.timedelta(minutes=1)
        return when.strftime("%Y-%m-%d %H:%M UTC")

    minutes = -(-estimate.uncertainty_ms // 60_000)  # rounded up: never understated
    table = shipped_table().anchors
    last_day = _dt.datetime.fromtimestamp(table[-1].time_ms / 1000, _dt.UTC)
    headline = translate("estimate.headline", lang, last_day=last_day.strftime("%Y-%m-%d"))
    source = (estimate.below or estimate.above or table[0]).source
    message = translate(
        f"estimate.{estimate.basis}",
        lang,
        best=shown(estimate.best),
        earliest=shown(estimate.earliest),
        latest=shown(estimate.latest, up=True),
        below=estimate.below.id if estimate.below else "",
        above=estimate.above.id if estimate.above else "",
        source=source.name,
        anchors=estimate.anchor_count,
        uncertainty=translate("estimate.duration", lang, hours=minutes // 60, minutes=minutes % 60),
    )
    return headline, message
