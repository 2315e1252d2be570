"""Known answers per layout, each from the layout's own documentation or code, or from
another library's test suite; every case names its source.

Where a source gives a creation time rather than the id's own time (an API's
``created_at``), the id's time must fall just before it: ids are made when a row is
inserted, a moment before the record's timestamp is written.
"""

from __future__ import annotations

import datetime as dt

import pytest

from snowid import (
    DISCORD,
    INSTAGRAM,
    MASTODON,
    SONYFLAKE,
    SONYFLAKE_V2,
    TWITTER,
    compose,
    decode,
)
from snowid.errors import SignBitSetError, TimestampAfterEndError
from snowid.testing import KNOWN_ANSWERS


def ms(text: str) -> int:
    """ISO 8601 (UTC) as Unix milliseconds, worked out by datetime, not by snowid."""
    when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return round(when.timestamp() * 1000)


# --- Twitter -------------------------------------------------------------------


@pytest.mark.parametrize(("timestamp", "datacenter", "machine", "sequence", "value"), KNOWN_ANSWERS)
def test_twitter_known_answers_of_the_seed_table(
    timestamp: int, datacenter: int, machine: int, sequence: int, value: int
) -> None:
    """snowid.testing.KNOWN_ANSWERS, checked by hand arithmetic (the seed's worked example
    4194439168 among them), read through the generic decode and compose."""
    decoded = decode(value)
    assert decoded.timestamp == timestamp
    assert decoded.fields == {"datacenter": datacenter, "machine": machine, "sequence": sequence}
    fields = decoded.fields
    assert compose(timestamp=timestamp, layout="twitter", **fields) == value


@pytest.mark.parametrize(
    ("value", "created_at", "source"),
    [
        # Twitter API v1.1 data dictionary, Tweet object example ("created_at":
        # "Wed Oct 10 20:19:24 +0000 2018", "id": 1050118621198921728).
        (1050118621198921728, "2018-10-10T20:19:24Z", "developer.twitter.com tweet-object"),
        # Twitter API v2 docs, the lookup example ("id": "1212092628029698048",
        # "created_at": "2019-12-31T19:26:16.000Z").
        (1212092628029698048, "2019-12-31T19:26:16Z", "developer.twitter.com v2 lookup"),
    ],
)
def test_twitter_ids_of_twitters_own_docs_decode_within_their_created_at_second(
    value: int, created_at: str, source: str
) -> None:
    decoded = decode(value)
    assert ms(created_at) <= decoded.timestamp < ms(created_at) + 1000, source
    assert decoded.warnings == ()


def test_twitter_tweet_of_unfurls_test_suite() -> None:
    """obsidianforensics/unfurl, unfurl/tests/unit/test_twitter.py: status
    1098230906194546688 has the embedded time '2019-02-20 14:40:26.837'."""
    assert decode(1098230906194546688).iso_utc == "2019-02-20T14:40:26.837Z"


# --- Discord -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "iso", "fields"),
    [
        # Discord developer docs, "Snowflakes": the worked example (also in nyxx's test
        # suite, "structure is parsed correctly": workerId 1, processId 0, increment 7).
        (175928847299117063, "2016-04-30T11:18:25.796Z", (1, 0, 7)),
        # sapphiredev/utilities, packages/snowflake/tests/lib/DiscordSnowflake.test.ts:
        # timestamp 1577836800000n, workerId 1n, processId 1n, increment 0n.
        (661720242585735168, "2020-01-01T00:00:00.000Z", (1, 1, 0)),
        # discord-snowflake (npm) README: getTimestamp -> 1441609061949, getWorkerId -> 0,
        # getProcessId -> 3, getIncrement -> 0.
        (90339695967350784, "2015-09-07T06:57:41.949Z", (0, 3, 0)),
        # discord.js v11, src/util/Snowflake.js doc comment (as copied in the fork
        # selfbot-discord 1.5.5): 266241948824764416 is
        # "000000111011000111100001101001000101000000 00001 00000 000000000000".
        (266241948824764416, "2017-01-04T16:30:27.136Z", (1, 0, 0)),
    ],
)
def test_discord_known_answers(value: int, iso: str, fields: tuple[int, int, int]) -> None:
    decoded = decode(value, "discord")
    assert decoded.iso_utc == iso
    assert tuple(decoded.fields.values()) == fields
    assert list(decoded.fields) == ["worker", "process", "increment"]
    worker, process, increment = fields
    assert compose(ms(iso), "discord", worker=worker, process=process, increment=increment) == value


