"""Issue 19 §5 without a browser: errors a visitor can act on (the seconds hint as a button,
a reversed range's swap, both working without JavaScript), the copied link of a blank
timestamp, the decoder table's copy-all text, sort and row headers, the id announced once;
and §7's pieces the server draws (the bit strip to scale, the live result by the fields)."""

from __future__ import annotations

import html as _html
import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from starlette.datastructures import QueryParams

from snowid import SnowId, decode
from snowid.errors import OutOfRangeError, TimestampBeforeEpochError
from snowid.web import Settings, create_app
from snowid.web._fixes import fixed_query, seconds_fix, swap_fix
from tests.support.web import fixed_identity_service, serving

TWITTER_MIN, TWITTER_MAX = 1288834974657, 3487858230208


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serving(create_app(Settings(), service=fixed_identity_service())) as url:
        yield url


def get(base_url: str, path: str) -> httpx.Response:
    with httpx.Client(base_url=base_url, timeout=10) as http:
        return http.get(path)


def error_of(page: str, field: str) -> str:
    match = re.search(rf'<p class="error[^"]*" id="err-{field}"[^>]*>(.*?)</p>', page, re.S)
    assert match, f"no message for {field}"
    return match.group(1)


def before_epoch(value: int) -> TimestampBeforeEpochError:
    return TimestampBeforeEpochError(
        field="timestamp", value=value, min=TWITTER_MIN, max=TWITTER_MAX, layout="twitter"
    )


# --- the fix itself -------------------------------------------------------------------


def test_a_timestamp_in_seconds_is_fixed_by_the_same_instant_in_milliseconds() -> None:
    fix = seconds_fix(before_epoch(1700000000), "en")
    assert fix is not None
    assert fix.sets == "timestamp=1700000000000"
    assert fix.lead == "Timestamp 1700000000 is before the Twitter epoch."
    assert "1700000000000" in fix.button
    assert "seconds" in fix.button
    # the range and the ISO times come after the fix, not in the lead
    assert str(TWITTER_MIN) in fix.detail
    assert "2080-07-10T17:30:30.208Z" in fix.detail
    assert str(TWITTER_MIN) not in fix.lead


def test_only_a_value_that_looks_like_seconds_gets_a_fix() -> None:
    assert seconds_fix(before_epoch(5), "en") is None  # not seconds: no guess offered
    other = OutOfRangeError(field="machine", value=32, min=0, max=31)
    assert seconds_fix(other, "en") is None


def test_a_fix_sets_only_the_pages_own_fields_and_drops_itself() -> None:
    query = QueryParams("timestamp=1700000000&machine=1&lang=vi&fix=timestamp%3D17%26evil%3D1")
    assert fixed_query(query, ("timestamp", "machine")) == "timestamp=17&machine=1&lang=vi"
    assert fixed_query(QueryParams("timestamp=1"), ("timestamp",)) is None


def test_the_swap_fix_sends_the_two_times_the_other_way_round() -> None:
    fix = swap_fix("To is before From", "2024-01-02T00:00", "2024-01-01T00:00", "vi")
    assert parse_qs(fix.sets) == {"from": ["2024-01-01T00:00"], "to": ["2024-01-02T00:00"]}
    assert fix.button == "Đổi chỗ hai thời điểm"


# --- on the pages ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "lead", "button"),
    [
        ("en", "Timestamp 1700000000 is before the Twitter epoch.", "Looks like seconds"),
        ("vi", "Dấu thời gian 1700000000 sớm hơn mốc epoch của Twitter.", "Có vẻ là giây"),
    ],
)
def test_the_seconds_message_leads_with_what_is_wrong_then_the_fix_then_the_range(
    base_url: str, lang: str, lead: str, button: str
) -> None:
    page = get(base_url, f"/?lang={lang}&timestamp=1700000000&datacenter=1&machine=1").text
    message = error_of(page, "timestamp")
    parts = re.findall(r'class="(error-lead|fix|error-detail)"[^>]*>([^<]*)<', message)
    assert [kind for kind, _ in parts] == ["error-lead", "fix", "error-detail"]
    assert parts[0][1] == lead
    assert parts[1][1].startswith(button)
    assert "1700000000000" in parts[1][1]
    assert 'type="submit" name="fix" value="timestamp=1700000000000"' in message


