"""What the clients send and how they read answers, without a server: settings refused with
an error naming the field, the value and the range; answers that are not exactly a batch of
ids refused; the service's error JSON kept; the retry pause."""

from __future__ import annotations

import json
import math

import pytest

from snowid import errors
from snowid.client import AsyncClient, Client
from snowid.client._wire import endpoint, pause_s, read_ids, refusal

URL = "http://127.0.0.1:8000"
BATCH = b'{"ids":["7","8","9223372036854775807"]}'


@pytest.mark.parametrize("make", [Client, AsyncClient])
@pytest.mark.parametrize(
    ("setting", "value", "shown", "limits"),
    [
        ("batch", 0, "batch 0", "1..1000000"),
        ("batch", 1_000_001, "batch 1000001", "1..1000000"),
        ("timeout", 0, "timeout in seconds (above 0) 0", "0..600"),
        ("timeout", -1.5, "timeout in seconds (above 0) -1.5", "0..600"),
        ("timeout", math.nan, "timeout in seconds (above 0) nan", "0..600"),
        ("retries", 11, "retries 11", "0..10"),
        ("retries", -1, "retries -1", "0..10"),
    ],
)
def test_a_setting_out_of_range_names_field_value_and_range(
    make: type[Client] | type[AsyncClient], setting: str, value: object, shown: str, limits: str
) -> None:
    with pytest.raises(errors.OutOfRangeError) as caught:
        make(URL, **{setting: value})  # type: ignore[arg-type]
    assert caught.value.field == setting
    assert str(caught.value) == f"{shown} is out of range {limits}"
    assert limits in caught.value.message("vi")


@pytest.mark.parametrize("value", [True, "many", 2.5])
def test_a_batch_that_is_no_whole_number_is_refused_by_name(value: object) -> None:
    with pytest.raises(errors.NotAnIntegerError) as caught:
        Client(URL, batch=value)  # type: ignore[arg-type]
    assert caught.value.field == "batch"


@pytest.mark.parametrize(
    ("url", "reason", "says"),
    [
        ("ftp://h:1", "scheme", "http:// or https://"),
        ("127.0.0.1:8000", "scheme", "http:// or https://"),
        ("http://", "host", "names no host"),
        ("", "host", "names no host"),
        ("http://h:99999", "port", "0..65535"),
        ("http://h:x", "port", "0..65535"),
        ("http://u:secret@h:1", "userinfo", "token="),
        ("http://h:1/?count=5", "extra", "base URL only"),
        ("http://h:1/#x", "extra", "base URL only"),
    ],
)
def test_a_url_the_client_cannot_use_says_why(url: str, reason: str, says: str) -> None:
    with pytest.raises(errors.InvalidServiceUrlError) as caught:
        Client(url)
    error = caught.value
    assert (error.field, error.reason) == ("url", reason)
    assert says in str(error)
    assert str(error).startswith("service URL ")
    assert "secret" not in str(error)
    assert "secret" not in repr(error)
    assert error.message("vi") != str(error)


@pytest.mark.parametrize("token", ["", "two words", "tab\there", "nul\x00", "ngôn"])
def test_a_token_that_cannot_go_into_a_header_is_refused_and_never_shown(token: str) -> None:
    with pytest.raises(errors.InvalidTokenError) as caught:
        Client(URL, token=token)
    assert caught.value.field == "token"
    for text in (str(caught.value), repr(caught.value), caught.value.message("vi")):
        assert token not in text or not token


def test_the_request_names_the_batch_the_token_and_a_path_prefix() -> None:
    where = endpoint("https://ids.example:8443/snow/", "s3cret", 4096)
    assert (where.tls, where.host, where.port) == (True, "ids.example", 8443)
    assert where.target == "/snow/api/ids?count=4096"
    sent = where.request_bytes()
    assert sent.startswith(b"POST /snow/api/ids?count=4096 HTTP/1.1\r\n")
    assert b"\r\nAuthorization: Bearer s3cret\r\n" in sent
    assert b"\r\nHost: ids.example:8443\r\n" in sent
    assert sent.endswith(b"\r\n\r\n")
    assert b"Authorization" not in endpoint("http://[::1]", None, 1).request_bytes()
    assert endpoint("http://[::1]", None, 1).port == 80


