"""``snowid layouts`` and ``snowid range``: the layouts snowid knows, and the ids of a window."""

from __future__ import annotations

import argparse

from snowid import LAYOUTS, SYSTEM_CLOCK
from snowid._exceptions import ReversedWindowError
from snowid.cli._commands import Arguments
from snowid.cli._common import add_lang_option, print_json
from snowid.cli._render import aligned
from snowid.i18n import translate, translate_layout
from snowid.ids import get_layout, iso_ms, layout_info, read_people_time


def _layouts_arguments(lister: argparse.ArgumentParser) -> None:
    lister.add_argument("--json", action="store_true", help="print one JSON object")
    add_lang_option(lister)
    lister.set_defaults(func=_layouts)


def _range_arguments(window: argparse.ArgumentParser) -> None:
    window.add_argument("start", help="ISO 8601 (no zone = UTC) or Unix milliseconds")
    window.add_argument("end", nargs="?", default=None, help="the same forms (default: now)")
    window.add_argument("--layout", default="twitter", help="a built-in name or a layout spec")
    window.add_argument("--json", action="store_true", help="print one JSON object")
    add_lang_option(window)
    window.set_defaults(func=_range, parser=window)


ARGUMENTS: dict[str, Arguments] = {"layouts": _layouts_arguments, "range": _range_arguments}


def _layouts(args: argparse.Namespace, lang: str) -> int:
    infos = [layout_info(layout, lang) for layout in LAYOUTS]
    if args.json:
        print_json({"layouts": infos})
        return 0
    lines = []
    for info in infos:
        fields = " ".join(f"{f['name']}:{f['width']}" for f in info["fields"])  # type: ignore[attr-defined]
        top = translate("cli.bit63_sign" if info["signed"] else "cli.bit63_time", lang)
        lines.append(
            f"{info['name']:<13} {info['epoch']}  {info['unit_ms']:>2} ms  {fields}  ({top})"
        )
        lines.append(f"{'':<13} {info['note']}")
        lines.append(f"{'':<13} {info['source']}")
    print("\n".join(lines))
    return 0


def _range(args: argparse.Namespace, lang: str) -> int:
    layout = get_layout(args.layout)
    start = read_people_time("start", args.start, lang)
    end = SYSTEM_CLOCK.time_ms() if args.end is None else read_people_time("end", args.end, lang)
    if args.end is not None and end < start:  # swapped, not a window without ids
        args.parser.usage_error(ReversedWindowError(field="end", value=args.end, start=args.start))
    from snowid.integrations.sql import range_info, signed_note

    info = range_info(start, end, layout)
    if args.json:
        print_json(info)
        return 0

    def moment(key: str) -> str:
        part = info[key]
        assert isinstance(part, dict)
        shown = part["datetime"] or translate("cli.past_9999", lang, timestamp=part["timestamp"])
        return f"{shown} ({part['timestamp']})"

    rows = [
        (translate("cli.layout", lang), translate_layout(layout.name, lang)),
        (translate("cli.from", lang), moment("from")),
        (translate("cli.to", lang), moment("to")),
    ]
    if info["empty"]:
        rows.append(("", translate("cli.range_empty", lang)))
    else:
        rows += [
            (translate("cli.low", lang), str(info["low"])),
            (translate("cli.high", lang), str(info["high"])),
            ("SQL", f"WHERE {info['sql']}"),
        ]
        wrap = signed_note(info, layout)
        if wrap is not None:
            name = translate_layout(layout.name, lang)
            rows.append(("", translate("cli.range_signed", lang, layout=name, wrap=iso_ms(wrap))))
    print("\n".join(aligned(rows)))
    return 0
