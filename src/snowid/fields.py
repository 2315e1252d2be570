"""Reading what a person types: the one reader of the web page, the CLI and your own forms.

The core's constructors are strict (``SnowId(int)``, ``SnowId.from_parts`` with ints);
a form or a command line is lenient, and its rules live once, here: ``to_int`` reads a
whole number given as text (surrounding white space and ``_`` separators allowed) and
names the field in its error; ``read_compose_fields`` reads the four compose fields (a
blank timestamp is now, a blank sequence is 0), each checked against its range once,
every bad field reported on its own; ``read_id`` reads an id typed or pasted;
``read_number`` a number as typed (decimal, ``0x…`` hex, or text in a named base) and
``parse_time`` a time as typed (Unix ms or ISO 8601), each naming its field when wrong;
``display_value`` shows a value back as snowid's messages do (shortened, with nothing
invisible in it).
"""

from __future__ import annotations

from snowid._encoding import read_number
from snowid._fields import (
    COMPOSE_FIELDS,
    ComposeFields,
    first_error,
    read_compose_fields,
    read_field,
    read_id,
)
from snowid._parse import to_int
from snowid._timerange import parse_time
from snowid.errors import _display as display_value

__all__ = [
    "COMPOSE_FIELDS",
    "ComposeFields",
    "display_value",
    "first_error",
    "parse_time",
    "read_compose_fields",
    "read_field",
    "read_id",
    "read_number",
    "to_int",
]

ComposeFields.__module__ = __name__  # reprs and docs name the public path
