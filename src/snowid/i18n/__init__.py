"""User-facing text in English and Vietnamese, keyed by a stable code.

``translate(code, lang, **params)`` fills ``{placeholders}`` with str.format. The
catalogs are plain dicts in ``en.py``/``vi.py`` (errors, CLI) and ``web_en.py``/
``web_vi.py`` (the web page); a test checks that both languages have the same keys
and the same placeholders for each key, and that the package uses every key.
"""

from __future__ import annotations

import importlib
import locale
import os
from collections.abc import Mapping
from functools import cache

__all__ = [
    "DEFAULT_LANG",
    "LANGS",
    "catalog",
    "detect_lang",
    "normalize_lang",
    "translate",
    "translate_field",
    "translate_layout",
]

LANGS: tuple[str, ...] = ("en", "vi")
DEFAULT_LANG = "en"


WEB_PREFIX = "web."
"""The keys of the web page's catalogs (``web_en``/``web_vi``), and only theirs."""


@cache
def catalog(lang: str) -> Mapping[str, str]:
    """Every message of one language (``lang`` must be in LANGS)."""
    core, web = _part(lang, ""), _part(lang, "web_")
    shared = set(core) & set(web)
    if shared:
        raise RuntimeError(f"keys in both the core and the web catalog: {sorted(shared)}")
    return {**core, **web}


@cache
def _part(lang: str, prefix: str) -> Mapping[str, str]:
    """The core (``prefix`` "") or the web ("web_") catalog of one language, loaded when
    first used: the CLI's messages do not load the web page's."""
    if lang not in LANGS:
        raise KeyError(lang)
    messages: Mapping[str, str] = importlib.import_module(f"snowid.i18n.{prefix}{lang}").MESSAGES
    return messages


def _messages(code: str, lang: str) -> Mapping[str, str]:
    """The catalog of ``lang`` that holds ``code``, if any: the web one for ``web.`` keys."""
    return _part(lang, "web_" if code.startswith(WEB_PREFIX) else "")


def normalize_lang(value: str | None) -> str | None:
    """ "vi_VN.UTF-8", "vi-VN", "VI" -> "vi"; None when not a catalog language."""
    if not value:
        return None
    code = value.strip().lower().replace("-", "_").split("_", 1)[0].split(".", 1)[0]
    return code if code in LANGS else None


def detect_lang(environ: Mapping[str, str] | None = None) -> str:
    """The language from SNOWID_LANG, LC_ALL, LC_MESSAGES, LANG or the locale; else English."""
    env = os.environ if environ is None else environ
    for name in ("SNOWID_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        found = normalize_lang(env.get(name))
        if found:
            return found
    if environ is None:
        found = normalize_lang(locale.getlocale(locale.LC_MESSAGES)[0])
        if found:
            return found
    return DEFAULT_LANG


def translate(code: str, lang: str = DEFAULT_LANG, /, **params: object) -> str:
    """The message ``code`` in ``lang`` (falling back to English), placeholders filled."""
    template = _messages(code, lang if lang in LANGS else DEFAULT_LANG).get(code)
    if template is None:
        template = _messages(code, DEFAULT_LANG).get(code, code)
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError):
        return template


def translate_field(field: str, lang: str = DEFAULT_LANG) -> str:
    """The label of an input field ("machine" -> "mã máy"); the name itself when unknown."""
    return _part(lang if lang in LANGS else DEFAULT_LANG, "").get(f"field.{field}", field)


def translate_layout(name: str, lang: str = DEFAULT_LANG) -> str:
    """The display name of a layout ("sonyflake-v2" -> "Sonyflake v2"); a custom one's own name."""
    return _part(lang if lang in LANGS else DEFAULT_LANG, "").get(f"layout.{name}", name)
