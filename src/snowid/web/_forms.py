"""Reading the compose and decode inputs, with every invalid field reported on its own.

The reading is the core's one reader (``snowid.ids``, shared with the CLI); this
module keeps the raw inputs alongside, for refilling the form. ``check_parameters`` is
the JSON API's refusal of a parameter given twice or one the route does not read;
``repeated`` gives the pages the same errors for a repeated one, shown on their fields.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qsl

from starlette.datastructures import QueryParams
from starlette.requests import Request

from snowid import SYSTEM_CLOCK, Clock, SnowId
from snowid._exceptions import InvalidValueError, SnowIdError
from snowid.ids import COMPOSE_FIELDS, first_error, read_compose_fields
from snowid.web._exceptions import DuplicateParameterError, UnknownParameterError

__all__ = [
    "COMPOSE_FIELDS",
    "FORM_TYPES",
    "ComposeForm",
    "check_parameters",
    "check_single_values",
    "localized_message",
    "read_compose",
    "refuse_body_fields",
    "repeated",
]


@dataclass(slots=True)
class ComposeForm:
    """The raw inputs (for refilling the form), the errors by field and the id when valid."""

    values: dict[str, str]
    errors: dict[str, InvalidValueError] = field(default_factory=dict)
    snow_id: SnowId | None = None
    timestamp_was_blank: bool = False

    @property
    def first_error(self) -> InvalidValueError | None:
        return first_error(self.errors)


def read_compose(
    query: Mapping[str, str], clock: Clock = SYSTEM_CLOCK, lang: str | None = None
) -> ComposeForm:
    """The four fields: digit groups read in ``lang``'s convention (the page); ``lang``
    None reads them as a program does (the JSON API)."""
    values = {name: query.get(name, "") for name in COMPOSE_FIELDS}
    read = read_compose_fields(values, clock, lang)
    return ComposeForm(
        values=values,
        errors=read.errors,
        snow_id=None if read.errors else read.snow_id(),
        timestamp_was_blank=not values["timestamp"].strip(),
    )


def check_single_values(query: QueryParams) -> None:
    """Refuse a query parameter given twice: which of its values counts would be a guess."""
    for error in repeated(query).values():
        raise error


def check_parameters(query: QueryParams, allowed: Iterable[str]) -> None:
    """The JSON API's rule for a route's query: each parameter once (``check_single_values``)
    and none but ``allowed`` and ``lang`` (which every route takes, for its messages): an
    unknown one (``?COUNT=5``) is refused by name rather than answered as if absent."""
    check_single_values(query)
    known = {*allowed, "lang"}
    for name, value in query.multi_items():
        if name not in known:
            raise UnknownParameterError(
                field=name, parameter=name, value=value, allowed=", ".join(sorted(known))
            )


def repeated(
    query: QueryParams, names: Iterable[str] | None = None
) -> dict[str, InvalidValueError]:
    """A DuplicateParameterError for each parameter (of ``names``, default all) given more
    than once: the API refuses the request, a page shows it on the field."""
    wanted = None if names is None else set(names)
    counts = Counter(key for key, _ in query.multi_items())
    return {
        name: DuplicateParameterError(
            field=name, parameter=name, value=", ".join(query.getlist(name)), count=count
        )
        for name, count in counts.items()
        if count > 1 and (wanted is None or name in wanted)
    }


FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
"""The content types of a form body, whose fields a client may think are parameters."""
_BODY_READ = 65536  # enough to name the first field; the rest of a large body is not read


def _is_form(content_type: str) -> bool:
    """Whether a ``Content-Type`` is a form's (urlencoded or multipart), whose fields a
    client may think are parameters."""
    return content_type.strip().lower().startswith(FORM_TYPES)


async def refuse_body_fields(request: Request, allowed: Iterable[str]) -> None:
    """A body sent to a JSON API route, which reads its parameters from the query only: the
    first field of a form, or the first member of a JSON object, is refused by name rather
    than ignored (``count=5`` or ``{"count": 5}`` in the body would otherwise get one id).
    Any other body (empty, ``{}``, not JSON) is not read further."""
    head = b""
    async for chunk in request.stream():
        head += chunk
        if len(head) >= _BODY_READ:
            break
    if not head.strip():
        return
    content_type = request.headers.get("content-type", "")
    text = head[:_BODY_READ].decode("latin-1")
    if _is_form(content_type):
        if content_type.strip().lower().startswith(FORM_TYPES[0]):
            fields = parse_qsl(text, keep_blank_values=True)
        else:
            fields = [(name, "") for name in re.findall(r'name="([^"]*)"', text)[:1]]
        where = "form"
    else:
        fields = _json_members(head)
        where = "body"
    if fields:
        name, value = fields[0]
        known = ", ".join(sorted({*allowed, "lang"}))
        raise UnknownParameterError(
            field=name, parameter=name, value=value, allowed=known, where=where
        )


def _json_members(body: bytes) -> list[tuple[str, str]]:
    """The first member of a JSON object body, its value as JSON text; none for any other
    body (or an empty object)."""
    try:
        found = json.loads(body)
    except ValueError:
        return []
    if not isinstance(found, dict) or not found:
        return []
    name, value = next(iter(found.items()))
    return [(str(name), json.dumps(value))]


def localized_message(error: SnowIdError, lang: str) -> str:
    """The error's catalog message in ``lang``, as a sentence (first letter upper case)."""
    text = error.message(lang)
    return text[:1].upper() + text[1:]
