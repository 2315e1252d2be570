"""SnowIds in JSON: always a decimal string, never a JSON number.

A number above 2^53 loses digits in JavaScript (and in every JSON reader that maps numbers
to doubles), so an id travels as its decimal digits, as ``GET /api/…`` and pydantic's JSON
mode write it. ``SnowId`` is no ``int`` subclass for the same reason: ``json.dumps`` would
write an int subclass as a number without asking.

- ``json_default``: for ``json.dumps(obj, default=json_default)`` and orjson's ``default=``;
  both call it only for what they cannot write themselves, and expect a TypeError for
  anything it does not know either;
- ``JSONEncoder``: the same as a ``json.JSONEncoder`` class, for ``cls=`` arguments;
- ``JSON_ENCODERS``: ``{SnowId: str}``, the mapping FastAPI's ``jsonable_encoder(…,
  custom_encoder=…)`` takes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from snowid.ids._snowid import SnowId

__all__ = ["JSON_ENCODERS", "JSONEncoder", "json_default"]


def json_default(value: object) -> str:
    """A SnowId as its decimal string; a TypeError, as ``json`` asks, for anything else."""
    if isinstance(value, SnowId):
        return str(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class JSONEncoder(json.JSONEncoder):
    """``json.JSONEncoder`` that writes a SnowId as its decimal string."""

    def default(self, o: Any) -> Any:
        if isinstance(o, SnowId):
            return str(o)
        return super().default(o)


JSON_ENCODERS: Final[dict[Any, Callable[[Any], Any]]] = {SnowId: str}
"""``jsonable_encoder(obj, custom_encoder=JSON_ENCODERS)`` in FastAPI (a plain dict, the
type FastAPI declares; never change it)."""