def test_the_fix_button_without_javascript_loads_the_fixed_form(base_url: str) -> None:
    query = "lang=en&timestamp=1700000000&datacenter=1&machine=1&sequence=0"
    with httpx.Client(base_url=base_url, timeout=10) as http:
        answer = http.get(f"/?{query}&fix=timestamp%3D1700000000000")
        assert answer.status_code == 303
        assert answer.headers["location"] == (
            "/?lang=en&timestamp=1700000000000&datacenter=1&machine=1&sequence=0"
        )
        fixed = http.get(answer.headers["location"]).text
    sid = SnowId.from_parts(timestamp=1700000000000, datacenter=1, machine=1, sequence=0)
    assert f'id="out-id" class="id mono">{int(sid)}<' in fixed
    assert 'id="err-timestamp" data-field="timestamp" hidden' in fixed


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_a_reversed_range_is_an_error_on_its_end_with_a_swap_that_needs_no_javascript(
    base_url: str, lang: str
) -> None:
    query = f"/range?lang={lang}&from=2024-01-02T00:00&to=2024-01-01T00:00&layout=twitter"
    page = get(base_url, query).text
    message = error_of(page, "to")
    assert "2024-01-01T00:00" in message  # names the value
    assert 'id="out-low"' not in page  # no result for a reversed window
    button = re.search(r'name="fix" value="([^"]*)"', message)
    assert button, message
    swap = _html.unescape(button.group(1))
    with httpx.Client(base_url=base_url, timeout=10) as http:
        answer = http.get(f"{query}&{urlencode({'fix': swap})}")
        assert answer.status_code == 303
        swapped = parse_qs(urlsplit(answer.headers["location"]).query)
        assert swapped["from"] == ["2024-01-01T00:00:00.000"]
        assert swapped["to"] == ["2024-01-02T00:00:00.000"]
        assert swapped["lang"] == [lang]
        fixed = http.get(answer.headers["location"]).text
    assert 'id="err-to" data-field="to" hidden' in fixed
    assert 'id="out-low"' in fixed


def test_a_blank_timestamp_copies_a_link_with_the_millisecond_used(base_url: str) -> None:
    page = get(base_url, "/?lang=en&timestamp=&datacenter=3&machine=4&sequence=5").text
    path = _html.unescape(re.search(r'data-copy-path="([^"]*)"', page).group(1))  # type: ignore[union-attr]
    shown = re.search(r'id="out-id" class="id mono">(\d+)<', page).group(1)  # type: ignore[union-attr]
    used = decode(int(shown)).timestamp
    assert parse_qs(urlsplit(path).query)["timestamp"] == [str(used)]
    assert f"The link keeps timestamp {used}" in page  # said beside the button
    again = get(base_url, path).text  # the copied link opens this same id
    assert f'id="out-id" class="id mono">{shown}<' in again
    assert "data-copy-path" not in again  # a timestamp given: the address itself is the link


def test_the_id_is_in_no_live_region_of_its_own(base_url: str) -> None:
    """The page's announcer says the id; an <output> (a status region) would say it again."""
    page = get(base_url, "/?lang=en&timestamp=1288834975657&datacenter=1&machine=1").text
    low = get(base_url, "/range?lang=en&from=2024-01-01T00:00&to=2024-01-02T00:00").text
    for html in (page, low):
        assert "<output" not in html
        assert 'id="announce" class="sr-only" role="status"' in html


IDS = ["1800000000000000000", "4194439168", "xyz", "1541815603606036480"]


