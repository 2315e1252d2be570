"""The layout endpoints over real HTTP: decode ?layout=, readings, layouts and range."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from snowid import LAYOUTS, decode
from snowid.ids._builtins import layout_info
from snowid.integrations.sql import range_info
from snowid.web import Settings, create_app
from tests.support.web import error_of, fixed_identity_service, serving


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    app = create_app(Settings(max_count=16), service=fixed_identity_service(3, 7))
    with serving(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        yield http


def test_decode_a_discord_id(client: httpx.Client) -> None:
    """The issue's JSON, key for key, and the same object the CLI's --json prints."""
    response = client.get("/api/decode/175928847299117063", params={"layout": "discord"})
    assert response.status_code == 200
    body = response.json()
    assert {key: body[key] for key in ("id", "layout", "timestamp", "datetime", "fields")} == {
        "id": "175928847299117063",
        "layout": "discord",
        "timestamp": 1462015105796,
        "datetime": "2016-04-30T11:18:25.796Z",
        "fields": {"worker": 1, "process": 0, "increment": 7},
    }
    assert body["warnings"] == []
    assert body == decode(175928847299117063, "discord").as_dict("en")


def test_decode_takes_hex_and_ids_past_bit_63_where_the_layout_allows(
    client: httpx.Client,
) -> None:
    assert client.get("/api/decode/0x0271065ac1020007?layout=discord").json()["fields"] == {
        "worker": 1,
        "process": 0,
        "increment": 7,
    }
    top = client.get(f"/api/decode/{2**64 - 1}", params={"layout": "mastodon"}).json()
    assert (top["timestamp"], top["datetime"]) == (2**48 - 1, None)


def test_decode_warnings_are_localized(client: httpx.Client) -> None:
    english = client.get("/api/decode/20").json()["warnings"]
    vietnamese = client.get("/api/decode/20", params={"lang": "vi"}).json()["warnings"]
    assert [w["code"] for w in english] == [w["code"] for w in vietnamese]
    assert english[0]["code"] == "before_first_snowflake"
    assert "29700859247" in english[0]["message"]
    assert english[0]["message"] != vietnamese[0]["message"]


@pytest.mark.parametrize(
    ("path", "params", "status", "code", "text"),
    [
        ("/api/decode/1", {"layout": "flickr"}, 400, "invalid_layout", "Layout flickr is unknown"),
        ("/api/decode/1", {"layout": "Discord"}, 400, "invalid_layout", "built in: twitter"),
        (f"/api/decode/{2**63}", {}, 422, "id_sign_bit_set", "Discord, Instagram and Mastodon"),
        (f"/api/decode/{2**64}", {"layout": "discord"}, 422, "id_too_large", "Discord IDs"),
        ("/api/decode/0xzz", {}, 400, "invalid_encoding", "z at position 3"),
        ("/api/decode/1?layout=discord&layout=twitter", {}, 400, "duplicate_parameter", "2 times"),
        ("/api/readings/-1", {}, 422, "id_negative", "Snowflake IDs are in range"),
        ("/api/range", {}, 400, "invalid_datetime", "From  is not a time"),
        ("/api/range", {"from": "yesterday"}, 400, "invalid_datetime", "Unix milliseconds"),
        ("/api/range", {"from": "0", "layout": "x"}, 400, "invalid_layout", "unknown"),
        ("/api/range", {"from": str(2**53)}, 422, "out_of_range", "0..9007199254740991"),
    ],
)
def test_bad_input_is_a_specific_4xx_in_the_error_shape(
    client: httpx.Client, path: str, params: dict[str, str], *, status: int, code: str, text: str
) -> None:
    response = client.get(path, params=params or None)  # None keeps a query in the path
    assert response.status_code == status
    error = error_of(response)
    assert error["code"] == code
    assert text in error["message"]


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_an_unknown_layout_offers_only_what_the_api_takes(client: httpx.Client, lang: str) -> None:
    """The regression: the message offered a custom layout (epoch=…,fields=…), which the
    API refuses; it lists the built-ins and says custom ones are not taken here."""
    response = client.get("/api/decode/1", params={"layout": "flickr", "lang": lang})
    error = error_of(response)
    assert "epoch=MS" not in error["message"]
    assert "twitter, discord, instagram" in error["message"]
    spec = "epoch=0,unit=1,fields=timestamp:41,worker:10,sequence:12"
    answer = client.get("/api/decode/1", params={"layout": spec, "lang": lang})
    assert answer.status_code == 400
    assert "epoch=MS" not in error_of(answer)["message"]


def test_errors_are_localized_too(client: httpx.Client) -> None:
    response = client.get("/api/decode/1", params={"layout": "flickr", "lang": "vi"})
    assert "bố cục" in error_of(response)["message"]


def test_readings_put_twitter_first(client: httpx.Client) -> None:
    body = client.get("/api/readings/175928847299117063").json()
    assert body["id"] == "175928847299117063"
    assert [r["layout"] for r in body["readings"]] == [
        "twitter",
        "discord",
        "instagram",
        "sonyflake",
    ]
    assert body["readings"][1]["fields"] == {"worker": 1, "process": 0, "increment": 7}


def test_layouts_lists_the_built_ins(client: httpx.Client) -> None:
    body = client.get("/api/layouts").json()
    assert body == {"layouts": [layout_info(layout, "en") for layout in LAYOUTS]}
    assert body["layouts"][2]["fields"] == [
        {"name": "timestamp", "width": 41, "shift": 23, "max": 2**41 - 1},
        {"name": "shard", "width": 13, "shift": 10, "max": 8191},
        {"name": "sequence", "width": 10, "shift": 0, "max": 1023},
    ]
    vi = client.get("/api/layouts", params={"lang": "vi"}).json()
    assert vi["layouts"][0]["note"] != body["layouts"][0]["note"]


def test_range_of_a_window(client: httpx.Client) -> None:
    params = {"from": "2016-04-30T11:18:25.796Z", "to": "1462015105796", "layout": "discord"}
    body = client.get("/api/range", params=params).json()
    assert body == range_info(1462015105796, 1462015105796, "discord")
    assert int(body["low"]) <= 175928847299117063 <= int(body["high"])


def test_range_without_to_runs_until_now_and_never_refuses_a_time(
    client: httpx.Client,
) -> None:
    body = client.get("/api/range", params={"from": "0"}).json()
    assert body["low"] == "0"  # the smallest Twitter id at or after 1970
    assert not body["empty"]
    empty = client.get("/api/range", params={"from": "0", "to": "5"}).json()
    assert (empty["empty"], empty["low"], empty["high"]) == (True, "1", "0")