def test_discord_twilight_docs_example() -> None:
    """docs.rs twilight-util, trait Snowflake, timestamp() example: user 105484726235607040
    was created "2015-10-19T01:58:38.546+00:00"."""
    assert decode(105484726235607040, DISCORD).iso_utc == "2015-10-19T01:58:38.546Z"


def test_discord_discordjs_binary_example_bits() -> None:
    """The discord.js doc comment's bit string for 266241948824764416, block by block."""
    data = decode(266241948824764416, "discord").as_dict()
    bits = " ".join(segment["bits"] for segment in data["segments"])  # type: ignore[attr-defined]
    assert bits == "000000111011000111100001101001000101000000 00001 00000 000000000000"


def test_discord_ids_may_use_bit_63_twitter_ids_may_not() -> None:
    """Discord documents snowflakes as unsigned 64-bit: 2**64 - 1 is a Discord id (in the
    year 2154), and the same number is refused as a Twitter id with its sign bit named."""
    assert decode(2**64 - 1, "discord").timestamp == DISCORD.epoch_ms + 2**42 - 1
    with pytest.raises(SignBitSetError) as caught:
        decode(2**64 - 1, "twitter")
    assert caught.value.max == 2**63 - 1


# --- Instagram -----------------------------------------------------------------

_SHORTCODE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def test_instagram_unfurl_shortcode() -> None:
    """obsidianforensics/unfurl, unfurl/tests/unit/test_instagram.py: post DW1nTDiDvnF has
    epoch-milliseconds 1775580510621, 'Shard ID: 958', 'Sequence: 453' (the shortcode is
    the media id in URL-safe base64, as unfurl's parse_instagram.py reads it)."""
    media_id = 0
    for char in "DW1nTDiDvnF":
        media_id = media_id * 64 + _SHORTCODE.index(char)
    decoded = decode(media_id, "instagram")
    assert decoded.timestamp == 1775580510621
    assert decoded.fields == {"shard": 958, "sequence": 453}


def test_instagram_ramsey_identifier() -> None:
    """ramsey/identifier, tests/unit/Snowflake/InstagramSnowflakeTest.php: 2147483647 has
    the date-time '2011-08-24 21:07:01.976'."""
    assert decode(2147483647, INSTAGRAM).iso_utc == "2011-08-24T21:07:01.976Z"


def test_instagram_epoch_of_the_posts_plpgsql() -> None:
    """ "Sharding & IDs at Instagram": next_id() has our_epoch := 1314220021721; id 0 is
    that millisecond (2011-08-24T21:07:01.721Z)."""
    assert decode(0, "instagram").iso_utc == "2011-08-24T21:07:01.721Z"


def test_instagram_worked_example_of_the_post() -> None:
    """The post's example: 1387263000 ms after the epoch, shard 31341 % 2000 = 1341, and
    sequence 5001 % 1024 = 905: id = 1387263000 << (64-41) | 1341 << (64-41-13) | 905."""
    expected = 1387263000 * 2**23 + 1341 * 2**10 + 905
    assert compose(INSTAGRAM.epoch_ms + 1387263000, "instagram", shard=1341, sequence=905) == (
        expected
    )


@pytest.mark.parametrize(
    ("value", "created", "source"),
    [
        # An Instagram API capture in YassMaldini/instagram-clone,
        # src/utils/api/samples/timelineSample.ts: "taken_at": 1665452095.
        (2946348037077308580, 1665452095, "timelineSample.ts"),
        # An Instagram API capture in kumarakshay2023/Instagram-post, readme.md:
        # "created_at": 1743091090 for post "pk": "3597631270905977008".
        (3597631270905977008, 1743091090, "readme.md"),
    ],
)
def test_instagram_media_ids_of_api_captures_precede_their_times(
    value: int, created: int, source: str
) -> None:
    """The id is allocated when the upload starts: its time is within a minute before the
    recorded seconds."""
    decoded = decode(value, "instagram")
    assert created * 1000 - 60_000 <= decoded.timestamp <= created * 1000 + 999, source


# --- Sonyflake -----------------------------------------------------------------


def test_sonyflake_unfurl_example() -> None:
    """obsidianforensics/unfurl, unfurl/tests/unit/test_sonyflake.py: 45eec4a4600041b has
    machine ID '4.27' (the two bytes of a private IP, 4 * 256 + 27) and time
    '2020-08-12 17:35:29.98' (10 ms units)."""
    decoded = decode("0x45eec4a4600041b", "sonyflake")
    assert decoded.iso_utc == "2020-08-12T17:35:29.980Z"
    assert decoded.fields == {"sequence": 0, "machine": 4 * 256 + 27}


