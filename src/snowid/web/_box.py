"""The decoder's box read: one id with the ids its link also holds, or a list of many.

Every line is read as a person pastes it (``read_pasted``) and in the layout the one rule
of every door gives (``choose_layout``): a link or mention in its own layout, a bare number
in the layout the visitor named, else the one the browser remembers, else Twitter. A
layout named that contradicts the link is refused, naming both. In a list (one line per
id) the rows share one layout, so a link whose own layout is another is that row's error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from snowid import SYSTEM_CLOCK, Clock, Decoded, Layout, decode
from snowid._exceptions import InvalidValueError
from snowid.ids import LayoutConflictError, Pasted, builtin_layout, choose_layout, read_pasted
from snowid.web._view import DEFAULT_LAYOUT, MAX_IDS, IdList

__all__ = ["BoxRead", "id_lines", "read_box", "read_page_ids"]


@dataclass(frozen=True, slots=True)
class BoxRead:
    """The decoder box read: one id or the table. ``source``: the layout the pasted links
    named; ``chosen_by``: who chose the layout read (``choose_layout``); ``normalised``:
    the single id's plain digits when written otherwise (digit groups, a link); ``linked``:
    the other ids of a single link, what each names and its reading (a Discord message
    link's channel and server, after the message it leads with); ``pasted``: the single
    line as read (None for a list)."""

    read: Decoded | IdList
    source: str = ""
    normalised: str = ""
    chosen_by: str = "default"
    linked: tuple[tuple[str, Decoded], ...] = field(default=())
    pasted: Pasted | None = None


def id_lines(text: str) -> list[str]:
    """The decoder's non-blank lines, stripped: one id each."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def read_page_ids(
    text: str, layout: Layout | None = DEFAULT_LAYOUT, clock: Clock = SYSTEM_CLOCK
) -> Decoded | IdList:
    """``read_box`` with ``layout`` named, in English: what was read."""
    return read_box(text, layout, clock=clock).read


def read_box(
    text: str,
    layout: Layout | None = None,
    remembered: Layout | None = None,
    *,
    clock: Clock = SYSTEM_CLOCK,
    lang: str = "en",
) -> BoxRead:
    """One id (a single non-blank line; a link's other ids in ``linked``), or the list of
    several; blank lines are skipped. ``layout``: the one the visitor named (None: none);
    ``remembered``: the one kept for bare numbers. A single bad line raises its error (a
    LayoutConflictError when ``layout`` contradicts its link); in a list each line keeps
    its own. The caller checks the count first (``id_lines``): at most MAX_IDS."""
    lines = id_lines(text)[: MAX_IDS + 1] or [text]
    if len(lines) == 1:
        return _one(lines[0], layout, remembered, clock, lang)
    found: list[tuple[str, Pasted | InvalidValueError]] = []
    for line in lines:
        try:
            found.append((line, read_pasted(line, lang)))
        except InvalidValueError as error:
            found.append((line, error))
    sources = {read.source for _, read in found if isinstance(read, Pasted) and read.source}
    if layout is not None:
        spec, chosen_by = layout, "request"
    elif len(sources) == 1:
        source = next(iter(sources))
        spec, chosen_by = builtin_layout(source), "link"
    elif remembered is not None:
        spec, chosen_by = remembered, "remembered"
    else:
        spec, chosen_by = DEFAULT_LAYOUT, "default"
    read: list[tuple[str, Decoded | InvalidValueError]] = []
    labels: list[str] = []
    for line, pasted in found:
        if isinstance(pasted, InvalidValueError):
            read.append((line, pasted))
            labels.append("")
            continue
        if pasted.source and builtin_layout(pasted.source) != spec:
            within: Literal["request", "list"] = "request" if layout is not None else "list"
            conflict = LayoutConflictError(
                field="layout", value=spec.name, text=line, layout=pasted.source, within=within
            )
            read.append((line, conflict))
            labels.append("")
            continue
        for item in pasted.ids:
            try:
                read.append((line, decode(item.value, spec, clock=clock)))
            except InvalidValueError as error:
                read.append((line, error))
            labels.append(item.label)
    source = spec.name if chosen_by == "link" else ""
    return BoxRead(IdList(spec, read, tuple(labels)), source, chosen_by=chosen_by)


def _one(
    line: str, layout: Layout | None, remembered: Layout | None, clock: Clock, lang: str
) -> BoxRead:
    pasted = read_pasted(line, lang)
    spec, chosen_by = choose_layout(pasted, layout, remembered, text=line)
    lead, *others = pasted.ids
    plain = pasted.normalised if not others else ""  # a link of several: its lead is named
    return BoxRead(
        decode(lead.value, spec, clock=clock),
        pasted.source,
        "" if plain == line else plain,
        chosen_by,
        tuple((item.label, decode(item.value, spec, clock=clock)) for item in others),
        pasted,
    )
