"""Which language a request gets: ``?lang=``, then the cookie, then Accept-Language.

When none of them names a catalog language, the HTML pages are Vietnamese (the seed is a
Vietnamese page: ``PAGE_LANG``); the JSON API and the CLI fall back to English.
"""

from __future__ import annotations

from starlette.requests import Request

from snowid.i18n import DEFAULT_LANG, normalize_lang

__all__ = ["COOKIE", "PAGE_LANG", "from_accept_language", "negotiate", "requested_lang"]

COOKIE = "snowid_lang"
PAGE_LANG = "vi"  # the pages' language when the request names none


def requested_lang(request: Request) -> str | None:
    """The language named in the query string, if it is one of ours."""
    return normalize_lang(request.query_params.get("lang"))


def negotiate(request: Request, default: str = DEFAULT_LANG) -> str:
    """``?lang=``, else the cookie, else Accept-Language, else ``default`` (the pages pass
    PAGE_LANG; the API keeps English)."""
    return (
        requested_lang(request)
        or normalize_lang(request.cookies.get(COOKIE))
        or from_accept_language(request.headers.get("accept-language", ""))
        or default
    )


def from_accept_language(header: str) -> str | None:
    """The catalog language the client ranks highest (RFC 9110 q-values), or None."""
    best: tuple[float, int] | None = None
    chosen: str | None = None
    for index, item in enumerate(header.split(",")[:32]):
        tag, _, rest = item.strip().partition(";")
        quality = 1.0
        for param in rest.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        lang = normalize_lang(tag)
        if lang is None or not 0.0 < quality <= 1.0:
            continue
        rank = (quality, -index)
        if best is None or rank > best:
            best, chosen = rank, lang
    return chosen
