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

from snowid import SYSTEM_CLOCK, Layout
from snowid._exceptions import InvalidLayoutError, InvalidValueError
from snowid.i18n import LANGS, translate, translate_layout
from snowid.web._about import REFERENCES, faq, faq_json_ld
from snowid.web._decoded_view import (
    decoded_view,
    layout_message,
    layout_options,
    page_layout,
    result_view,
)
from snowid.web._explain_view import explain_view, seed_example
from snowid.web._fixes import FieldFix, fixed_query, seconds_fix
from snowid.web._forms import COMPOSE_FIELDS, localized_message, read_compose, repeated
from snowid.web._lang import COOKIE, PAGE_LANG, negotiate, requested_lang
from snowid.web._range_view import RANGE_FIELDS, range_view, read_range
from snowid.web._view import (
    DEFAULT_LAYOUT,
    MAX_IDS,
    BoxRead,
    IdList,
    id_lines,
    read_box,
    table_view,
    translator,
)

__all__ = ["not_found_page", "routes", "templates"]

# The seed's worked example: what the page shows before anything is entered.
SEED_EXAMPLE = {"timestamp": "1288834975657", "datacenter": "1", "machine": "1", "sequence": "0"}

_COOKIE_AGE = 365 * 24 * 3600
LAYOUT_COOKIE = "snowid_layout"
"""The decoder's last chosen layout: it fills in an empty form's picker, never a link's."""


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


def _sort_links(text: str, layout: str, lang: str) -> dict[str, str]:
    """The decoder table's sort links: the same ids and layout, by time or as typed."""
    base = {"id": text, "layout": layout, "lang": lang}
    return {
        "time": "/decode?" + urlencode({**base, "sort": "time"}),
        "input": "/decode?" + urlencode(base),
    }


def _box_notes(box: BoxRead, lang: str) -> list[str]:
    """What the decoder says of how it read the box: the plain digits of an id written
    otherwise, and the layout a pasted link chose (which the picker can change)."""
    notes = []
    if box.normalised:
        notes.append(translate("web.pasted.normalised", lang, value=box.normalised))
    if box.source:
        layout = translate_layout(box.source, lang)
        notes.append(translate("web.pasted.source", lang, layout=layout))
    return notes


def _decoder_result(
    box: BoxRead, lang: str, chosen: bool, *, by_time: bool = False
) -> dict[str, Any]:
    """The decoder's notes and its one result or its table; ``chosen``: the visitor chose
    the layout; ``by_time``: the table sorted by time."""
    read = box.read
    table = table_view(read, lang, by_time=by_time) if isinstance(read, IdList) else None
    result = (
        None
        if isinstance(read, IdList)
        else decoded_view(read, lang, chosen=chosen or bool(box.source))
    )
    spec = read.layout if isinstance(read, IdList) else read.spec
    return {"notes": _box_notes(box, lang), "result": result, "table": table, "spec": spec}


def _remembered(request: Request) -> Layout | None:
    """The layout the decoder's cookie remembers, if it names a built-in."""
    name = request.cookies.get(LAYOUT_COOKIE, "")
    try:
        return page_layout(name) if name.strip() else None
    except InvalidLayoutError:
        return None


def _share_href(raw: str, layout: Layout, lang: str) -> str:
    """The link "copy link" copies: what was typed, always with its layout named, so a
    remembered choice on another browser cannot change what it shows."""
    return "/decode?" + urlencode({"id": raw, "layout": layout.name, "lang": lang})


def _remember_layout(request: Request, response: Response) -> None:
    """The visitor's choice, kept for the next empty form: a layout named sets the cookie,
    the "from the link" option clears it; a request naming none leaves it."""
    if "layout" not in request.query_params:
        return
    chosen = request.query_params["layout"].strip().lower()
    if not chosen:
        if LAYOUT_COOKIE in request.cookies:
            response.delete_cookie(LAYOUT_COOKIE, samesite="lax", httponly=True)
        return
    try:
        name = page_layout(chosen).name
    except InvalidLayoutError:
        return
    if request.cookies.get(LAYOUT_COOKIE) != name:
        response.set_cookie(LAYOUT_COOKIE, name, max_age=_COOKIE_AGE, samesite="lax", httponly=True)


def _decode_context(request: Request, lang: str) -> dict[str, Any]:
    """What decode.html shows besides the frame: the form, its errors, the result or the
    table, and the explanation of the layout read."""
    raw = request.query_params.get("id")
    chosen = request.query_params.get("layout")
    remembered = None
    if chosen is None and raw is None:
        # An empty form: the picker starts at the visitor's last choice. A link (with an
        # id) is never read through the cookie, so it shows the same to everyone.
        remembered = _remembered(request)
        chosen = remembered.name if remembered is not None else None
    errors: dict[str, str] = {}
    layout: Layout | None = None
    try:
        # None: the visitor chose no layout; a pasted link's source then chooses it.
        layout = page_layout(chosen) if chosen and chosen.strip() else None
    except InvalidLayoutError as error:
        errors["layout"] = layout_message(error, lang)
    count = len(id_lines(raw)) if raw is not None else 0
    by_time = request.query_params.get("sort") == "time"
    twice = _messages(repeated(request.query_params, ("id", "layout")), lang)
    shown: dict[str, Any] = {"notes": [], "result": None, "table": None, "spec": None}
    if twice:
        errors.update(twice)
    elif count > MAX_IDS:
        errors["id"] = translate("web.decode.too_many", lang, count=count, max=MAX_IDS)
    elif raw is not None and "layout" not in errors:
        try:
            shown = _decoder_result(
                read_box(raw, layout, lang=lang), lang, layout is not None, by_time=by_time
            )
        except InvalidValueError as error:
            errors["id"] = localized_message(error, lang)
    # The explanation follows the layout the result was read in, else the one chosen.
    spec: Layout = shown.pop("spec") or layout or DEFAULT_LAYOUT
    return {
        "values": {"id": raw or ""},
        "errors": errors,
        "layouts": layout_options(chosen, lang, auto=True),
        "remembered": remembered is not None,
        **shown,
        "explain": explain_view(spec, lang),
        "share": _share_href(raw or "", spec, lang),
        "used_now": False,
        "link_path": None,
        "sort_links": _sort_links(raw or "", chosen or "", lang),
        "by_time": by_time,
    }


def routes() -> list[BaseRoute]:
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
        context = {**_frame(request, lang, "decode"), **_decode_context(request, lang)}
        response = tpl.TemplateResponse(request, "decode.html", context)
        _remember_layout(request, response)
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
