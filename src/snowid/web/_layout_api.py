"""The JSON API of every layout: decode, readings, the layouts themselves, and time ranges.

The HTTP door takes a built-in layout by its exact name only (``?layout=discord``), so
that the OpenAPI document can list every value it accepts; custom layouts are for the
library and the CLI. Each answer is the same object the CLI's ``--json`` prints.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from snowid import LAYOUTS, SYSTEM_CLOCK, Clock, Layout, decode, readings
from snowid._exceptions import EmptyValueError
from snowid.ids import (
    builtin_layout,
    layout_info,
    parse_time,
    read_number,
    read_pasted,
)
from snowid.integrations.sql import range_info
from snowid.web._errors import json_response
from snowid.web._forms import check_single_values
from snowid.web._lang import negotiate

__all__ = ["routes"]


def _layout(request: Request, default: str = "twitter") -> Layout:
    return builtin_layout(request.query_params.get("layout", default))


def routes(clock: Clock = SYSTEM_CLOCK) -> list[BaseRoute]:
    layouts_body: dict[str, str] = {}  # per language: the list never changes

    async def decode_id(request: Request) -> Response:
        check_single_values(request.query_params)
        layout = _layout(request)
        decoded = decode(request.path_params["id"], layout, clock=clock)
        return json_response(decoded.as_dict(negotiate(request)))

    async def decode_text(request: Request) -> Response:
        """``?text=``: what a person pastes (an id as written, a link, a mention), read as
        the page's decoder reads it; the layout is ``layout=``, else the link's source."""
        check_single_values(request.query_params)
        text = request.query_params.get("text", "")
        if not text.strip():
            raise EmptyValueError(field="text", value=text)
        lang = negotiate(request)
        pasted = read_pasted(text, lang, field="text")
        layout = _layout(request, pasted.source or "twitter")
        chosen_by = "request" if "layout" in request.query_params else "link"
        if chosen_by == "link" and not pasted.source:
            chosen_by = "default"
        ids = [
            {
                "label": item.label or None,
                "reading": decode(item.value, layout, clock=clock).as_dict(lang),
            }
            for item in pasted.ids
        ]
        body = {
            "normalised": pasted.normalised,
            "source": pasted.source or None,
            "layout": layout.name,
            "layout_from": chosen_by,
            "ids": ids,
        }
        return json_response(body)

    async def readings_of(request: Request) -> Response:
        check_single_values(request.query_params)
        number = read_number(request.path_params["id"])
        lang = negotiate(request)
        found = readings(number, clock=clock)
        return json_response({"id": str(number), "readings": [r.as_dict(lang) for r in found]})

    async def layouts(request: Request) -> Response:
        check_single_values(request.query_params)
        lang = negotiate(request)
        if lang not in layouts_body:
            infos = [layout_info(layout, lang) for layout in LAYOUTS]
            layouts_body[lang] = json.dumps({"layouts": infos}, ensure_ascii=False)
        return Response(layouts_body[lang], media_type="application/json")

    async def time_range(request: Request) -> Response:
        check_single_values(request.query_params)
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