def test_a_batch_is_read_in_the_service_s_form_and_in_any_json_spelling() -> None:
    assert read_ids(BATCH, 3, URL) == [7, 8, (1 << 63) - 1]
    spaced = b'{ "ids" : [ "7", "8", "9" ] }'
    assert read_ids(spaced, 3, URL) == [7, 8, 9]


@pytest.mark.parametrize(
    ("body", "count", "reason"),
    [
        (b'{"ids":["7","8"]}', 3, "count"),  # fewer than asked: never guessed at
        (b'{"ids":["7","8","9","10"]}', 3, "count"),
        (b'{"ids":["7","","9"]}', 3, "id"),
        (b'{"ids":["7"," 8","9"]}', 3, "id"),
        (b'{"ids":["7","-8","9"]}', 3, "id"),
        (b'{"ids":["7","8","9223372036854775808"]}', 3, "id"),  # 2**63: not an id
        (b'{"ids":["7","8",9]}', 3, "id"),  # a number, not a string
        (b'{"ids":["7","8","\xd9\xa3"]}', 3, "id"),  # an Arabic-Indic digit
        (b"<html>busy</html>", 3, "json"),
        (b'{"ids":"7,8,9"}', 3, "json"),
        (b'["7","8","9"]', 3, "json"),
    ],
)
def test_an_answer_that_is_not_exactly_the_batch_asked_for_is_refused(
    body: bytes, count: int, reason: str
) -> None:
    with pytest.raises(errors.ServiceAnswerError) as caught:
        read_ids(body, count, URL)
    assert caught.value.reason == reason
    assert caught.value.url == URL
    assert URL in str(caught.value)
    assert URL in caught.value.message("vi")


def test_an_error_answer_keeps_the_service_s_code_and_message() -> None:
    body = b'{"error":{"code":"out_of_range","message":"count 5000 is out of range 1..4096"}}'
    error = refusal(422, body, URL, 1)
    assert type(error) is errors.ServiceRefusedError
    assert (error.status, error.service_code) == (422, "out_of_range")
    assert str(error) == (
        f"the id service {URL} refused the request: HTTP 422 out_of_range:"
        " count 5000 is out of range 1..4096"
    )
    auth = refusal(401, b'{"error":{"code":"auth_required","message":"m"}}', URL, 1)
    assert isinstance(auth, errors.ServiceAuthError)
    busy = refusal(503, b"Service Unavailable", URL, 4)
    assert isinstance(busy, errors.ServiceUnavailableError)
    assert (busy.attempts, busy.service_code) == (4, "")
    assert "4 tries" in str(busy)


def test_the_service_s_message_is_shown_whole_made_visible_and_bounded() -> None:
    """Issue 25 §3: the 401's hint was cut at 40 characters ("... send the header
    Authorization: Bearer <token>" read "sen…"); a message is a sentence to read, shown
    whole up to 1,000 characters, with control characters made visible."""
    from snowid.i18n import translate

    for lang in ("en", "vi"):
        hint = translate("web.error.auth_required", lang)  # what snowid serve answers
        assert len(hint) > 40
        body = json.dumps({"error": {"code": "auth_required", "message": hint}}).encode()
        error = refusal(401, body, URL, 1)
        assert isinstance(error, errors.ServiceAuthError)
        assert error.message(lang).endswith(f"(HTTP 401 auth_required): {hint}")
    odd = refusal(400, b'{"error":{"code":"x","message":"two\\nlines"}}', URL, 1)
    assert str(odd).endswith(": 'two\\nlines'")
    flood = refusal(
        400, json.dumps({"error": {"code": "x", "message": "y" * 5000}}).encode(), URL, 1
    )
    assert str(flood).endswith(": " + "y" * 999 + "…")


def test_the_pause_doubles_follows_retry_after_and_stays_short() -> None:
    assert [pause_s(n, None) for n in range(3)] == [0.05, 0.1, 0.2]
    assert pause_s(0, "1") == 1.0
    assert pause_s(0, "3600") == 2.0
    assert pause_s(8, None) == 2.0
    assert pause_s(0, "soon") == 0.05
