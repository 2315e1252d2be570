"""``snowid decode`` of a tweet id from before Snowflake leads with that, and with when the
tweet was posted (the library's ``Decoded.estimate``), in text and in ``--json``."""

from __future__ import annotations

import json

import pytest

from snowid import decode
from snowid.cli import main
from snowid.ids import estimate_words

HEADLINE = {"en": "This ID is from before Snowflake", "vi": "ID này có từ trước Snowflake"}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    out, _ = capsys.readouterr()
    return out


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_text_leads_with_before_snowflake_and_the_estimate(
    capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    """The first line is the headline, the second the estimate (tweet 20's published time,
    to the second), both in the language asked for; the fields follow."""
    lines = run(capsys, "--lang", lang, "decode", "20").splitlines()
    assert lines[0].startswith(HEADLINE[lang])
    assert "2006-03-21 20:50:14 UTC" in lines[1]
    assert lines[2] == ""
    assert (lines[0], lines[1]) == estimate_words(decode(20).estimate, lang)  # type: ignore[arg-type]


def test_the_json_leads_with_the_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    """``estimate`` is the object's first key, its headline the before-Snowflake words; the
    object is the library's."""
    data = json.loads(run(capsys, "--lang", "en", "decode", "12345", "--json"))
    assert next(iter(data)) == "estimate"
    assert data["estimate"]["headline"].startswith(HEADLINE["en"])
    assert data["estimate"]["basis"] == "interpolated"
    assert data["estimate"]["earliest"] <= data["estimate"]["best"] <= data["estimate"]["latest"]
    assert data == decode(12345).as_dict("en")


def test_a_snowflake_tweet_id_has_no_estimate(capsys: pytest.CaptureFixture[str]) -> None:
    out = run(capsys, "--lang", "en", "decode", "29700859248")
    assert HEADLINE["en"] not in out
    data = json.loads(run(capsys, "--lang", "en", "decode", "29700859248", "--json"))
    assert "estimate" not in data
