"""Reading the compose and decode inputs, with every invalid field reported on its own.

Validation is the core's (``to_int``, ``TWITTER.check_*``, ``SnowId``); this module
only runs it field by field, so one bad field never hides the others.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from snowid._clock import SYSTEM_CLOCK, Clock
from snowid._id import SnowId
from snowid._layout import TWITTER
from snowid._parse import to_int
from snowid.errors import EmptyValueError, InvalidValueError, SnowIdError

__all__ = ["COMPOSE_FIELDS", "ComposeForm", "localized_message", "read_compose", "read_id"]

COMPOSE_FIELDS = ("timestamp", "datacenter", "machine", "sequence")

_CHECKS = {
    "timestamp": TWITTER.check_timestamp,
    "datacenter": TWITTER.check_datacenter,
    "machine": TWITTER.check_machine,
    "sequence": TWITTER.check_sequence,
}

# The CLI's defaults: a blank timestamp is now, a blank sequence 0; the identity is required.
_DEFAULTS = {"sequence": "0"}


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
    form = ComposeForm(values=values)
    checked: dict[str, int] = {}
    for name in COMPOSE_FIELDS:
        raw = values[name]
        if not raw.strip():
            if name == "timestamp":
                form.timestamp_was_blank = True
                raw = str(clock.time_ms())
            elif name in _DEFAULTS:
                raw = _DEFAULTS[name]
        try:
            checked[name] = _CHECKS[name](to_int(name, raw))
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
