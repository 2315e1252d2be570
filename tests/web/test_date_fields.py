"""Issue 25 §2 without a browser: the page's date fields are ISO 8601 text, and a bad date
is refused naming its field and value, never answered as a moment of 1970.

The range page read a bare number as Unix milliseconds, so a year typed alone (``2022``)
became 1970-01-01T00:00:02.022 and Unix seconds a date in January 1970; both are refused
now, Unix seconds with a button that gives the same instant in milliseconds. The API
(``/api/range``) is for programs and still takes any Unix ms."""

from __future__ import annotations

import html as _html
import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from snowid.errors import InvalidDateTimeError, NumberNotADateError
from snowid.testing import FakeClock
from snowid.web import Settings, create_app
from snowid.web._range_view import read_range
from tests.support.web import fixed_identity_service, serving

NOW = FakeClock(1764547200000)  # 2025-12-01T00:00:00Z


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serving(create_app(Settings(), service=fixed_identity_service())) as url:
        yield url


def get(base_url: str, path: str) -> str:
    with httpx.Client(base_url=base_url, timeout=10) as http:
        answer = http.get(path)
    assert answer.status_code == 200, answer.text
    return answer.text


def error_of(page: str, field: str) -> str:
    match = re.search(rf'<p class="error[^"]*" id="err-{field}"[^>]*>(.*?)</p>', page, re.S)
    assert match, f"no message for {field}"
    return _html.unescape(re.sub(r"<[^>]+>", "", match.group(1)))


@pytest.mark.parametrize(
    ("lang", "field", "words"),
    [
        ("en", "from", "From 2022 is a number, not a date"),
        ("vi", "from", "Thời điểm bắt đầu 2022 là một con số, không phải ngày"),
        ("en", "to", "To 2022 is a number, not a date"),
    ],
)
def test_a_year_alone_is_refused_naming_the_field_and_the_value(
    lang: str, field: str, words: str
) -> None:
    form = read_range({"from": "2021-01-01", field: "2022"}, lang, NOW)
    assert form is not None
    assert form.errors[field].startswith(words), form.errors[field]
    assert "2016-04-30T11:18:25.796" in form.errors[field]  # what to write instead
    assert form.values[field] == "2022"  # shown again as typed, not as 1970-01-01T00:00:02.022


@pytest.mark.parametrize("text", ["0", "2022", "26102022", "1666778400", " 20221026 "])
def test_no_bare_number_of_ten_digits_or_fewer_becomes_a_moment_of_1970(text: str) -> None:
    form = read_range({"from": text, "to": ""}, "en", NOW)
    assert form is not None
    assert form.start_ms is None
    assert "1970" not in form.errors["from"]
    assert "1970" not in form.values["from"]


def test_unix_milliseconds_and_iso_dates_still_read() -> None:
    form = read_range({"from": "1666778400000", "to": "2022-10-26 10:00:00.5"}, "en", NOW)
    assert form is not None
    assert not form.errors
    assert (form.start_ms, form.end_ms) == (1666778400000, 1666778400500)
    assert form.values["from"] == "2022-10-26T10:00:00.000"  # shown as ISO, whatever the locale
    assert form.values["to"] == "2022-10-26T10:00:00.500"


def test_the_error_is_an_invalid_datetime_with_its_own_code() -> None:
    error = NumberNotADateError(field="from", value="1666778400")
    assert isinstance(error, InvalidDateTimeError)
    assert error.code == "number_not_a_date"
    assert error.as_milliseconds == 1666778400000
    assert NumberNotADateError(field="from", value="2022").as_milliseconds is None


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_unix_seconds_get_a_button_that_works_without_javascript(base_url: str, lang: str) -> None:
    query = f"/range?lang={lang}&from=1666778400&to=&layout=twitter"
    page = get(base_url, query)
    message = error_of(page, "from")
    assert "1666778400" in message
    assert "1666778400000" in message
    assert 'id="out-low"' not in page
    button = re.search(r'id="err-from"[^>]*>.*?name="fix" value="([^"]*)"', page, re.S)
    assert button, message
    with httpx.Client(base_url=base_url, timeout=10) as http:
        answer = http.get(f"{query}&{urlencode({'fix': _html.unescape(button.group(1))})}")
        assert answer.status_code == 303
        fixed = parse_qs(urlsplit(answer.headers["location"]).query)
        assert fixed["from"] == ["1666778400000"]
        shown = http.get(answer.headers["location"]).text
    assert 'value="2022-10-26T10:00:00.000"' in shown  # the field shows it as a date
    assert 'id="out-low"' in shown


def test_the_date_fields_are_iso_text_not_the_browsers_locale(base_url: str) -> None:
    page = get(base_url, "/range?lang=en&from=2022-10-26T10:00&to=2022-10-26T11:00")
    for name in ("from", "to"):
        field = re.search(rf'<input id="f-{name}"[^>]*>', page, re.S)
        assert field, name
        assert 'type="text"' in field.group(0)
    assert 'value="2022-10-26T10:00:00.000"' in page
    compose = get(base_url, "/?lang=en")
    when = re.search(r'<input id="f-when"[^>]*>', compose, re.S)
    assert when
    assert 'type="text"' in when.group(0)
    assert "datetime-local" not in page + compose
    # the generator's message for a bad date, in the page's language, for app.js to show
    assert 'data-message="Date and time {value} is not a date;' in compose


def test_the_api_still_takes_any_unix_milliseconds(base_url: str) -> None:
    with httpx.Client(base_url=base_url, timeout=10) as http:
        answer = http.get("/api/range", params={"from": "0", "to": "2022", "layout": "mastodon"})
    assert answer.status_code == 200, answer.text
