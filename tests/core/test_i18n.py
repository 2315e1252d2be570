"""The en and vi catalogs: same keys, same placeholders, and a message for every error."""

from __future__ import annotations

import inspect
import re
import string
from pathlib import Path

import pytest

import snowid
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


def test_every_catalog_key_is_used_somewhere_in_the_package() -> None:
    """A message nothing shows is dead text (and a translator's wasted work).

    A key counts as used when the package's code, templates or script name it in quotes,
    or when the key belongs to a family the code builds at run time: ``f"web.rel.{…}"``,
    ``"web.label." ~ name`` in a template, or an error's ``code.reason``. A family's
    members are not checked one by one, so a family is built only where its members come
    from data (layout fields, units, error reasons); fixed keys are written out in full.
    """
    root = Path(snowid.__file__).parent
    sources = "\n".join(
        path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.suffix in (".py", ".html", ".js")
        and not (path.parent.name == "i18n" and path.name != "__init__.py")  # the catalogs
    )
    built = re.compile(r"""f["']([a-z_.-]+\.)\{|["']([a-z_.-]+\.)["']\s*~""")
    families = tuple({f_string or jinja for f_string, jinja in built.findall(sources)})
    codes = {cls.code for cls in _error_classes()}
    unused = [
        key
        for key in catalog("en")
        if f'"{key}"' not in sources
        and f"'{key}'" not in sources
        and not key.startswith(families)
        and key.split(".")[0] not in codes
    ]
    assert not unused


def test_only_the_web_catalogs_hold_web_keys() -> None:
    """``translate`` loads the web page's catalog only for a ``web.`` key (so the CLI
    does not pay for it): every key of web_en/web_vi has that prefix, no other key has."""
    from snowid.i18n import WEB_PREFIX, en, vi, web_en, web_vi

    for web in (web_en, web_vi):
        assert all(key.startswith(WEB_PREFIX) for key in web.MESSAGES)
    for core in (en, vi):
        assert not any(key.startswith(WEB_PREFIX) for key in core.MESSAGES)
