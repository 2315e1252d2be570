"""The JSON API over real HTTP: every endpoint, the seed's example, and bad input of every kind."""

from __future__ import annotations

import itertools
import json
import os
import socket
from collections.abc import Iterator

import httpx
import pytest

from snowid import TWITTER, SnowId, breakdown
from snowid.web import Settings, create_app
from tests.support.web import error_of, fixed_identity_service, serving

SEED = {"timestamp": "1288834975657", "datacenter": "1", "machine": "1", "sequence": "0"}
SEED_ID = "4194439168"
MAX_ID = (1 << 63) - 1


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    app = create_app(Settings(max_count=4096), service=fixed_identity_service(3, 7))
    with serving(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        yield http


# --- compose -------------------------------------------------------------------


def test_compose_reproduces_the_seed_worked_example(client: httpx.Client) -> None:
    response = client.get("/api/compose", params=SEED)
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == SEED_ID
    assert body == breakdown(SnowId(int(SEED_ID))).as_dict()
    steps = {step["key"]: step["result"] for step in body["steps"]}
    assert steps == {
        "delta": "1000",
        "timestamp": "4194304000",
        "datacenter": "131072",
        "machine": "4096",
        "sequence": "0",
        "combine": "4194439168",
    }


def test_compose_id_is_a_decimal_string_even_above_2_to_the_53(client: httpx.Client) -> None:
    params = {
        "timestamp": str(TWITTER.max_timestamp),
        "datacenter": "31",
        "machine": "31",
        "sequence": "4095",
    }
    body = client.get("/api/compose", params=params).json()
    assert body["id"] == str(MAX_ID)
    assert '"id": "9223372036854775807"' in json.dumps(body)


def unsafe_numbers(value: object, path: str = "$") -> list[str]:
    """Where a JSON value holds a number JavaScript's JSON.parse would round (past 2^53)."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in unsafe_numbers(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in unsafe_numbers(v, f"{path}[{i}]")]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53:
        return [path]
    return []


@pytest.mark.parametrize(
    "path",
    [
        "/api/compose?timestamp=3487858230208&datacenter=31&machine=31&sequence=4095",
        f"/api/decode/{MAX_ID}",
        "/api/decode/4194439168",
        "/readyz",
        "/healthz",
    ],
)
def test_no_json_answer_holds_a_number_javascript_would_round(
    client: httpx.Client, path: str
) -> None:
    """Issue 10 item 5: every 64-bit value (the id, every step's result) is a decimal string."""
    response = client.get(path)
    assert response.status_code == 200
    assert unsafe_numbers(response.json()) == []
    if path.startswith("/api/"):
        steps = response.json()["steps"]
        assert all(isinstance(step["result"], str) for step in steps)
        assert int(steps[-1]["result"]) == int(response.json()["id"])


def test_compose_blank_timestamp_means_now_and_sequence_defaults_to_zero(
    client: httpx.Client,
) -> None:
    before = TWITTER.epoch_ms
    body = client.get(
        "/api/compose", params={"timestamp": "", "datacenter": "2", "machine": "3"}
    ).json()
    assert body["timestamp"] > before + 10 * 365 * 86_400_000  # some time after 2020
    assert (body["datacenter"], body["machine"], body["sequence"]) == (2, 3, 0)


BAD_COMPOSE = [
    # (what changes, status, code)
    ({"datacenter": "32"}, 422, "out_of_range"),
    ({"datacenter": "-1"}, 422, "out_of_range"),
    ({"machine": "32"}, 422, "out_of_range"),
    ({"sequence": "4096"}, 422, "out_of_range"),
    ({"sequence": "-1"}, 422, "out_of_range"),
    ({"timestamp": str(TWITTER.epoch_ms - 1)}, 422, "timestamp_before_epoch"),
    ({"timestamp": "0"}, 422, "timestamp_before_epoch"),
    ({"timestamp": str(TWITTER.max_timestamp + 1)}, 422, "timestamp_after_end"),
    ({"datacenter": "abc"}, 400, "not_an_integer"),
    ({"machine": "1.5"}, 400, "not_an_integer"),
    ({"machine": "0x1f"}, 400, "not_an_integer"),
    ({"sequence": "1e3"}, 400, "not_an_integer"),
    ({"timestamp": "9" * 500}, 422, "timestamp_after_end"),
    ({"timestamp": "9" * 5000}, 422, "number_too_long"),
    ({"datacenter": "١"}, 400, "not_an_integer"),  # an Arabic-Indic digit
    ({"datacenter": ""}, 400, "empty_value"),
    ({"machine": "   "}, 400, "empty_value"),
]


@pytest.mark.parametrize(("change", "status", "code"), BAD_COMPOSE)
def test_compose_rejects_bad_input_with_a_specific_error(
    client: httpx.Client, change: dict[str, str], status: int, code: str
) -> None:
    response = client.get("/api/compose", params={**SEED, **change})
    assert response.status_code == status
    assert error_of(response)["code"] == code


def test_compose_without_datacenter_or_machine_says_which_is_missing(
    client: httpx.Client,
) -> None:
    response = client.get("/api/compose", params={"machine": "1"})
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "empty_value"
    assert error["message"].lower().startswith("datacenter")


def test_compose_error_message_names_field_value_and_range(client: httpx.Client) -> None:
    error = error_of(client.get("/api/compose", params={**SEED, "machine": "32"}))
    assert error["message"] == "Machine 32 is out of range 0..31"


@pytest.mark.parametrize(
    ("lang", "hint"),
    [
        ("en", "this looks like seconds; in milliseconds it is 1288834975000"),
        ("vi", "giá trị này có vẻ tính bằng giây; đổi ra mili giây là 1288834975000"),
    ],
)
def test_a_timestamp_in_seconds_gets_the_milliseconds_hint(
    client: httpx.Client, lang: str, hint: str
) -> None:
    """Issue 10 item 3: the API's message carries the hint; the code stays the same."""
    response = client.get("/api/compose", params={**SEED, "timestamp": "1288834975", "lang": lang})
    assert response.status_code == 422
    error = error_of(response)
    assert error["code"] == "timestamp_before_epoch"
    assert error["message"].endswith(hint)


def test_error_messages_follow_lang_then_accept_language(client: httpx.Client) -> None:
    bad = {**SEED, "machine": "32"}
    by_query = error_of(httpx.get(f"{client.base_url}/api/compose", params={**bad, "lang": "vi"}))
    assert "nằm ngoài phạm vi" in by_query["message"]
    by_header = error_of(
        httpx.get(
            f"{client.base_url}/api/compose",
            params=bad,
            headers={"Accept-Language": "vi-VN,vi;q=0.9,en;q=0.5"},
        )
    )
    assert by_header["message"] == by_query["message"]
    english = error_of(
        httpx.get(
            f"{client.base_url}/api/compose",
            params=bad,
            headers={"Accept-Language": "fr, en;q=0.4"},
        )
    )
    assert "out of range" in english["message"]


# --- decode --------------------------------------------------------------------


def test_decode_the_seed_id(client: httpx.Client) -> None:
    response = client.get(f"/api/decode/{SEED_ID}")
    assert response.status_code == 200
    body = response.json()
    existing = breakdown(SnowId(int(SEED_ID))).as_dict()
    assert {key: body[key] for key in existing} == existing  # every Twitter key unchanged
    # The seed id is at most 29700859247, where tweets had no time: an estimate leads (issue 25)
    assert set(body) - set(existing) == {
        "estimate",
        "layout",
        "fields",
        "warnings",
        "unix_seconds",
        "discord_markup",
    }
    assert next(iter(body)) == "estimate"
    assert body["layout"] == "twitter"
    assert body["fields"] == {"datacenter": 1, "machine": 1, "sequence": 0}
    assert (body["timestamp"], body["datacenter"], body["machine"], body["sequence"]) == (
        1288834975657,
        1,
        1,
        0,
    )
    assert body["datetime"] == "2010-11-04T01:42:55.657Z"


@pytest.mark.parametrize("value", ["0", str(MAX_ID), " 4194439168 "])
def test_decode_accepts_the_whole_range(client: httpx.Client, value: str) -> None:
    response = client.get(f"/api/decode/{value}")
    assert response.status_code == 200
    assert response.json()["id"] == value.strip()


BAD_IDS = [
    ("-1", 422, "id_negative"),
    (str(1 << 64), 422, "id_too_large"),
    (str((1 << 70) + 5), 422, "id_too_large"),
    (str(1 << 63), 422, "id_sign_bit_set"),
    (str((1 << 64) - 1), 422, "id_sign_bit_set"),
    ("abc", 400, "not_an_integer"),
    ("12abc", 400, "not_an_integer"),
    ("4194439168.0", 400, "not_an_integer"),
    ("9" * 100, 422, "id_too_large"),
    ("9" * 5000, 422, "number_too_long"),
    ("%20", 400, "empty_value"),
]


@pytest.mark.parametrize(("value", "status", "code"), BAD_IDS)
def test_decode_rejects_what_is_not_a_twitter_layout_id(
    client: httpx.Client, value: str, status: int, code: str
) -> None:
    response = client.get(f"/api/decode/{value}")
    assert response.status_code == status
    assert error_of(response)["code"] == code


@pytest.mark.parametrize("digits", [4000, 4001])
@pytest.mark.parametrize("sign", ["", "-"])
def test_a_4001_digit_number_gets_the_same_422_as_a_4000_digit_one(
    client: httpx.Client, digits: int, sign: str
) -> None:
    """Past 4,000 digits a number is refused without converting it, but it is still a
    number out of range (422), not "not a number" (400). Issue 8 item 13."""
    number = sign + "9" * digits
    for response in (
        client.get(f"/api/decode/{number}"),
        client.get("/api/compose", params={**SEED, "timestamp": number}),
        client.get("/api/compose", params={**SEED, "machine": number}),
    ):
        assert response.status_code == 422, response.text
        assert error_of(response)["code"] in (
            "number_too_long",
            "id_too_large",
            "id_negative",
            "timestamp_after_end",
            "timestamp_before_epoch",
            "out_of_range",
        )


def test_decode_sign_bit_message_is_clear(client: httpx.Client) -> None:
    message = error_of(client.get(f"/api/decode/{1 << 63}"))["message"]
    assert "sign bit" in message
    assert "0..9223372036854775807" in message


# --- ids -----------------------------------------------------------------------


def test_ids_default_to_one_fresh_id_as_a_decimal_string(client: httpx.Client) -> None:
    response = client.post("/api/ids")
    assert response.status_code == 200
    ids = response.json()["ids"]
    assert len(ids) == 1
    assert isinstance(ids[0], str)
    assert SnowId.from_str(ids[0]).parts[1:3] == (3, 7)


def test_ids_batch_of_4096_is_strictly_increasing_and_unique(client: httpx.Client) -> None:
    first = [int(i) for i in client.post("/api/ids", params={"count": 4096}).json()["ids"]]
    second = [int(i) for i in client.post("/api/ids", params={"count": 4096}).json()["ids"]]
    both = first + second
    assert len(first) == 4096
    assert all(a < b for a, b in itertools.pairwise(both))


@pytest.mark.parametrize(
    ("count", "status", "code"),
    [
        ("0", 422, "out_of_range"),
        ("4097", 422, "out_of_range"),
        ("-5", 422, "out_of_range"),
        ("abc", 400, "not_an_integer"),
        ("2.5", 400, "not_an_integer"),
        ("", 400, "empty_value"),
    ],
)
def test_ids_count_is_checked(client: httpx.Client, count: str, status: int, code: str) -> None:
    response = client.post("/api/ids", params={"count": count})
    assert response.status_code == status
    assert error_of(response)["code"] == code


def test_ids_limit_is_configurable() -> None:
    app = create_app(Settings(max_count=10), service=fixed_identity_service())
    with serving(app) as url:
        assert httpx.post(f"{url}/api/ids?count=10").status_code == 200
        response = httpx.post(f"{url}/api/ids?count=11")
        assert response.status_code == 422
        assert "1..10" in error_of(response)["message"]


def test_ids_needs_post(client: httpx.Client) -> None:
    response = client.get("/api/ids")
    assert response.status_code == 405
    assert error_of(response)["code"] == "method_not_allowed"
    assert response.headers["allow"] == "POST"


# --- routes, health, metrics, openapi ------------------------------------------


@pytest.mark.parametrize("path", ["/api/nothing", "/api/readings/", "/api", "/nothing.json"])
def test_unknown_routes_are_404_json(client: httpx.Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert error_of(response)["code"] == "not_found"


def test_healthz_and_readyz_with_a_fixed_identity(client: httpx.Client) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "ready": True, "lease": "static"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["datacenter"] == 3
    assert ready.json()["machine"] == 7


def test_metrics_count_issued_ids(client: httpx.Client) -> None:
    def issued() -> int:
        text = client.get("/metrics").text
        line = next(x for x in text.splitlines() if x.startswith("snowid_ids_issued_total{"))
        return int(line.split()[1])

    before = issued()
    client.post("/api/ids", params={"count": 5})
    assert issued() == before + 5
    response = client.get("/metrics")
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    for name in (
        "snowid_sequence_waits_total",
        "snowid_clock_backward_events_total",
        "snowid_ceiling_waits_total",
        "snowid_lease_state",
        "snowid_ready",
    ):
        assert f"# TYPE {name} " in response.text
    labels = f'pid="{os.getpid()}",worker="103",datacenter="3",machine="7",lease="static"'
    assert f"snowid_identity_info{{{labels}}} 1" in response.text


def test_openapi_document_is_3_1_and_lists_every_endpoint(client: httpx.Client) -> None:
    response = client.get("/openapi.json")
    assert response.status_code == 200
    doc = response.json()
    assert doc["openapi"] == "3.1.0"
    assert set(doc["paths"]) == {
        "/api/compose",
        "/api/decode",
        "/api/decode/{id}",
        "/api/ids",
        "/api/layouts",
        "/api/range",
        "/api/readings/{id}",
        "/healthz",
        "/readyz",
        "/metrics",
    }
    assert "4096" in json.dumps(doc["paths"]["/api/ids"])


# --- repeated query parameters (issue 8, item 13) -------------------------------


@pytest.mark.parametrize(
    ("method", "url", "name", "count"),
    [
        ("GET", "/api/compose?datacenter=1&machine=1&machine=2", "machine", 2),
        ("GET", "/api/compose?timestamp=&timestamp=&datacenter=1&machine=1", "timestamp", 2),
        ("GET", "/api/compose?datacenter=1&machine=1&lang=en&lang=en", "lang", 2),
        ("POST", "/api/ids?count=1&count=2", "count", 2),
        ("POST", "/api/ids?count=1&count=1&count=1", "count", 3),
        ("GET", f"/api/decode/{SEED_ID}?lang=vi&lang=en", "lang", 2),
    ],
)
def test_a_repeated_query_parameter_is_a_specific_400(
    client: httpx.Client, method: str, url: str, name: str, count: int
) -> None:
    """Before: the last value silently won (`machine=1&machine=2` composed machine 2)."""
    response = client.request(method, url, headers={"Accept-Language": "en"})
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "duplicate_parameter"
    assert error["message"].startswith(f"Query parameter {name} is given {count} times")


def test_the_repeated_parameter_error_is_localized(client: httpx.Client) -> None:
    response = client.get(
        "/api/compose?datacenter=1&machine=1&machine=2", headers={"Accept-Language": "vi"}
    )
    assert response.status_code == 400
    message = error_of(response)["message"]
    assert (
        message
        == "Tham số truy vấn machine xuất hiện 2 lần (1, 2); mỗi tham số chỉ được ghi một lần"
    )


def test_the_openapi_document_lists_the_repeated_parameter_code(client: httpx.Client) -> None:
    doc = client.get("/openapi.json").json()
    for path, method in (
        ("/api/compose", "get"),
        ("/api/ids", "post"),
        ("/api/decode/{id}", "get"),
    ):
        assert (
            "duplicate_parameter" in doc["paths"][path][method]["responses"]["400"]["description"]
        )


# --- malformed HTTP (issue 8, item 14) -------------------------------------------


def _raw_exchange(base_url: str, request: bytes) -> bytes:
    """Send ``request`` on a fresh connection; everything the server sends until it closes."""
    host, port = base_url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize(
    "request_line",
    [
        b"BREW /api/decode/1 HTTP/1.1",  # a method token the parser does not know
        b"GET /api/decode/1\x00 HTTP/1.1",  # NUL in the target
        b"GET /api/decode/" + b"1" * 70_000 + b" HTTP/1.1",  # a request line over 64 KB
    ],
    ids=["unknown-method", "nul-in-target", "request-line-70kb"],
)
def test_malformed_http_gets_the_servers_plain_400_and_the_server_keeps_serving(
    client: httpx.Client, request_line: bytes
) -> None:
    """Documented in docs/web.md: the parser refuses these before the app runs, so the answer
    is uvicorn's plain text, not the JSON error shape; other clients are not affected."""
    answer = _raw_exchange(str(client.base_url), request_line + b"\r\nHost: x\r\n\r\n")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert b"content-type: text/plain" in head.lower()
    assert body == b"Invalid HTTP request received."
    assert client.get("/healthz").status_code == 200
    assert client.get(f"/api/decode/{SEED_ID}").json()["id"] == SEED_ID
