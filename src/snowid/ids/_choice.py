"""Which layout pasted ids are read in: the one rule of every door (page, CLI, JSON API).

A link or mention decides its own layout: a tweet's ids are Twitter ids whatever was chosen
before. A layout named with the request (the form's ``layout=``, ``--layout``, the API's
``layout=``) that contradicts the link is refused, naming both: reading a Discord message
as a tweet gives a time years off and no sign of it. A bare number names no layout: it is
read in the one named, else the one the visitor's browser remembers (the page's cookie),
else Twitter.
"""

from __future__ import annotations

from typing import Literal

from snowid._exceptions import InvalidValueError, error_data, name_errors_module
from snowid.ids._builtins import builtin_layout, get_layout
from snowid.ids._layout import TWITTER, Layout
from snowid.ids._pasted import Pasted

__all__ = ["ChosenBy", "LayoutConflictError", "choose_layout"]

ChosenBy = Literal["link", "request", "remembered", "default"]
"""Who chose the layout: the pasted link, the request, the visitor's remembered choice,
or nobody (Twitter)."""


@error_data
class LayoutConflictError(InvalidValueError):
    """A layout named in ``field`` (``value``) for a pasted link or mention (``text``) whose
    ids are ``layout`` ids. ``within`` is ``request`` when the visitor named it, ``list``
    when it is the layout of the list the line is in (the page's table)."""

    code = "layout_conflict"
    _shown = frozenset({"value", "text"})
    text: str
    layout: str
    within: Literal["request", "list"] = "request"

    def _catalog_key(self) -> str:
        return self.code if self.within == "request" else f"{self.code}.list"


def choose_layout(
    pasted: Pasted,
    chosen: Layout | str | None = None,
    remembered: Layout | str | None = None,
    *,
    text: str = "",
    field: str = "layout",
) -> tuple[Layout, ChosenBy]:
    """The layout to read ``pasted`` in and who chose it (see the module). ``chosen``: the
    layout named with the request (None: none); ``remembered``: the one kept for bare
    numbers; ``text``: what was pasted, for the error. A ``chosen`` layout that is not the
    link's raises LayoutConflictError (one that is: the link chose it, and the request
    agrees)."""
    named = None if chosen is None else get_layout(chosen)
    if pasted.source:
        own = builtin_layout(pasted.source)
        if named is not None and named != own:
            raise LayoutConflictError(
                field=field, value=named.name, text=text, layout=pasted.source
            )
        return own, "link"
    if named is not None:
        return named, "request"
    if remembered is not None:
        return get_layout(remembered), "remembered"
    return TWITTER, "default"


name_errors_module(globals())  # reprs and pickles say snowid.errors.X
