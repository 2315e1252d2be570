"""The HTML pages: the seed's tool (compose), the decoder, and a 404 page.

Both forms are GET forms, so every result has a shareable URL. Everything shown is
rendered here on the server; the page's JavaScript only re-fetches the same URL as
you type and swaps the result in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.templating import Jinja2Templates

from snowid import SnowId, breakdown
from snowid._clock import SYSTEM_CLOCK
from snowid.errors import InvalidValueError
from snowid.i18n import LANGS, translate
from snowid.web._forms import COMPOSE_FIELDS, localized_message, read_compose, read_id
from snowid.web._lang import COOKIE, negotiate, requested_lang

__all__ = ["not_found_page", "routes", "templates"]

# The seed's worked example: what the page shows before anything is entered.
SEED_EXAMPLE = {"timestamp": "1288834975657", "datacenter": "1", "machine": "1", "sequence": "0"}

_COOKIE_AGE = 365 * 24 * 3600


@cache
def templates() -> Jinja2Templates:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("snowid.web", "templates"),
        autoescape=jinja2.select_autoescape(default=True),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return Jinja2Templates(env=env)


def _translator(lang: str) -> Callable[..., str]:
    def t(key: str, /, **params: object) -> str:
        return translate(key, lang, **params)

    return t


def _frame(request: Request, lang: str, page: str) -> dict[str, Any]:
    """What base.html needs: the language, the translator, the switch links.

    A switch link is only a query (``?…&lang=vi``): the browser keeps the current page,
    so the link can never point off this site, whatever path was asked for (a 404 page
    for ``//evil.example/x`` must not link to evil.example)."""
    query = {k: v for k, v in request.query_params.items() if k != "lang"}
    switch = [
        {
            "lang": other,
            "label": translate(f"web.lang.{other}", other),
            "href": f"?{urlencode({**query, 'lang': other})}",
            "current": other == lang,
        }
        for other in LANGS
    ]
    return {"lang": lang, "t": _translator(lang), "switch": switch, "page": page}


def _with_cookie(request: Request, response: Response) -> Response:
    chosen = requested_lang(request)
    if chosen is not None and request.cookies.get(COOKIE) != chosen:
        response.set_cookie(COOKIE, chosen, max_age=_COOKIE_AGE, samesite="lax", httponly=True)
    response.headers["Vary"] = "Accept-Language, Cookie"
    return response


def _result(snow_id: SnowId, lang: str) -> dict[str, Any]:
    """Everything the result block shows, as strings ready for the template."""
    t = _translator(lang)
    view = breakdown(snow_id)
    parts = view.parts
    local = view.datetime.astimezone()
    blocks = []
    for seg in view.segments:
        one = seg.width == 1
        blocks.append(
            {
                "name": seg.name,
                "label": t(f"segment.{seg.name}"),
                "width": seg.width,
                "width_text": t("web.block.width_one")
                if one
                else t("web.block.width", width=seg.width),
                "span_text": t("web.block.span_one", high=seg.high_bit)
                if one
                else t("web.block.span", high=seg.high_bit, low=seg.low_bit),
                "value_text": t(
                    "web.block.value_delta" if seg.name == "timestamp" else "web.block.value",
                    value=seg.value,
                ),
                "bits": seg.bits,
            }
        )
    return {
        "decimal": str(snow_id),
        "hex": "0x" + snow_id.hex,
        "iso": view.iso_utc,
        "utc": view.iso_utc.replace("T", " ").replace("Z", " UTC"),
        "local": local.strftime("%Y-%m-%d %H:%M:%S.") + f"{local.microsecond // 1000:03d}",
        "local_zone": local.strftime("%Z") or local.strftime("%z"),
        "timestamp": parts.timestamp,
        "fields": [
            (t("web.label.timestamp"), parts.timestamp),
            (t("web.label.datacenter"), parts.datacenter),
            (t("web.label.machine"), parts.machine),
            (t("web.label.sequence"), parts.sequence),
            (t("web.result.worker"), view.worker),
        ],
        "blocks": blocks,
        "steps": [
            {
                "label": t(f"step.{s.key}"),
                "expression": s.expression,
                "result": s.result,
                "key": s.key,
            }
            for s in view.steps
        ],
        "decode_href": f"/decode?{urlencode({'id': str(snow_id), 'lang': lang})}",
        "compose_href": "/?"
        + urlencode(
            {
                "timestamp": parts.timestamp,
                "datacenter": parts.datacenter,
                "machine": parts.machine,
                "sequence": parts.sequence,
                "lang": lang,
            }
        ),
    }


def _messages(errors: Mapping[str, InvalidValueError], lang: str) -> dict[str, str]:
    return {name: localized_message(error, lang) for name, error in errors.items()}


def routes() -> list[BaseRoute]:
    tpl = templates()

    async def compose_page(request: Request) -> Response:
        lang = negotiate(request)
        query = request.query_params
        if "now" in query:
            # The no-JavaScript "now" button: fill the timestamp in, keep the URL shareable.
            fields = {name: query.get(name, "") for name in COMPOSE_FIELDS}
            fields["timestamp"] = str(SYSTEM_CLOCK.time_ms())
            if "lang" in query:
                fields["lang"] = query["lang"]
            return RedirectResponse("/?" + urlencode(fields), status_code=303)
        given = any(name in query for name in COMPOSE_FIELDS)
        form = read_compose(query if given else SEED_EXAMPLE)
        context = {
            **_frame(request, lang, "compose"),
            "values": form.values,
            "errors": _messages(form.errors, lang),
            "result": _result(form.snow_id, lang) if form.snow_id is not None else None,
            "used_now": form.timestamp_was_blank and form.snow_id is not None,
        }
        return _with_cookie(request, tpl.TemplateResponse(request, "compose.html", context))

    async def decode_page(request: Request) -> Response:
        lang = negotiate(request)
        raw = request.query_params.get("id")
        errors: dict[str, str] = {}
        result = None
        if raw is not None:
            try:
                result = _result(read_id(raw), lang)
            except InvalidValueError as error:
                errors["id"] = localized_message(error, lang)
        context = {
            **_frame(request, lang, "decode"),
            "values": {"id": raw or ""},
            "errors": errors,
            "result": result,
            "used_now": False,
        }
        return _with_cookie(request, tpl.TemplateResponse(request, "decode.html", context))

    return [
        Route("/", compose_page, methods=["GET"]),
        Route("/decode", decode_page, methods=["GET"]),
    ]


def not_found_page(request: Request) -> Response:
    context = _frame(request, negotiate(request), "not_found")
    return templates().TemplateResponse(request, "not_found.html", context, status_code=404)
