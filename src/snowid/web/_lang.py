"""Which language a request gets: ``?lang=``, then the cookie, then Accept-Language."""

from __future__ import annotations

from starlette.requests import Request

from snowid.i18n import DEFAULT_LANG, normalize_lang

__all__ = ["COOKIE", "from_accept_language", "negotiate", "requested_lang"]

COOKIE = "snowid_lang"


def requested_lang(request: Request) -> str | None:
    """The language named in the query string, if it is one of ours."""
    return normalize_lang(request.query_params.get("lang"))


def negotiate(request: Request) -> str:
    return (
        requested_lang(request)
        or normalize_lang(request.cookies.get(COOKIE))
        or from_accept_language(request.headers.get("accept-language", ""))
        or DEFAULT_LANG
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
