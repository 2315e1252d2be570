"""Plain-text rendering of a breakdown for the terminal (colour optional)."""

from __future__ import annotations

import datetime as _dt

from snowid import Breakdown
from snowid.i18n import translate

# One ANSI colour per block, the same order as the web page's colours.
_COLOURS = {
    "sign": "\033[90m",
    "timestamp": "\033[34m",
    "datacenter": "\033[32m",
    "machine": "\033[33m",
    "sequence": "\033[35m",
}
_RESET = "\033[0m"


def _paint(text: str, name: str, colour: bool) -> str:
    return f"{_COLOURS[name]}{text}{_RESET}" if colour else text


def render_parts(data: Breakdown, lang: str) -> list[str]:
    snow_id = data.id
    parts = data.parts
    local = data.datetime.astimezone()
    rows = [
        ("cli.id", str(snow_id)),
        ("cli.hex", "0x" + snow_id.hex),
        ("cli.timestamp", str(parts.timestamp)),
        ("cli.utc", data.iso_utc),
        ("cli.local", _local_text(local)),
        ("cli.datacenter", str(parts.datacenter)),
        ("cli.machine", str(parts.machine)),
        ("cli.sequence", str(parts.sequence)),
        ("cli.worker", str(data.worker)),
    ]
    labels = [translate(key, lang) for key, _ in rows]
    width = max(len(label) for label in labels)
    return [f"{label:<{width}}  {value}" for label, (_, value) in zip(labels, rows, strict=True)]


def _local_text(when: _dt.datetime) -> str:
    return when.isoformat(timespec="milliseconds") + (f" {when.tzname()}" if when.tzname() else "")


def render_blocks(data: Breakdown, lang: str, *, colour: bool) -> list[str]:
    """The 64 bits as one coloured line, then one labelled row per block."""
    line = " ".join(_paint(seg.bits, seg.name, colour) for seg in data.segments)
    names = [translate(f"segment.{seg.name}", lang) for seg in data.segments]
    width = max(len(name) for name in names)
    lines = [translate("cli.bits", lang) + ":", "  " + line]
    for seg, name in zip(data.segments, names, strict=True):
        span = str(seg.high_bit) if seg.width == 1 else f"{seg.high_bit}..{seg.low_bit}"
        label = _paint(f"{name:<{width}}", seg.name, colour)
        value = f"= {seg.value}"
        lines.append(f"  {label}  {span:>6}  {seg.width:>2}  {value:<16}  {seg.bits}")
    return lines


def render_steps(data: Breakdown, lang: str) -> list[str]:
    lines = [translate("cli.steps", lang) + ":"]
    for step in data.steps:
        lines.append(f"  {translate(f'step.{step.key}', lang)}")
        lines.append(f"    {step.expression} = {step.result}")
    return lines
