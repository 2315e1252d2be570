"""The decoder page's form and result: which layout the box is read in, what is said of
how it was read, and the remembered layout.

The layout of what is pasted follows the one rule of every door (``snowid.ids.choose_layout``):
a link or mention is read in its own layout; a layout the visitor picks that contradicts
it is refused on the layout field, naming both, with a button that reads it in the link's
layout; a bare number is read in the layout picked, else Twitter.

The browser remembers the last layout picked (the ``snowid_layout`` cookie, a year). An
empty form starts with it picked and sends it back as ``remembered=NAME`` beside
``layout=NAME``: a layout that is only the remembered one reads bare numbers, never a link.
So an address states everything it is read with, and shows the same to everyone; the
cookie only fills in an empty form.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from snowid import SYSTEM_CLOCK, Clock, Layout
from snowid._exceptions import InvalidLayoutError, InvalidValueError
from snowid.i18n import translate, translate_layout
from snowid.ids import LayoutConflictError, builtin_layout
from snowid.web._box import BoxRead, id_lines, read_box
from snowid.web._decoded_view import decoded_view, layout_message, layout_options, page_layout
from snowid.web._explain_view import explain_view
from snowid.web._fixes import FieldFix
from snowid.web._forms import localized_message, repeated
from snowid.web._view import DEFAULT_LAYOUT, MAX_IDS, IdList, table_view

__all__ = ["LAYOUT_COOKIE", "REMEMBERED", "decode_context", "remember_layout"]

_COOKIE_AGE = 365 * 24 * 3600
LAYOUT_COOKIE = "snowid_layout"
"""The decoder's last chosen layout: it fills in an empty form's picker, never a link's."""
REMEMBERED = "remembered"
"""The form's field naming the layout it was filled in with from the cookie."""


def remember_layout(request: Request, response: Response) -> None:
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


def decode_context(request: Request, lang: str, clock: Clock = SYSTEM_CLOCK) -> dict[str, Any]:
    """What decode.html shows besides the frame: the form, its errors and fixes, what is
    said of how the box was read, the result or the table, and the explanation of the
    layout read."""
    query = request.query_params
    raw = query.get("id")
    chosen = query.get("layout")
    remembered_name = query.get(REMEMBERED, "").strip().lower()
    if chosen is None and raw is None:
        # An empty form: the picker starts at the visitor's last choice. An address with
        # an id is never read through the cookie, so it shows the same to everyone.
        remembered_layout = _remembered(request)
        chosen = remembered_name = remembered_layout.name if remembered_layout else ""
    errors: dict[str, str] = {}
    fixes: dict[str, FieldFix] = {}
    picked: Layout | None = None
    try:
        picked = page_layout(chosen) if chosen and chosen.strip() else None
    except InvalidLayoutError as error:
        errors["layout"] = layout_message(error, lang)
    # The layout that is only the remembered one: for bare numbers, never for a link.
    remembered = picked if picked is not None and picked.name == remembered_name else None
    named = None if remembered is not None else picked
    count = len(id_lines(raw)) if raw is not None else 0
    by_time = query.get("sort") == "time"
    twice = {
        name: localized_message(error, lang)
        for name, error in repeated(query, ("id", "layout", REMEMBERED)).items()
    }
    shown: dict[str, Any] = {"notes": [], "result": None, "table": None, "spec": None}
    hint = None
    if twice:
        errors.update(twice)
    elif count > MAX_IDS:
        errors["id"] = translate("web.decode.too_many", lang, count=count, max=MAX_IDS)
    elif raw is not None and "layout" not in errors:
        try:
            box = read_box(raw, named, remembered, clock=clock, lang=lang)
        except LayoutConflictError as error:
            errors["layout"] = localized_message(error, lang)
            fixes["layout"] = _conflict_fix(error, lang)
        except InvalidValueError as error:
            errors["id"] = localized_message(error, lang)
        else:
            shown = _shown(box, lang, clock, by_time=by_time)
            hint = _time_hint(box, lang)
    # The explanation follows the layout the result was read in, else the one chosen.
    spec: Layout = shown.pop("spec") or picked or DEFAULT_LAYOUT
    kept = remembered_name if remembered is not None or raw is None else ""
    return {
        "values": {"id": raw or ""},
        "errors": errors,
        "fixes": fixes,
        "layouts": layout_options(chosen, lang, auto=True),
        "remembered": kept,
        **shown,
        "time_hint": hint,
        "explain": explain_view(spec, lang),
        "share": _share_href(raw or "", spec, lang),
        "used_now": False,
        "link_path": None,
        "sort_links": _sort_links(raw or "", chosen or "", kept, lang),
        "by_time": by_time,
    }


