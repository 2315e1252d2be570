"""Vietnamese all the way (issue 8, item 15): argparse's usage errors under ``--lang vi``,
the field names of the server and generator settings, and one term for "lease URL"."""

from __future__ import annotations

import re
import string

import pytest

from snowid.cli import main
from snowid.errors import SnowIdError
from snowid.generate._generator import Generator
from snowid.i18n import catalog, translate_field
from snowid.testing import FixedCeiling

# English words argparse would print; none may remain in a Vietnamese usage error.
ENGLISH = re.compile(
    r"\b(usage|error|argument|arguments|invalid|choice|expected|required|unrecognized|"
    r"ambiguous|allowed|choose)\b"
)

BAD_USAGE = [
    ["--lang", "vi", "decod", "1"],
    ["--lang", "vi", "--lang", "xx", "decode", "1"],
    ["--lang", "vi"],
    ["--lang", "vi", "lease"],
    ["--lang", "vi", "generate", "--count"],
    ["--lang", "vi", "generate", "--json=1"],
    ["--lang", "vi", "serve", "--l=x"],
    ["--lang", "vi", "decode", "1", "2", "3"],
    ["decode", "--lang", "vi", "1", "--bogus"],
    ["--lang=vi", "compose", "--timestamp"],
]


@pytest.mark.parametrize("argv", BAD_USAGE)
def test_usage_errors_are_vietnamese_under_lang_vi(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("cách dùng: snowid")
    assert ": lỗi: " in err
    message = err.partition(": lỗi: ")[2]
    assert not ENGLISH.search(message), message


def test_usage_errors_stay_english_by_default(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("SNOWID_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(SystemExit):
        main(["decod", "1"])
    err = capsys.readouterr().err
    assert err.startswith("usage: snowid")
    assert "snowid: error: argument COMMAND: invalid choice; choose from compose," in err


@pytest.mark.parametrize(
    ("argv", "label"),
    [
        (["serve", "--port", "abc"], "cổng"),
        (["serve", "--port", "70000"], "cổng"),
        (["serve", "--workers", "0"], "số tiến trình worker"),
        (["serve", "--max-count", "0"], "số ID tối đa mỗi yêu cầu (max_count)"),
    ],
)
def test_server_settings_are_named_in_vietnamese(
    argv: list[str], label: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--lang", "vi", *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"Lỗi: {label} ")


@pytest.mark.parametrize(
    ("build", "label"),
    [
        (lambda: Generator(1, 1, max_backward_ms=-1), "mức lùi đồng hồ tối đa"),
        (lambda: Generator(1, 1, max_wait_ms=-1), "thời gian chờ tối đa"),
        (lambda: FixedCeiling("x"), "mức trần"),
        (lambda: FixedCeiling(1, start_ms="x"), "thời điểm bắt đầu"),
    ],
)
def test_generator_settings_are_named_in_vietnamese(build: object, label: str) -> None:
    assert callable(build)
    with pytest.raises(SnowIdError) as caught:
        build()
    assert caught.value.message("vi").startswith(label)


LEASE_URL_VI = "URL cấu hình thuê"


def test_one_vietnamese_term_for_lease_url() -> None:
    """Every message that says "lease URL" in English says "URL cấu hình thuê" in
    Vietnamese, and no other wording for it is left in the catalogs."""
    en, vi = catalog("en"), catalog("vi")
    field = translate_field("lease", "vi")
    checked = 0
    for key, english in en.items():
        names = {name for _, name, _, _ in string.Formatter().parse(english) if name}
        shown_en = english.replace("{field}", "lease")
        if "lease URL" not in shown_en:
            continue
        checked += 1
        shown_vi = vi[key].replace("{field}", field) if "field" in names else vi[key]
        assert LEASE_URL_VI in shown_vi, key
    assert checked >= 10
    for key, text in vi.items():
        assert "URL thuê" not in text.replace("{field}", field), key
