"""Issue 19 §1-§2 on the web: GET /api/decode?text= and the page's decoder take pasted
links and numbers written with digit groups, in both languages (no server: the app in
process through Starlette's test client)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from snowid import decode
from snowid.web import Settings, create_app
from tests.support.web import fixed_identity_service

TWEET = 266031293945503744
DISCORD_LINK = (
    "https://discord.com/channels/81384788765712384/381886868708655104/1000000000000000000"
)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(Settings(max_count=16), service=fixed_identity_service(3, 7))
    with TestClient(app) as http:
        yield http


# --- GET /api/decode?text= --------------------------------------------------------------


def test_a_tweet_link_is_read_as_twitter(client: TestClient) -> None:
    body = client.get(
        "/api/decode", params={"text": f"https://x.com/a/status/{TWEET}/photo/1?s=20"}
    ).json()
    assert body["normalised"] == str(TWEET)
    assert (body["source"], body["layout"], body["layout_from"]) == ("twitter", "twitter", "link")
    assert body["ids"] == [{"label": None, "reading": decode(TWEET).as_dict("en")}]


def test_a_discord_link_gives_every_id_labelled_in_discords_layout(client: TestClient) -> None:
    """The message first (issue 25 §2: its own time leads), then its channel and server."""
    body = client.get("/api/decode", params={"text": DISCORD_LINK}).json()
    assert (body["layout"], body["layout_from"]) == ("discord", "link")
    assert [item["label"] for item in body["ids"]] == ["message", "channel", "server"]
    assert [item["reading"]["layout"] for item in body["ids"]] == ["discord"] * 3
    assert body["ids"][0]["reading"]["id"] == "1000000000000000000"


def test_a_layout_asked_for_against_the_link_is_refused(client: TestClient) -> None:
    """Issue 25 §1 changed this on purpose: the layout asked for used to win, reading a
    Discord mention's id as a tweet's; now it is a 400 naming both."""
    response = client.get(
        "/api/decode", params={"text": "<@175928847299117063>", "layout": "twitter"}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "layout_conflict"
    assert "Layout twitter contradicts the pasted link" in error["message"]
    assert "comes from Discord" in error["message"]


def test_a_bare_grouped_number_keeps_the_default_layout(client: TestClient) -> None:
    body = client.get("/api/decode", params={"text": "1.288.834.975.657"}).json()
    assert (body["normalised"], body["source"], body["layout_from"]) == (
        "1288834975657",
        None,
        "default",
    )
    vi = client.get("/api/decode", params={"text": "4.194.439.168", "lang": "vi"}).json()
    assert vi["normalised"] == "4194439168"


@pytest.mark.parametrize(
    ("text", "lang", "code", "words"),
    [
        ("hello", "en", "not_an_id_or_link", "paste an ID, or a tweet, Discord"),
        ("hello", "vi", "not_an_id_or_link", "hãy dán một ID"),
        ("1.000", "en", "digit_groups", "ambiguous"),
        ("1,000", "vi", "digit_groups", "không rõ nghĩa"),
        ("12.34.567", "en", "digit_groups", "'.'"),
        ("   ", "en", "empty_value", "empty"),
    ],
)
def test_unreadable_text_gets_the_pages_error(
    client: TestClient, text: str, lang: str, code: str, words: str
) -> None:
    response = client.get("/api/decode", params={"text": text, "lang": lang})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code
    assert words in error["message"]


def test_instagrams_stored_negative_is_read_by_both_forms(client: TestClient) -> None:
    stored = "-8958609928324058060"
    by_text = client.get("/api/decode", params={"text": stored, "layout": "instagram"}).json()
    by_path = client.get(f"/api/decode/{stored}", params={"layout": "instagram"}).json()
    assert by_text["ids"][0]["reading"] == by_path
    assert by_path["id"] == "9488134145385493556"
    assert by_path["stored"] == stored
    refused = client.get(f"/api/decode/{stored}")
    assert (refused.status_code, refused.json()["error"]["code"]) == (422, "id_negative")


def test_the_path_form_still_takes_no_digit_groups(client: TestClient) -> None:
    response = client.get("/api/decode/1 288 834 975 657")
    assert response.status_code == 400


# --- the page's decoder -------------------------------------------------------------------


def test_a_pasted_discord_link_shows_its_ids_labelled_and_the_layout_chosen(
    client: TestClient,
) -> None:
    """Issue 25 §2: the message is the result; its server and channel follow, labelled."""
    en = client.get("/decode", params={"id": DISCORD_LINK, "lang": "en"}).text
    assert "Read as Discord: the layout the link names." in en
    assert '<span id="out-id" class="id mono">1000000000000000000</span>' in en
    assert '<span class="id-label">server</span> <a class="mono"' in en
    vi = client.get("/decode", params={"id": DISCORD_LINK, "lang": "vi"}).text
    assert "Đọc theo bố cục Discord" in vi
    assert '<span class="id-label">máy chủ</span>' in vi


def test_a_pasted_tweet_link_is_read_and_its_plain_id_shown(client: TestClient) -> None:
    link = f"https://twitter.com/x/status/{TWEET}"
    html = client.get("/decode", params={"id": link, "lang": "en"}).text
    assert f"Read as {TWEET}." in html
    assert "Read as Twitter: the layout the link names." in html
    assert 'class="result"' in html


def test_a_grouped_number_is_read_in_the_page_language(client: TestClient) -> None:
    vi = client.get("/decode", params={"id": "1.288.834.975.657", "lang": "vi"}).text
    assert "Đã đọc thành 1288834975657." in vi
    en_single = client.get("/decode", params={"id": "1.000", "lang": "en"}).text
    assert "is ambiguous" in en_single
    vi_single = client.get("/decode", params={"id": "4194439.168", "lang": "vi"}).text
    assert "không đều" in vi_single


def test_the_pages_compose_fields_take_digit_groups_too(client: TestClient) -> None:
    html = client.get(
        "/",
        params={
            "timestamp": "1 288 834 975 657",
            "datacenter": "1",
            "machine": "1",
            "sequence": "0",
            "lang": "en",
        },
    ).text
    assert "4194439168" in html
    assert "not a whole number" not in html


def test_a_layout_picked_against_a_mention_is_refused_and_stays_picked(
    client: TestClient,
) -> None:
    """Issue 25 §1 changed this on purpose: the picker used to read the mention's id as a
    tweet; now the layout field says why not, and the choice stays for the visitor to fix."""
    html = client.get(
        "/decode", params={"id": "<@175928847299117063>", "layout": "twitter", "lang": "en"}
    ).text
    assert "contradicts the pasted link" in html
    assert 'id="out-id"' not in html
    assert 'name="layout" value="twitter" checked aria-invalid="true">' in html
