"""Reading the compose and decode inputs, with every invalid field reported on its own.

Validation is the core's (``to_int``, ``TWITTER.check_*``, ``SnowId``); this module
only runs it field by field, so one bad field never hides the others.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from snowid._clock import SYSTEM_CLOCK, Clock
from snowid._id import COMPOSE_FIELDS, SnowId, field_value
from snowid._parse import to_int
from snowid.errors import EmptyValueError, InvalidValueError, SnowIdError

__all__ = ["COMPOSE_FIELDS", "ComposeForm", "localized_message", "read_compose", "read_id"]


@dataclass(slots=True)
class ComposeForm:
    """The raw inputs (for refilling the form), the errors by field and the id when valid."""

    values: dict[str, str]
    errors: dict[str, InvalidValueError] = field(default_factory=dict)
    snow_id: SnowId | None = None
    timestamp_was_blank: bool = False

    @property
    def first_error(self) -> InvalidValueError | None:
        for name in COMPOSE_FIELDS:
            if name in self.errors:
                return self.errors[name]
        return None


def read_compose(query: Mapping[str, str], clock: Clock = SYSTEM_CLOCK) -> ComposeForm:
    values = {name: query.get(name, "") for name in COMPOSE_FIELDS}
    form = ComposeForm(values=values, timestamp_was_blank=not values["timestamp"].strip())
    checked: dict[str, int] = {}
    for name in COMPOSE_FIELDS:
        try:
            checked[name] = field_value(name, values[name], clock)
        except InvalidValueError as error:
            form.errors[name] = error
    if not form.errors:
        form.snow_id = SnowId.from_parts(**checked)
    return form


def read_id(raw: str) -> SnowId:
    """An id typed or pasted by a person: white space and ``_`` allowed, nothing else."""
    if not raw.strip():
        raise EmptyValueError(field="id", value=raw)
    return SnowId.parse(to_int("id", raw))


def localized_message(error: SnowIdError, lang: str) -> str:
    """The error's catalog message in ``lang``, as a sentence (first letter upper case)."""
    text = error.message(lang)
    return text[:1].upper() + text[1:]
