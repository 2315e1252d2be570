"""Issue 25 in the JSON API: an unknown parameter is a 400 naming it, on POST /api/ids
(whether the raw ASGI route or the Starlette route would have answered) and on every other
JSON API route, in the query or in a form body; a layout against the pasted link is
refused naming both; an Instagram share link is refused; the time in the forms people copy;
the hint for a number that looks like a time in ms; a Discord message link's message first.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from snowid import decode
from snowid.web import Settings, create_app
from tests.support.web import fixed_identity_service

DISCORD_LINK = (
    "https://discord.com/channels/81384788765712384/381886868708655104/1000000000000000000"
)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(Settings(max_count=64), service=fixed_identity_service(4, 5))
    with TestClient(app) as http:
        yield http


def error_of(response: object) -> tuple[int, str, str]:
    status = response.status_code  # type: ignore[attr-defined]
    error = response.json()["error"]  # type: ignore[attr-defined]
    return status, error["code"], error["message"]


def test_post_ids_with_count_in_capitals_is_a_400_not_one_id(client: TestClient) -> None:
    """Was 200 with one id: COUNT=5 was ignored."""
    status, code, message = error_of(client.post("/api/ids?COUNT=5"))
    assert (status, code) == (400, "unknown_parameter")
    assert message == "Query parameter COUNT (5) is not one this route reads; it takes: count, lang"
    vi = error_of(client.post("/api/ids?COUNT=5&lang=vi"))[2]
    assert "không đọc tham số truy vấn COUNT" in vi


def test_post_ids_still_takes_count_and_lang(client: TestClient) -> None:
    assert len(client.post("/api/ids?count=5").json()["ids"]) == 5
    assert len(client.post("/api/ids?count=3&lang=vi").json()["ids"]) == 3


@pytest.mark.parametrize(
    ("content", "content_type", "field"),
    [
        ("count=5", "application/x-www-form-urlencoded", "count"),
        (
            '--b\r\nContent-Disposition: form-data; name="count"\r\n\r\n5\r\n--b--\r\n',
            "multipart/form-data; boundary=b",
            "count",
        ),
    ],
)
def test_a_form_body_to_post_ids_is_refused_naming_its_field(
    client: TestClient, content: str, content_type: str, field: str
) -> None:
    response = client.post("/api/ids", content=content, headers={"Content-Type": content_type})
    status, code, message = error_of(response)
    assert (status, code) == (400, "unknown_parameter")
    assert message.startswith(f"Form field {field} ")
    assert "takes its parameters in the query: count, lang" in message


@pytest.mark.parametrize(
    "headers", [{"Content-Type": "application/json"}, {}], ids=["json", "no-content-type"]
)
def test_a_json_body_to_post_ids_is_refused_naming_its_member(
    client: TestClient, headers: dict[str, str]
) -> None:
    """Was 200 with one id: ``{"count": 2}`` (``curl --json``, ``requests.post(json=)``) was
    not read, and the client got one id where it asked for two."""
    response = client.post("/api/ids", content=b'{"count": 2}', headers=headers)
    status, code, message = error_of(response)
    assert (status, code) == (400, "unknown_parameter")
    assert message == (
        "JSON body member count (2) is not read: this route takes its parameters in the"
        " query: count, lang"
    )
    vi = error_of(client.post("/api/ids?lang=vi", content=b'{"count": 2}', headers=headers))
    assert vi[2].startswith("Khóa count (2) trong thân JSON không được đọc")


@pytest.mark.parametrize("body", [b"{}", b"", b"  ", b"[1, 2]", b"not json", b'"count"'])
def test_a_body_with_nothing_to_misread_is_not_read(client: TestClient, body: bytes) -> None:
    """An empty object, an empty body, a list, text: nothing in it looks like a parameter."""
    response = client.post("/api/ids?count=2", content=body)
    assert len(response.json()["ids"]) == 2


ROUTES = [
    ("GET", "/api/compose?timestamp=1288834975657&datacenter=1&machine=1", "datacenter"),
    ("GET", "/api/decode?text=20", "layout"),
    ("GET", "/api/decode/20", "layout"),
    ("GET", "/api/readings/20", "lang"),
    ("GET", "/api/layouts", "lang"),
    ("GET", "/api/range?from=2020-01-01", "from"),
]


@pytest.mark.parametrize(("method", "target", "own"), ROUTES)
def test_every_json_route_refuses_a_parameter_it_does_not_read(
    client: TestClient, method: str, target: str, own: str
) -> None:
    joiner = "&" if "?" in target else "?"
    assert client.request(method, target).status_code == 200
    assert client.request(method, f"{target}{joiner}lang=vi").status_code == 200
    status, code, message = error_of(client.request(method, f"{target}{joiner}Layout=discord"))
    assert (status, code) == (400, "unknown_parameter")
    assert "Layout (discord)" in message
    assert own in message  # the route's own parameters are listed


# --- pasted text -------------------------------------------------------------------------------


def test_a_layout_against_the_link_is_refused_naming_both(client: TestClient) -> None:
    """Was 200, the Discord message read as a tweet."""
    response = client.get("/api/decode", params={"text": DISCORD_LINK, "layout": "twitter"})
    status, code, message = error_of(response)
    assert (status, code) == (400, "layout_conflict")
    assert message.startswith("Layout twitter contradicts the pasted link:")
    assert "comes from Discord, so its IDs are Discord IDs" in message
    agreeing = client.get("/api/decode", params={"text": DISCORD_LINK, "layout": "discord"})
    assert agreeing.json()["layout_from"] == "request"


def test_a_discord_message_link_lists_the_message_first(client: TestClient) -> None:
    body = client.get("/api/decode", params={"text": DISCORD_LINK}).json()
    assert [item["label"] for item in body["ids"]] == ["message", "channel", "server"]
    assert body["ids"][0]["reading"]["datetime"] == "2022-07-22T11:22:59.101Z"


def test_an_instagram_share_link_is_refused(client: TestClient) -> None:
    """Was 200 with id 18048316772297089, "2011-09-18", made up from the share token."""
    link = "https://www.instagram.com/share/reel/BAHtk2AamB/"
    status, code, message = error_of(client.get("/api/decode", params={"text": link}))
    assert (status, code) == (400, "instagram_share_link")
    assert "share link" in message
    assert "instagram.com/p/" in message


def test_the_answer_gives_the_time_as_unix_seconds_and_discord_markup(
    client: TestClient,
) -> None:
    body = client.get("/api/decode/175928847299117063", params={"layout": "discord"}).json()
    assert body == decode(175928847299117063, "discord").as_dict()
    assert (body["unix_seconds"], body["discord_markup"]) == (1462015105, "<t:1462015105:F>")
    assert body["datetime"] == "2016-04-30T11:18:25.796Z"


def test_a_13_digit_number_gets_the_time_hint_and_is_still_read(client: TestClient) -> None:
    body = client.get("/api/decode", params={"text": "1700000000000"}).json()
    assert body["time_hint"] == {
        "code": "looks_like_time",
        "timestamp": 1700000000000,
        "datetime": "2023-11-14T22:13:20.000Z",
        "message": (
            "1700000000000 looks like a time, not an ID: as Unix milliseconds it is"
            " 2023-11-14T22:13:20.000Z. Compose an ID from it?"
        ),
        "compose": "/api/compose?timestamp=1700000000000&datacenter=0&machine=0",
    }
    assert body["ids"][0]["reading"]["id"] == "1700000000000"
    composed = client.get(body["time_hint"]["compose"]).json()
    assert composed["timestamp"] == 1700000000000
    assert "time_hint" not in client.get("/api/decode", params={"text": "4194439168"}).json()
