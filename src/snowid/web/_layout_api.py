"""The JSON API of every layout: decode, readings, the layouts themselves, and time ranges.

The HTTP door takes a built-in layout by its exact name only (``?layout=discord``), so
that the OpenAPI document can list every value it accepts; custom layouts are for the
library and the CLI. Each answer is the same object the CLI's ``--json`` prints. Every
route refuses a parameter it does not read (``check_parameters``).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from snowid import LAYOUTS, SYSTEM_CLOCK, Clock, Layout, decode, readings
from snowid._exceptions import EmptyValueError
from snowid.ids import (
    builtin_layout,
    choose_layout,
    layout_info,
    parse_time,
    read_number,
    read_pasted,
)
from snowid.integrations.sql import range_info
from snowid.web._errors import json_response
from snowid.web._forms import check_parameters
from snowid.web._lang import negotiate

__all__ = ["routes"]


def _layout(request: Request, default: str = "twitter") -> Layout:
    return builtin_layout(request.query_params.get("layout", default))


def routes(clock: Clock = SYSTEM_CLOCK) -> list[BaseRoute]:
    layouts_body: dict[str, str] = {}  # per language: the list never changes

    async def decode_id(request: Request) -> Response:
        check_parameters(request.query_params, ("layout",))
        layout = _layout(request)
        decoded = decode(request.path_params["id"], layout, clock=clock)
        return json_response(decoded.as_dict(negotiate(request)))

    async def decode_text(request: Request) -> Response:
        """``?text=``: what a person pastes (an id as written, a link, a mention), read as
        the page's decoder reads it: a link in its own layout (``layout=`` naming another
        is refused), a bare number in ``layout=``, else Twitter."""
        check_parameters(request.query_params, ("text", "layout"))
        text = request.query_params.get("text", "")
        if not text.strip():
            raise EmptyValueError(field="text", value=text)
        lang = negotiate(request)
        pasted = read_pasted(text, lang, field="text")
        named = request.query_params.get("layout")
        asked = None if named is None else builtin_layout(named)
        layout, chosen_by = choose_layout(pasted, asked, text=text.strip())
        if chosen_by == "link" and asked is not None:
            chosen_by = "request"  # the request named the link's own layout
        ids = [
            {
                "label": item.label or None,
                "reading": decode(item.value, layout, clock=clock).as_dict(lang),
            }
            for item in pasted.ids
        ]
        body: dict[str, object] = {
            "normalised": pasted.normalised,
            "source": pasted.source or None,
            "layout": layout.name,
            "layout_from": chosen_by,
            "ids": ids,
        }
        hint = pasted.time_hint(lang)
        if hint is not None:
            compose = urlencode({"timestamp": hint["timestamp"], "datacenter": 0, "machine": 0})
            body["time_hint"] = {**hint, "compose": f"/api/compose?{compose}"}
        return json_response(body)

    async def readings_of(request: Request) -> Response:
        check_parameters(request.query_params, ())
        number = read_number(request.path_params["id"])
        lang = negotiate(request)
        found = readings(number, clock=clock)
        return json_response({"id": str(number), "readings": [r.as_dict(lang) for r in found]})

    async def layouts(request: Request) -> Response:
        check_parameters(request.query_params, ())
        lang = negotiate(request)
        if lang not in layouts_body:
            infos = [layout_info(layout, lang) for layout in LAYOUTS]
            layouts_body[lang] = json.dumps({"layouts": infos}, ensure_ascii=False)
        return Response(layouts_body[lang], media_type="application/json")

    async def time_range(request: Request) -> Response:
        check_parameters(request.query_params, ("from", "to", "layout"))
        layout = _layout(request)
        query = request.query_params
        start = parse_time("from", query.get("from", ""))
        end_text = query.get("to")
        end = clock.time_ms() if end_text is None else parse_time("to", end_text)
        return json_response(range_info(start, end, layout))

    handlers: list[tuple[str, Callable[[Request], Awaitable[Response]]]] = [
        ("/api/decode", decode_text),
        ("/api/decode/{id}", decode_id),
        ("/api/readings/{id}", readings_of),
        ("/api/layouts", layouts),
        ("/api/range", time_range),
    ]
    return [Route(path, handler, methods=["GET"]) for path, handler in handlers]