def test_the_table_copies_all_as_tab_separated_lines(base_url: str) -> None:
    page = get(base_url, "/decode?lang=en&id=" + "%0A".join(IDS)).text
    tsv = _html.unescape(re.search(r'data-copy="(ID\t[^"]*)"', page).group(1))  # type: ignore[union-attr]
    lines = [line.split("\t") for line in tsv.split("\n")]
    assert lines[0] == ["ID", "Time (UTC)", "Datacenter", "Machine", "Sequence"]
    assert lines[1] == ["1800000000000000000", "2024-06-10T03:00:17.039Z", "26", "0", "0"]
    assert lines[2] == ["4194439168", "2010-11-04T01:42:55.657Z", "1", "1", "0"]
    assert lines[3][0] == "xyz"
    assert "xyz" in lines[3][1]
    assert len(lines) == 5


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_the_table_sorts_by_time_without_javascript_and_its_ids_head_their_rows(
    base_url: str, lang: str
) -> None:
    typed = get(base_url, f"/decode?lang={lang}&id=" + "%0A".join(IDS)).text
    link = _html.unescape(re.search(r'href="([^"]*)" id="sort-time"', typed).group(1))  # type: ignore[union-attr]
    page = get(base_url, link).text
    heads = re.findall(r'<th scope="row" class="mono cell-id"[^>]*>([^<]*)</th>', page)
    assert heads == ["4194439168", "1541815603606036480", "1800000000000000000", "xyz"]
    assert re.findall(r'<th scope="row" class="mono cell-id"[^>]*>([^<]*)</th>', typed) == IDS
    assert 'aria-sort="ascending"' in page
    assert 'aria-sort="ascending"' not in typed
    assert '<input type="hidden" name="sort" value="time">' in page  # typing keeps the sort
    assert 'id="sort-input"' in page


@pytest.mark.parametrize(
    "query",
    [
        "/?lang=en&timestamp=1700000000000&datacenter=17&machine=9&sequence=4095",
        "/decode?lang=en&id=1&layout=sonyflake",
    ],
)
def test_the_bit_strip_has_a_cell_per_bit_so_its_widths_follow_the_bits(
    base_url: str, query: str
) -> None:
    page = get(base_url, query).text
    strip = re.search(r'<div class="strip" id="out-strip" aria-hidden="true">(.*?)</div>', page)
    assert strip, "no strip"
    segments = re.findall(r'data-bits="(\d+)">(.*?)</span>', strip.group(1))
    blocks = re.findall(r'<code class="block-bits grouped">(.*?)</code>', page)
    assert len(segments) == len(blocks) >= 4
    for (width, cells), block in zip(segments, blocks, strict=True):
        bits = "".join(re.findall(r'<span class="g">([01]+)</span>', block))
        assert re.findall(r'<i class="b([01])"></i>', cells) == list(bits)
        assert len(bits) == int(width)
    total = sum(int(width) for width, _ in segments)
    assert total in (63, 64)


def test_the_generator_keeps_a_compact_result_beside_its_fields(base_url: str) -> None:
    page = get(base_url, "/?lang=vi&timestamp=1288834975657&datacenter=1&machine=1").text
    form = page[page.index('<form id="compose-form"') : page.index("</form>")]
    assert 'id="peek-id">4194439168<' in form
    assert "2010-11-04 01:42:55.657 UTC" in form
    assert "Kết quả trực tiếp" in form
    bad = get(base_url, "/?lang=en&timestamp=1&datacenter=1&machine=1").text
    assert '<p class="peek" id="peek" data-peek hidden>' in bad


def test_enter_in_a_field_submits_the_form_not_the_fix(base_url: str) -> None:
    """Without JavaScript, Enter presses the form's first submit button: the hidden default
    one, placed before any fix button, so Enter never swaps or changes a value by itself."""
    for path in ("/?lang=en&timestamp=1700000000", "/range?lang=en&from=2024-02-01&to=2024-01-01"):
        page = get(base_url, path).text
        form = page[page.index("<form") : page.index("</form>")]
        submits = re.findall(r'<button type="submit"[^>]*>', form)
        assert 'class="default-submit"' in submits[0], submits
        assert any('name="fix"' in button for button in submits[1:])


def test_a_copied_cell_a_sheet_would_run_as_a_formula_is_kept_as_text(base_url: str) -> None:
    page = get(base_url, "/decode?lang=en&id=4194439168%0A%3D1%2B1%0A%40SUM(A1)").text
    tsv = _html.unescape(re.search(r'data-copy="(ID\t[^"]*)"', page).group(1))  # type: ignore[union-attr]
    firsts = [line.split("\t")[0] for line in tsv.split("\n")[1:]]
    assert firsts == ["4194439168", "'=1+1", "'@SUM(A1)"]