def _shown(box: BoxRead, lang: str, clock: Clock, *, by_time: bool) -> dict[str, Any]:
    """The notes and the one result or the table, and the layout they were read in."""
    read = box.read
    notes = _notes(box, lang)
    if isinstance(read, IdList):
        table = table_view(read, lang, clock.time_ms(), by_time=by_time)
        return {"notes": notes, "result": None, "table": table, "spec": read.layout}
    # "Chosen": the visitor (now or before) or a link chose the layout, not the default.
    result = decoded_view(read, lang, clock, chosen=box.chosen_by != "default", linked=box.linked)
    return {"notes": notes, "result": result, "table": None, "spec": read.spec}


def _notes(box: BoxRead, lang: str) -> list[str]:
    """What the decoder says of how it read the box: the plain digits of an id written
    otherwise, the layout a pasted link chose, and which of a link's ids leads."""
    notes = []
    if box.normalised:
        notes.append(translate("web.pasted.normalised", lang, value=box.normalised))
    if box.source:
        layout = translate_layout(box.source, lang)
        notes.append(translate("web.pasted.source", lang, layout=layout))
    lead = box.pasted.ids[0] if box.pasted is not None and box.linked else None
    if lead is not None and lead.label:
        label = translate(f"pasted.{lead.label}", lang)
        notes.append(translate("web.pasted.lead", lang, label=label, value=lead.value))
    return notes


def _time_hint(box: BoxRead, lang: str) -> dict[str, str] | None:
    """A bare number that looks like a Unix time in ms: the hint, and the generator's
    address with that time (it is still read as the id it may be)."""
    hint = box.pasted.time_hint(lang) if box.pasted is not None else None
    if hint is None:
        return None
    fields = {"timestamp": hint["timestamp"], "datacenter": 0, "machine": 0, "sequence": 0}
    return {"message": str(hint["message"]), "href": "/?" + urlencode({**fields, "lang": lang})}


def _conflict_fix(error: LayoutConflictError, lang: str) -> FieldFix:
    """A layout picked that contradicts the link: the message, and a button that reads
    the link in its own layout."""
    own = translate_layout(error.layout, lang)
    button = translate("web.fix.link_layout", lang, layout=own)
    return FieldFix(localized_message(error, lang), button, urlencode({"layout": error.layout}))


def _remembered(request: Request) -> Layout | None:
    """The layout the decoder's cookie remembers, if it names a built-in."""
    name = request.cookies.get(LAYOUT_COOKIE, "").strip().lower()
    try:
        return builtin_layout(name) if name else None
    except InvalidLayoutError:
        return None


def _share_href(raw: str, layout: Layout, lang: str) -> str:
    """The link "copy link" copies: what was typed, always with its layout named, so a
    remembered choice on another browser cannot change what it shows."""
    return "/decode?" + urlencode({"id": raw, "layout": layout.name, "lang": lang})


def _sort_links(text: str, layout: str, remembered: str, lang: str) -> dict[str, str]:
    """The decoder table's sort links: the same ids and layout, by time or as typed."""
    base = {"id": text, "layout": layout, "lang": lang}
    if remembered:
        base[REMEMBERED] = remembered
    return {
        "time": "/decode?" + urlencode({**base, "sort": "time"}),
        "input": "/decode?" + urlencode(base),
    }
