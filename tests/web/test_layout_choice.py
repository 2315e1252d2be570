"""Issue 19 §3 and §6 as the server renders the pages: the remembered layout (the
``snowid_layout`` cookie fills in an empty form, never a link), the link "copy link"
copies (always with ``layout=``), ``Vary: Cookie``, the explanation of the layout read,
the decoder without the generator's text, and the words of §6 in both languages."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from snowid import LAYOUTS
from snowid.web import Settings, create_app
from snowid.web.pages import LAYOUT_COOKIE
from tests.support.web import fixed_identity_service

DISCORD_ID = "175928847299117063"


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(), service=fixed_identity_service())) as http:
        yield http


def checked(html: str) -> str:
    found = re.findall(r'name="layout" value="([a-z0-9-]*)" checked', html)
    assert len(found) == 1
    return str(found[0])


def share(html: str) -> str:
    found = re.search(r'data-copy-link data-href="([^"]*)"', html)
    assert found is not None
    return found.group(1).replace("&amp;", "&")


def explained(html: str) -> str:
    found = re.search(r'<section class="explain" id="explain"[^>]*data-layout="([a-z0-9-]+)"', html)
    assert found is not None
    return found.group(1)


def test_a_chosen_layout_is_remembered_and_fills_in_the_next_empty_form(
    client: TestClient,
) -> None:
    first = client.get("/decode", params={"id": DISCORD_ID, "layout": "discord", "lang": "en"})
    assert f"{LAYOUT_COOKIE}=discord" in first.headers["set-cookie"]
    assert "Cookie" in first.headers["vary"]
    again = client.get("/decode", params={"lang": "en"})  # the client sends the cookie back
    assert checked(again.text) == "discord"
    assert 'id="layout-remembered"' in again.text
    assert explained(again.text) == "discord"
    assert "Cookie" in again.headers["vary"]  # this response depends on the cookie


def test_a_link_with_an_id_is_never_read_through_the_cookie(client: TestClient) -> None:
    client.cookies.set(LAYOUT_COOKIE, "discord")
    html = client.get("/decode", params={"id": DISCORD_ID, "lang": "en"}).text
    assert checked(html) == ""  # "from the link (else Twitter)", as for every visitor
    assert 'data-layout="twitter"' in html  # read as Twitter, not Discord
    assert 'id="layout-remembered"' not in html


def test_the_from_the_link_option_forgets_the_choice_and_a_bad_cookie_is_ignored(
    client: TestClient,
) -> None:
    client.cookies.set(LAYOUT_COOKIE, "discord")
    response = client.get("/decode", params={"id": DISCORD_ID, "layout": "", "lang": "en"})
    assert f'{LAYOUT_COOKIE}=""' in response.headers["set-cookie"]
    assert "Max-Age=0" in response.headers["set-cookie"]
    client.cookies.clear()
    client.cookies.set(LAYOUT_COOKIE, "myspace")
    html = client.get("/decode", params={"lang": "en"}).text
    assert checked(html) == ""
    assert 'id="err-layout" data-field="layout" hidden' in html  # no error for a stale cookie


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"id": DISCORD_ID}, "twitter"),  # nothing chosen: Twitter, named
        ({"id": DISCORD_ID, "layout": "discord"}, "discord"),
        ({"id": f"https://discord.com/channels/1/{DISCORD_ID}", "layout": ""}, "discord"),
        ({"id": f"{DISCORD_ID}\n20", "layout": "instagram"}, "instagram"),  # the table too
    ],
)
def test_copy_link_always_names_the_layout_read(
    client: TestClient, params: dict[str, str], expected: str
) -> None:
    html = client.get("/decode", params={**params, "lang": "vi"}).text
    link = share(html)
    assert f"layout={expected}&" in link
    assert link.startswith("/decode?id=")
    assert explained(html) == expected


def test_each_layout_chosen_is_the_layout_explained(client: TestClient) -> None:
    for layout in LAYOUTS:
        html = client.get("/decode", params={"id": "20", "layout": layout.name}).text
        assert explained(html) == layout.name
        section = html[html.index('id="explain"') :]
        assert f"{layout.epoch_ms}" in section


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_decoder_carries_no_generator_or_operator_text(client: TestClient, lang: str) -> None:
    html = client.get("/decode", params={"id": DISCORD_ID, "lang": lang}).text
    assert "POST /api/ids" not in html
    assert "leased" not in html
    assert "được thuê" not in html
    compose = client.get("/", params={"lang": lang}).text
    assert "POST /api/ids" in compose  # the generator's page keeps it


def text_of(html: str) -> str:
    body = html[html.index("<main") :]
    body = re.sub(r"<script.*?</script>", " ", body, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", body).split())


VI_PAGES = [
    ("/decode", {"id": DISCORD_ID, "layout": "discord"}),
    ("/decode", {"id": DISCORD_ID}),
    ("/decode", {"id": f"{DISCORD_ID}\n20", "layout": "discord"}),
    ("/range", {"from": "2016-04-30T11:18:25.796", "to": "2016-04-30T11:18:26"}),
    ("/", {}),
]


@pytest.mark.parametrize(("path", "params"), VI_PAGES)
def test_the_vietnamese_pages_have_no_english_field_words(
    client: TestClient, path: str, params: dict[str, str]
) -> None:
    text = text_of(client.get(path, params={**params, "lang": "vi"}).text)
    for word in ("Worker", "worker", " low", " high", "low ", "high "):
        assert word not in text
    assert not re.search(r"(?<!Bit )\bDấu\b(?! thời gian)", text)  # never a bare "Dấu"


def test_the_sign_block_is_bit_dau_and_the_vietnamese_words_read_as_actions(
    client: TestClient,
) -> None:
    html = client.get("/decode", params={"id": "4194439168", "lang": "vi"}).text
    assert '<span class="block-name">Bit dấu</span>' in html
    assert "Xem mọi ID của bố cục này được tạo cùng thời điểm" in html
    assert "không muộn hơn ngày mai" not in html
    assert "Nút xử lý (trung tâm dữ liệu × 32 + máy)" in html


def test_english_writes_id_one_way_and_drops_the_original_tool(client: TestClient) -> None:
    for path, params in [*VI_PAGES, ("/decode", {})]:
        text = text_of(client.get(path, params={**params, "lang": "en"}).text)
        assert "as in the original tool" not in text
        # "ID" as a word; only code keeps the lower case ("WHERE id BETWEEN", "/api/ids").
        words = re.findall(r"(?<![/_.?&=\w])(?:id|ids|Id|Ids)\b(?! BETWEEN)", text)
        assert words == [], path


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", "exactly 1,000 ms after the epoch"), ("vi", "cách epoch đúng 1.000 ms")],
)
def test_the_seeds_example_stays_as_text_when_the_fields_change(
    client: TestClient, lang: str, words: str
) -> None:
    edited = {"timestamp": "1700000000000", "datacenter": "3", "machine": "9", "sequence": "5"}
    html = client.get("/", params={**edited, "lang": lang}).text
    example = re.search(r'<p id="explain-example">(.*?)</p>', html, re.S)
    assert example is not None
    assert words in example.group(1)
    assert "1288834975657" in example.group(1)
    assert 'data-copy="1288834975657"' not in html  # the result is the edited id, not the seed
