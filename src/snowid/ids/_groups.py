"""Numbers as people write them: digit groups, for the people-facing readers only.

``1 288 834 975 657``, ``1_288_834_975_657``, ``1'288'834'975'657`` and, with at least two
marks, ``1.288.834.975.657`` or ``1,288,834,975,657`` are one number. A single ``.`` or
``,`` group (``1.000``) is a thousands mark in one language and a decimal mark in another
(Vietnamese writes one and a half as ``1,5``), so it is read only as the page language's
own group mark (vi ``.``, en ``,``) and otherwise refused as ambiguous. Groups must be
regular (1 to 3 digits, then threes): ``12.34.567`` is refused naming its mark, not as
"not a whole number".

The program-facing readers (``to_int``: ``SnowId.parse``, ``snowid.decode``, pydantic,
Django, settings) never come here; what they accept (Python's ``_`` rule, surrounding
white space, a sign) is still accepted here, so this tier never takes less than theirs.
"""

from __future__ import annotations

from typing import Final, Literal

from snowid._exceptions import InvalidValueError, error_data, name_errors_module
from snowid.ids._parse import to_int

__all__ = ["GROUP_MARKS", "DigitGroupError", "GroupReason", "read_grouped"]

_SPACES: Final = frozenset({" ", "\u00a0", "\u2009", "\u202f"})
_ALWAYS: Final = _SPACES | {"_", "'"}
_POINTS: Final = frozenset({".", ","})
_MARKS: Final = _ALWAYS | _POINTS
GROUP_MARKS: Final = {"en": ",", "vi": "."}
"""Each page language's own thousands mark: the one a single ``.``/``,`` group may be."""

GroupReason = Literal["irregular", "ambiguous"]


@error_data
class DigitGroupError(InvalidValueError):
    """Digits grouped by ``separator`` in a way that cannot be read for sure: ``irregular``
    (groups not 1-3 digits then threes, or mixed marks) or ``ambiguous`` (one ``.``/``,``
    group that may be a decimal mark)."""

    code = "digit_groups"
    _shown = frozenset({"value"})
    reason: GroupReason
    separator: str

    def _catalog_key(self) -> str:
        return f"{self.code}.{self.reason}"


def read_grouped(field: str, text: str, lang: str = "en") -> int | None:
    """``text`` as a whole number when it is digits (an optional sign first) grouped as
    people write them; None when it is not made of digits and group marks at all (the
    caller tries its other forms: a link, hex). Irregular or ambiguous groups raise a
    DigitGroupError naming the mark."""
    body = text.strip().strip("\u00a0\u2009\u202f")
    sign = ""
    if body[:1] in ("-", "+", "\u2212"):
        sign, body = ("-" if body[0] != "+" else ""), body[1:].lstrip()
    if not body or not "0" <= body[0] <= "9":
        return None
    marks = [char for char in body if not "0" <= char <= "9"]
    if any(mark not in _MARKS for mark in marks):
        return None
    if not marks:
        return to_int(field, sign + body)
    if set(marks) == {"_"} and _python_underscores(body):
        return to_int(field, sign + body)  # what the program tier takes, taken here too
    mark = marks[0]
    shown = _name(mark)
    if any(other != mark for other in marks):
        odd = next(other for other in marks if other != mark)
        raise DigitGroupError(field=field, value=text, reason="irregular", separator=_name(odd))
    groups = body.split(mark)
    if not (1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:])):
        raise DigitGroupError(field=field, value=text, reason="irregular", separator=shown)
    if mark in _POINTS and len(marks) == 1 and GROUP_MARKS.get(lang, ",") != mark:
        raise DigitGroupError(field=field, value=text, reason="ambiguous", separator=shown)
    return to_int(field, sign + "".join(groups))


def _python_underscores(body: str) -> bool:
    return "__" not in body and not body.endswith("_")


def _name(mark: str) -> str:
    """A mark as a message shows it: quoted, and a space that is not ASCII by its code."""
    return f"U+{ord(mark):04X}" if not mark.isascii() else f"'{mark}'" if mark != "'" else '"\'"'


name_errors_module(globals())  # reprs and pickles say snowid.errors.X
