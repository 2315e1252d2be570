"""The en and vi catalogs: same keys, same placeholders, and a message for every error."""

from __future__ import annotations

import inspect
import string

import pytest

from snowid import errors
from snowid.i18n import catalog, detect_lang, normalize_lang, translate


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_catalogs_have_the_same_keys() -> None:
    assert set(catalog("en")) == set(catalog("vi"))


def test_catalogs_have_the_same_placeholders_per_key() -> None:
    en, vi = catalog("en"), catalog("vi")
    mismatched = {key for key in en if _placeholders(en[key]) != _placeholders(vi[key])}
    assert not mismatched


def test_vietnamese_is_not_a_copy_of_english() -> None:
    en, vi = catalog("en"), catalog("vi")
    same = [key for key in en if en[key] == vi[key] and len(en[key]) > 12]
    assert not same


def _error_classes() -> list[type[errors.SnowIdError]]:
    return [
        cls
        for _, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, errors.SnowIdError)
    ]


def test_every_error_code_is_unique_and_has_a_message_in_both_languages() -> None:
    codes = [cls.code for cls in _error_classes()]
    assert len(codes) == len(set(codes))
    for code in codes:
        assert code in catalog("en")
        assert code in catalog("vi")


@pytest.mark.parametrize(
    ("value", "expected"),
    [("vi_VN.UTF-8", "vi"), ("vi-VN", "vi"), ("EN_us", "en"), ("fr_FR", None), ("", None)],
)
def test_normalize_lang(value: str, expected: str | None) -> None:
    assert normalize_lang(value) == expected


def test_detect_lang_order() -> None:
    assert detect_lang({"SNOWID_LANG": "vi", "LANG": "en_US.UTF-8"}) == "vi"
    assert detect_lang({"LC_ALL": "vi_VN.UTF-8"}) == "vi"
    assert detect_lang({"LANG": "de_DE.UTF-8"}) == "en"
    assert detect_lang({}) == "en"


def test_translate_fills_placeholders_and_falls_back_to_english() -> None:
    assert translate("out_of_range", "en", field="machine", value=32, min=0, max=31) == (
        "machine 32 is out of range 0..31"
    )
    assert translate("out_of_range", "fr", field="x", value=1, min=0, max=0).startswith("x 1")


def test_error_message_in_vietnamese_translates_the_field() -> None:
    error = errors.OutOfRangeError(field="machine", value=32, min=0, max=31)
    assert error.message("vi") == "mã máy 32 nằm ngoài phạm vi cho phép 0..31"
    assert str(error) == "machine 32 is out of range 0..31"


def test_messages_show_huge_numbers_shortened_and_control_characters_visibly() -> None:
    huge = errors.IdTooLargeError(field="id", value=10**300, bits=64)
    assert "100000000000…00000 (301 digits)" in str(huge)
    assert len(str(huge)) < 150
    nul = errors.NotAnIntegerError(field="id", value="\x00")
    assert "'\\x00'" in str(nul)
    assert str(nul).isprintable()