@pytest.mark.parametrize("layout", [SONYFLAKE, SONYFLAKE_V2])
def test_sonyflake_toid_packs_time_sequence_machine(layout: object) -> None:
    """sony/sonyflake toID() (sonyflake.go and v2/sonyflake.go):
    elapsed << (8 + 16) | sequence << 16 | machine, the elapsed time in 10 ms units."""
    start = SONYFLAKE.epoch_ms if layout is SONYFLAKE else SONYFLAKE_V2.epoch_ms
    value = compose(start + 10 * 12345, layout, sequence=7, machine=0xBEEF)  # type: ignore[arg-type]
    assert value == 12345 * 2**24 + 7 * 2**16 + 0xBEEF


@pytest.mark.parametrize("layout", [SONYFLAKE, SONYFLAKE_V2])
def test_sonyflake_lifetime_of_sonys_own_tests(layout: object) -> None:
    """sony/sonyflake TestNextIDError (v2: TestNextID_ReturnsError): an id 174 years after
    the start time is made, 175 years after is over the time limit."""
    year = 365 * 24 * 3600 * 1000
    start = SONYFLAKE.epoch_ms if layout is SONYFLAKE else SONYFLAKE_V2.epoch_ms
    compose(start + 174 * year, layout)  # type: ignore[arg-type]
    with pytest.raises(TimestampAfterEndError):
        compose(start + 175 * year, layout)  # type: ignore[arg-type]


def test_sonyflake_start_times_are_sonys_defaults() -> None:
    """sonyflake.go: 2014-09-01 00:00:00 +0000 UTC; v2/sonyflake.go: 2025-01-01 00:00:00."""
    assert decode(0, "sonyflake").iso_utc == "2014-09-01T00:00:00.000Z"
    assert decode(0, "sonyflake-v2").iso_utc == "2025-01-01T00:00:00.000Z"


def test_sonyflake_msb_is_always_0() -> None:
    """sonyflake.go Decompose reports "msb" and Sony's tests expect it 0: bit 63 is a sign."""
    with pytest.raises(SignBitSetError):
        decode(2**63, "sonyflake")


# --- Mastodon ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "created_at"),
    [
        # docs.joinmastodon.org, entities/Status, the example.
        (103270115826048975, "2019-12-08T03:48:33.901Z"),
        # docs.joinmastodon.org, methods/statuses: "Post a new status" and the two
        # "Delete a status" examples.
        (103254962155278888, "2019-12-05T11:34:47.196Z"),
        (103254193998341330, "2019-12-05T08:19:26.052Z"),
        (103254222827484720, "2019-12-05T08:26:45.958Z"),
    ],
)
def test_mastodon_status_ids_of_the_api_docs(value: int, created_at: str) -> None:
    """The id's time (the top 48 bits, Unix ms, as lib/mastodon/snowflake.rb shifts it) is
    at most a tenth of a second before the status's created_at."""
    decoded = decode(value, "mastodon")
    assert ms(created_at) - 100 <= decoded.timestamp <= ms(created_at)
    assert list(decoded.fields) == ["sequence"]


def test_mastodon_ramsey_identifier_answers() -> None:
    """ramsey/identifier, tests/unit/Snowflake/MastodonSnowflake(Factory)Test.php:
    018375b4e2b99a3b is '2022-09-25 17:32:12.345', 9223372036854775807 is
    '6429-10-17 02:45:55.327', 18446744073709551615 is 10889-08-02T05:31:50.655Z."""
    assert decode("0x018375b4e2b99a3b", MASTODON).iso_utc == "2022-09-25T17:32:12.345Z"
    assert decode(9223372036854775807, MASTODON).iso_utc == "6429-10-17T02:45:55.327Z"
    last = decode(18446744073709551615, MASTODON)
    assert last.timestamp == 2**48 - 1  # 281474976710655 ms
    assert last.datetime is None  # past what datetime holds
    assert last.iso_utc is None


def test_mastodon_id_at_without_random() -> None:
    """lib/mastodon/snowflake.rb, id_at(timestamp, with_random: false): Unix ms << 16."""
    when = ms("2019-12-08T03:48:33.849Z")
    assert compose(when, "mastodon") == when * 2**16
    assert decode(when * 2**16 + 40911, "mastodon").fields == {"sequence": 40911}


def test_twitter_layout_is_the_generators() -> None:
    assert TWITTER.fields == (
        ("timestamp", 41),
        ("datacenter", 5),
        ("machine", 5),
        ("sequence", 12),
    )
