"""The decoder and the JSON API lead a tweet id from before Snowflake with that, and with when
the tweet was posted (``Decoded.estimate``), in the page's or the answer's language."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from snowid import decode
from snowid.web import Settings, create_app
from snowid.web.openapi import document
from tests.support.web import fixed_identity_service, serving

HEADLINE = {"en": "This ID is from before Snowflake", "vi": "ID này có từ trước Snowflake"}


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    app = create_app(Settings(), service=fixed_identity_service())
    with serving(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        yield http


def text_of(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_decoder_result_leads_with_before_snowflake(client: httpx.Client, lang: str) -> None:
    """The estimate comes first in the result, before the id and its time from the bits, and
    names tweet 20's published time."""
    response = client.get("/decode", params={"id": "20", "lang": lang})
    assert response.status_code == 200
    html = response.text
    block = re.search(r'<p class="warn estimate" id="out-estimate"[^>]*>(.*?)</p>', html, re.S)
    assert block is not None
    assert text_of(block.group(1)).startswith(HEADLINE[lang])
    assert "2006-03-21 20:50:14 UTC" in block.group(1)
    assert html.index('id="out-estimate"') < html.index('id="out-id"')
    assert html.index('id="out-estimate"') < html.index('id="out-utc"')


def test_the_decoder_shows_no_estimate_for_a_snowflake_tweet(client: httpx.Client) -> None:
    html = client.get("/decode", params={"id": "29700859248"}).text
    assert 'id="out-estimate"' not in html
    assert 'id="out-id"' in html


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_api_answer_leads_with_the_estimate(client: httpx.Client, lang: str) -> None:
    body = client.get("/api/decode/12345", params={"lang": lang}).json()
    assert next(iter(body)) == "estimate"
    assert body["estimate"]["headline"].startswith(HEADLINE[lang])
    assert body == decode(12345).as_dict(lang)
    assert "estimate" not in client.get("/api/decode/29700859248").json()


@pytest.mark.parametrize(
    ("number", "basis"),
    [(20, "anchor"), (12345, "interpolated"), (8_800_000_000, "gap"), (0, "before_first")],
)
def test_each_kind_of_estimate_matches_the_openapi_document(number: int, basis: str) -> None:
    """The decode answer with an estimate of each basis is a ``Decoded`` of /openapi.json
    (which forbids keys it does not name), in both languages."""
    jsonschema = pytest.importorskip("jsonschema")
    components = document(max_count=64)["components"]
    schema = {"$ref": "#/components/schemas/Decoded", "components": components}
    for lang in ("en", "vi"):
        answer = decode(number).as_dict(lang)
        assert answer["estimate"]["basis"] == basis  # type: ignore[index]
        jsonschema.validate(answer, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**answer, "estimate": {"basis": basis}}, schema)
