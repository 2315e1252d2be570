"""Reading the compose and decode inputs, with every invalid field reported on its own.

The reading is the core's one reader (``snowid.ids``, shared with the CLI); this
module keeps the raw inputs alongside, for refilling the form. ``check_single_values``
is the JSON API's refusal of a parameter given twice; ``repeated`` gives the pages the
same errors, shown on their fields.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
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


def localized_message(error: SnowIdError, lang: str) -> str:
    """The error's catalog message in ``lang``, as a sentence (first letter upper case)."""
    text = error.message(lang)
    return text[:1].upper() + text[1:]
