"""The HTML pages: the seed's tool (compose), the decoder, the ids between two times, and
a 404 page.

Both forms are GET forms, so every result has a shareable URL. Everything shown is
rendered here on the server; the page's JavaScript only re-fetches the same URL as
you type and swaps the result in.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.templating import Jinja2Templates

from snowid import SYSTEM_CLOCK, Clock
from snowid._exceptions import InvalidValueError
from snowid.i18n import LANGS, translate
from snowid.web._about import REFERENCES, faq, faq_json_ld
from snowid.web._decoded_view import layout_options, result_view
from snowid.web._decoder import LAYOUT_COOKIE, decode_context, remember_layout
from snowid.web._explain_view import seed_example
from snowid.web._fixes import FieldFix, fixed_query, seconds_fix
from snowid.web._forms import COMPOSE_FIELDS, localized_message, read_compose, repeated
from snowid.web._lang import COOKIE, PAGE_LANG, negotiate, requested_lang
from snowid.web._range_view import RANGE_FIELDS, range_view, read_range
from snowid.web._view import translator

__all__ = ["LAYOUT_COOKIE", "not_found_page", "routes", "templates"]

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
    return {"lang": lang, "t": translator(lang), "switch": switch, "page": page}


def _with_cookie(request: Request, response: Response) -> Response:
    chosen = requested_lang(request)
    if chosen is not None and request.cookies.get(COOKIE) != chosen:
        response.set_cookie(COOKIE, chosen, max_age=_COOKIE_AGE, samesite="lax", httponly=True)
    response.headers["Vary"] = "Accept-Language, Cookie"
    return response


def _messages(errors: Mapping[str, InvalidValueError], lang: str) -> dict[str, str]:
    return {name: localized_message(error, lang) for name, error in errors.items()}


def _fixes(errors: Mapping[str, InvalidValueError], lang: str) -> dict[str, FieldFix]:
    """The errors a button can fix, by field (a timestamp that looks like seconds)."""
    found = {name: seconds_fix(error, lang) for name, error in errors.items()}
    return {name: fix for name, fix in found.items() if fix is not None}


def _fixed_link(values: Mapping[str, str], timestamp: int, lang: str) -> str:
    """The generator's link for a blank timestamp: the millisecond used, not "now", so the
    link a visitor copies opens this same id."""
    return "/?" + urlencode({**values, "timestamp": str(timestamp), "lang": lang})


def routes(clock: Clock = SYSTEM_CLOCK) -> list[BaseRoute]:
    """The pages; ``clock`` says what now is (the decoder's relative times and warnings)."""
    tpl = templates()

    async def compose_page(request: Request) -> Response:
        lang = negotiate(request, PAGE_LANG)
        query = request.query_params
        if (
            fixed := fixed_query(query, COMPOSE_FIELDS)
        ) is not None:  # a fix button without JavaScript: the fixed form's address
            return RedirectResponse("/?" + fixed, status_code=303)
        twice = repeated(query, COMPOSE_FIELDS)  # which value counts would be a guess
        if "now" in query and not twice:
            # The no-JavaScript "now" button: fill the timestamp in, keep the URL shareable.
            fields = {name: query.get(name, "") for name in COMPOSE_FIELDS}
            fields["timestamp"] = str(SYSTEM_CLOCK.time_ms())
            if "lang" in query:
                fields["lang"] = query["lang"]
            return RedirectResponse("/?" + urlencode(fields), status_code=303)
        given = any(name in query for name in COMPOSE_FIELDS)
        example = seed_example(
            int(SEED_EXAMPLE["timestamp"]),
            int(SEED_EXAMPLE["datacenter"]),
            int(SEED_EXAMPLE["machine"]),
            int(SEED_EXAMPLE["sequence"]),
            lang,
        )
        form = read_compose(query if given else SEED_EXAMPLE, lang=lang)
        if twice:
            form.errors.update(twice)
            form.snow_id = None
        questions = faq(translator(lang))
        result = result_view(form.snow_id, lang) if form.snow_id is not None else None
        used_now = form.timestamp_was_blank and result is not None
        context = {
            **_frame(request, lang, "compose"),
            "values": form.values,
            "errors": _messages(form.errors, lang),
            "fixes": _fixes(form.errors, lang),
            "result": result,
            "table": None,
            "used_now": used_now,
            "link_path": _fixed_link(form.values, result.time.timestamp, lang)
            if used_now and result is not None
            else None,
            "faq": questions,
            "faq_ld": faq_json_ld(questions, lang),
            "references": REFERENCES,
            "example": example,
        }
        return _with_cookie(request, tpl.TemplateResponse(request, "compose.html", context))

    async def decode_page(request: Request) -> Response:
        lang = negotiate(request, PAGE_LANG)
        if (
            fixed := fixed_query(request.query_params, ("layout",))
        ) is not None:  # a fix button without JavaScript: the fixed form's address
            return RedirectResponse("/decode?" + fixed, status_code=303)
        context = {**_frame(request, lang, "decode"), **decode_context(request, lang, clock)}
        response = tpl.TemplateResponse(request, "decode.html", context)
        remember_layout(request, response)
        return _with_cookie(request, response)

    async def range_page(request: Request) -> Response:
        lang = negotiate(request, PAGE_LANG)
        if (
            fixed := fixed_query(request.query_params, RANGE_FIELDS)
        ) is not None:  # the swap button without JavaScript
            return RedirectResponse("/range?" + fixed, status_code=303)
        form = read_range(request.query_params, lang)
        values = form.values if form is not None else dict.fromkeys(RANGE_FIELDS, "")
        context = {
            **_frame(request, lang, "range"),
            "values": values,
            "errors": form.errors if form is not None else {},
            "fixes": form.fixes if form is not None else {},
            "layouts": layout_options(values["layout"], lang),
            "range": range_view(form, lang) if form is not None else None,
        }
        return _with_cookie(request, tpl.TemplateResponse(request, "range.html", context))

    return [
        Route("/", compose_page, methods=["GET"]),
        Route("/decode", decode_page, methods=["GET"]),
        Route("/range", range_page, methods=["GET"]),
    ]


def not_found_page(request: Request) -> Response:
    context = _frame(request, negotiate(request, PAGE_LANG), "not_found")
    return templates().TemplateResponse(request, "not_found.html", context, status_code=404)
