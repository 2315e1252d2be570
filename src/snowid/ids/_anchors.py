"""Anchor tweets: tweets numbered before Snowflake whose id and posting time are published.

Until November 2010 Twitter numbered tweets with a counter, so such an id holds no time: only
tweets whose id and time were both published say how fast the counter ran. Each ``Anchor``
carries its ``AnchorSource`` (where the pair is published, under which licence, how our copy was
checked). The table ships inside the package (``anchors/``) and is read through the
package's loader on first use, never at import.

The one source today is TweetedAt's table (ODU Web Science and Digital Libraries group): 2,362
tweets from tweet 20 (2006-03-21) to 29700859247 (2010-11-04), each time the ``created_at``
Twitter's API gave for that tweet, cut to the second. It is copied unchanged, so it can be
compared with its source byte for byte; its MIT licence ships beside it.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Final, NamedTuple, Protocol

from snowid.ids._layout import TWITTER, Layout

__all__ = [
    "LAST_SEQUENTIAL_TWEET_ID",
    "SOURCES",
    "TWEETEDAT",
    "Anchor",
    "AnchorSource",
    "anchors",
    "counted_tweet",
    "read_table",
]

LAST_SEQUENTIAL_TWEET_ID: Final = 29700859247
"""Tweets up to this id were numbered by Twitter's counter before Snowflake: the boundary
TweetedAt uses, and the last anchor of its table (posted 2010-11-04 21:02:48 UTC)."""


def counted_tweet(layout: Layout, number: int) -> bool:
    """Whether ``number`` read in ``layout`` may be a tweet id from Twitter's counter: the
    one rule behind the ``before_first_snowflake`` warning and ``Decoded.estimate``."""
    return layout is TWITTER and number <= LAST_SEQUENTIAL_TWEET_ID


@dataclass(frozen=True, slots=True)
class AnchorSource:
    """Where anchors are published: ``url`` names the exact file (a commit, not a branch),
    ``licence`` the data's licence, ``checked`` how the copy in the package was checked."""

    key: str
    name: str
    url: str
    method: str
    licence: str
    checked: str
    file: str
    """The file under ``snowid/ids/anchors/`` that holds its pairs."""
    precision_ms: int
    """How finely its times are published: the true time is within this after the one given."""


class Anchor(NamedTuple):
    """One tweet: its id, its posting time (Unix ms, as published) and where both are from.
    (A named tuple: thousands are made when the table is first read, and cheaply.)"""

    id: int
    time_ms: int
    source: AnchorSource


TWEETEDAT: Final = AnchorSource(
    key="tweetedat",
    name="TweetedAt",
    url=(
        "https://github.com/oduwsdl/tweetedat/blob/"
        "ec9a45b18c5ee5d67c4e54023149d96142c21c95/data/TweetTimeline.txt"
    ),
    method=(
        "ODU Web Science and Digital Libraries group, 'TweetedAt: Finding Tweet Timestamps for"
        " Pre and Post Snowflake Tweet IDs' (2019-08-03),"
        " https://ws-dl.blogspot.com/2019/08/2019-08-03-tweetedat-finding-tweet.html: ids"
        " found by halving the id range from tweet 20 to 29700859247, each time the created_at"
        " of Twitter's API for that tweet"
    ),
    licence="MIT, Copyright (c) 2019 ODU WS-DL (snowid/ids/anchors/LICENSE-tweetedat.txt)",
    checked=(
        "copied unchanged: 95,931 characters in 2,362 rows, as the source; each row's date"
        " column agrees with its Unix time, ids and times both rise (both tested), and all"
        " but 18 ids lie within 10 of the midpoint of two others, as the halving makes them"
    ),
    file="tweetedat-TweetTimeline.txt",
    precision_ms=1000,
)

SOURCES: Final = (TWEETEDAT,)
"""Every source of the shipped anchors."""


def read_table(text: str, source: AnchorSource) -> tuple[Anchor, ...]:
    """The anchors of one source's file: lines ``id,unix_seconds[,anything]``."""
    found = []
    for line in text.splitlines():
        if line.strip():
            number, seconds = line.split(",")[:2]
            found.append(Anchor(int(number), int(seconds) * 1000, source))
    return tuple(found)


class _DataLoader(Protocol):
    def get_data(self, path: str) -> bytes: ...


@functools.cache
def anchors() -> tuple[Anchor, ...]:
    """Every shipped anchor, by id (read once, on first use).

    Read through the package's own loader (``get_data``, what ``pkgutil.get_data`` calls),
    which works from a zip as from a folder: ``importlib.resources`` would load pathlib,
    tempfile and more, a cost ``snowid decode`` of an old tweet id would pay at every start."""
    loader: _DataLoader = __spec__.loader  # type: ignore[assignment]
    folder = os.path.join(os.path.dirname(__file__), "anchors")
    found: list[Anchor] = []
    for source in SOURCES:
        data = loader.get_data(os.path.join(folder, source.file))
        found += read_table(data.decode("ascii"), source)
    return tuple(sorted(found, key=lambda anchor: anchor.id))
