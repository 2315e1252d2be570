"""Reading the compose and decode inputs, with every invalid field reported on its own.

The reading is the core's one reader (``snowid.ids``, shared with the CLI); this
module keeps the raw inputs alongside, for refilling the form. ``check_single_values``
is the JSON API's refusal of a parameter given twice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from starlette.datastructures import QueryParams

from snowid import SYSTEM_CLOCK, Clock, SnowId
from snowid._exceptions import InvalidValueError, SnowIdError
from snowid.ids import COMPOSE_FIELDS, first_error, read_compose_fields
from snowid.web._exceptions import DuplicateParameterError

__all__ = [
    "COMPOSE_FIELDS",
    "ComposeForm",
    "check_single_values",
    "localized_message",
    "read_compose",
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


def read_compose(query: Mapping[str, str], clock: Clock = SYSTEM_CLOCK) -> ComposeForm:
    values = {name: query.get(name, "") for name in COMPOSE_FIELDS}
    read = read_compose_fields(values, clock)
    return ComposeForm(
        values=values,
        errors=read.errors,
        snow_id=None if read.errors else read.snow_id(),
        timestamp_was_blank=not values["timestamp"].strip(),
    )


def check_single_values(query: QueryParams) -> None:
    """Refuse a query parameter given twice: which of its values counts would be a guess."""
    counts = Counter(key for key, _ in query.multi_items())
    for name, count in counts.items():
        if count > 1:
            values = ", ".join(query.getlist(name))
            raise DuplicateParameterError(field=name, parameter=name, value=values, count=count)


def localized_message(error: SnowIdError, lang: str) -> str:
    """The error's catalog message in ``lang``, as a sentence (first letter upper case)."""
    text = error.message(lang)
    return text[:1].upper() + text[1:]
