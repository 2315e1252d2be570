"""``snowid decode``, ``snowid readings`` and ``snowid encode``: one number, any layout, any base.

A Twitter id is shown as it always was (fields, blocks, ``--steps``); another layout's
id gets the same kind of listing from its own fields. Warnings follow the fields, and a
text decode names the other layouts in which the number reads as a plausible time.
"""

from __future__ import annotations

import argparse
import sys

from snowid import BASES, Decoded, decode, readings
from snowid.cli._commands import Arguments
from snowid.cli._common import add_lang_option, print_json, use_colour
from snowid.cli._render import aligned, local_text, render_blocks, render_breakdown
from snowid.i18n import translate, translate_field, translate_layout
from snowid.ids import (
    Pasted,
    PastedId,
    choose_layout,
    encode,
    estimate_words,
    get_layout,
    read_number,
    read_pasted,
    read_people_int,
)

_LAYOUT_HELP = (
    "layout: twitter (default), discord, instagram, sonyflake, sonyflake-v2, mastodon, or"
    " your own as 'epoch=MS,unit=MS,fields=NAME:BITS,…' (signed=no when bit 63 is time)"
)


FORMATS = ("csv", "jsonl", "parquet")
"""What ``snowid decode -`` and ``--file`` write (``_stream`` writes them)."""
ON_ERROR = ("stop", "skip")


def _decode_arguments(decoder: argparse.ArgumentParser) -> None:
    decoder.add_argument(
        "id",
        nargs="?",
        help="an id in decimal (digit groups allowed: 1.288.834.975.657), 0x… hex, or in the"
        " base given by --from; or a tweet, Discord, Mastodon or Instagram link, or a Discord"
        " mention or emoji, read in the layout the link names; '-': many ids, one per line,"
        " from standard input",
    )
    decoder.add_argument(
        "--layout",
        default=None,
        help=_LAYOUT_HELP + "; default: the link's, else twitter (a link is always read in"
        " its own layout: another one named is refused)",
    )
    _add_from(decoder)
    decoder.add_argument("--json", action="store_true", help="print one JSON object")
    decoder.add_argument("--steps", action="store_true", help="also the formula (Twitter only)")
    many = decoder.add_argument_group(
        "many ids", "with '-' or --file: one id per line (digits only), decoded as a stream"
    )
    many.add_argument(
        "--file",
        metavar="PATH",
        help="read the ids from PATH: one per line, a column of a CSV file (--column), or a"
        " Parquet file (*.parquet; needs pyarrow)",
    )
    many.add_argument(
        "--column", metavar="NAME", help="the CSV (or Parquet) column that holds the ids"
    )
    many.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="csv (default: id,time, then the layout's fields), jsonl (one --json object per"
        " line) or parquet (needs pyarrow)",
    )
    many.add_argument(
        "--on-error",
        choices=ON_ERROR,
        default="stop",
        help="a bad line: stop there with exit status 1 (default), or skip it; either way"
        " it is reported on standard error with its line number",
    )
    many.add_argument("--output", metavar="PATH", help="write to PATH (default: standard output)")
    add_lang_option(decoder)
    decoder.set_defaults(func=_decode)


def _readings_arguments(reader: argparse.ArgumentParser) -> None:
    reader.add_argument("id", help="a number in decimal, 0x… hex, or in the base of --from")
    _add_from(reader)
    reader.add_argument("--json", action="store_true", help="print one JSON object")
    add_lang_option(reader)
    reader.set_defaults(func=_readings)


def _encode_arguments(encoder: argparse.ArgumentParser) -> None:
    encoder.add_argument("id", help="an id in decimal, 0x… hex, or in the base of --from")
    encoder.add_argument("--to", choices=BASES, default=None, help="one base (default: all)")
    encoder.add_argument("--layout", default="twitter", help="the layout whose ids it must be")
    _add_from(encoder)
    encoder.add_argument("--json", action="store_true", help="print one JSON object")
    add_lang_option(encoder)
    encoder.set_defaults(func=_encode)


ARGUMENTS: dict[str, Arguments] = {
    "decode": _decode_arguments,
    "readings": _readings_arguments,
    "encode": _encode_arguments,
}


def _add_from(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--from", dest="base", choices=BASES, default=None, help="the base the id is written in"
    )


# --- decode ------------------------------------------------------------------


def _number(args: argparse.Namespace, lang: str) -> int:
    """The id argument as a number: in ``--from``'s base, ``0x…`` hex, or decimal as people
    write it (digit groups)."""
    if args.base is not None or args.id.strip()[:2] in ("0x", "0X"):
        return read_number(args.id, "id", args.base)
    return read_people_int("id", args.id, lang)


def _decode(args: argparse.Namespace, lang: str) -> int:
    if args.id == "-" or args.file is not None:
        return _decode_many(args, lang)
    if args.id is None:
        return _usage("cli.decode_no_id", lang)
    if args.column or args.format or args.output:
        return _usage("cli.decode_many_only", lang)
    return _decode_one(args, lang)


def _decode_many(args: argparse.Namespace, lang: str) -> int:
    """``snowid decode -`` and ``--file PATH``: a stream of ids (``_stream``)."""
    if args.id is not None and args.file is not None:
        return _usage("cli.decode_one_source", lang)
    if args.base is not None or args.steps:
        return _usage("cli.decode_one_only", lang)
    from snowid.cli._stream import decode_stream  # snowid.bulk (and numpy) only here

    return decode_stream(args, lang)


def _decode_one(args: argparse.Namespace, lang: str) -> int:
    if args.base is not None:
        pasted = Pasted((PastedId(read_number(args.id, "id", args.base)),))
    else:
        pasted = read_pasted(args.id, lang)
    # A link reads in its own layout; --layout naming another is refused, naming both.
    layout, _ = choose_layout(pasted, args.layout, text=args.id.strip(), field="layout")
    found = [(item.label, decode(item.value, layout)) for item in pasted.ids]
    hint = pasted.time_hint(lang)
    if args.json:
        data = _decode_json(pasted, found, lang)
        print_json(
            {**data, "time_hint": {**hint, "compose": _compose_command(hint)}} if hint else data
        )
        return 0
    blocks: list[list[str]] = []
    if hint is not None:
        blocks.append([str(hint["message"]), f"  {_compose_command(hint)}"])
    if pasted.source and args.layout is None:
        blocks.append(
            [translate("pasted.source", lang, layout=translate_layout(pasted.source, lang))]
        )
    for label, decoded in found:
        heading = [f"{translate(f'pasted.{label}', lang)}: {decoded.id}"] if label else []
        blocks.append(heading + _decode_lines(decoded, args, lang))
    print("\n\n".join("\n".join(block) for block in blocks))
    return 0


def _usage(key: str, lang: str) -> int:
    """Options that do not go together: said on standard error, exit status 2."""
    message = translate("cli.error", lang, message=translate(key, lang))
    print(message, file=sys.stderr)
    return 2


def _compose_command(hint: dict[str, object]) -> str:
    """The command that composes a Twitter id at the time a number looks like."""
    return f"snowid compose --timestamp {hint['timestamp']} --datacenter 0 --machine 0"


def _decode_json(pasted: Pasted, found: list[tuple[str, Decoded]], lang: str) -> dict[str, object]:
    """One id as its object (the source a link named added); a link of several ids (a
    Discord message: the message first, then its channel and server) as ``{"source",
    "ids": [{"label", "reading"}]}``, as the HTTP API's ``GET /api/decode?text=`` lists
    them."""
    if len(found) == 1 and not found[0][0]:
        data = found[0][1].as_dict(lang)
        return {**data, "source": pasted.source} if pasted.source else data
    return {
        "source": pasted.source,
        "ids": [{"label": label, "reading": decoded.as_dict(lang)} for label, decoded in found],
    }


def _decode_lines(decoded: Decoded, args: argparse.Namespace, lang: str) -> list[str]:
    colour = use_colour()
    lines = _render_estimate(decoded, lang)
    view = decoded.breakdown  # a Twitter id is shown as it always was
    if view is not None:
        lines += render_breakdown(view, lang, colour=colour, steps=args.steps)
    else:
        lines += [
            *_render_fields(decoded, lang),
            "",
            *render_blocks(decoded.spec, decoded.segments, lang, colour=colour),
        ]
    lines += ["", *_render_copies(decoded, lang)]
    lines += _render_warnings(decoded, lang)
    others = [r for r in readings(decoded.id) if r.spec != decoded.spec]
    if others:
        shown = ", ".join(f"{translate_layout(r.layout, lang)} {_when(r, lang)}" for r in others)
        lines += ["", translate("cli.also", lang, readings=shown, id=decoded.id)]
    return lines


def _when(decoded: Decoded, lang: str) -> str:
    return decoded.iso_utc or translate("cli.past_9999", lang, timestamp=decoded.timestamp)


def _render_fields(decoded: Decoded, lang: str) -> list[str]:
    rows = [
        (translate("cli.id", lang), str(decoded.id)),
        (translate("cli.hex", lang), f"0x{decoded.id:016x}"),
        (translate("cli.layout", lang), translate_layout(decoded.layout, lang)),
        (translate("cli.timestamp", lang), str(decoded.timestamp)),
        (translate("cli.utc", lang), _when(decoded, lang)),
        (translate("cli.local", lang), local_text(decoded.datetime)),
    ]
    rows += [(translate_field(name, lang), str(value)) for name, value in decoded.fields.items()]
    return aligned(rows)


def _render_copies(decoded: Decoded, lang: str) -> list[str]:
    """The time as the forms people copy it into other tools: Unix seconds, Discord's
    markup and ISO 8601 (UTC, when a date holds it)."""
    rows = [
        (translate("cli.unix_seconds", lang), str(decoded.unix_seconds)),
        (translate("cli.discord_markup", lang), decoded.discord_markup),
    ]
    if decoded.iso_utc is not None:
        rows.append((translate("cli.iso", lang), decoded.iso_utc))
    return aligned(rows)


def _render_estimate(decoded: Decoded, lang: str) -> list[str]:
    """A tweet id from before Snowflake leads with that, and when it was posted."""
    estimate = decoded.estimate
    if estimate is None:
        return []
    headline, message = estimate_words(estimate, lang)
    return [headline, message, ""]


def _render_warnings(decoded: Decoded, lang: str) -> list[str]:
    if not decoded.warnings:
        return []
    messages = decoded.messages(lang)
    return ["", *(translate("cli.warning", lang, message=m["message"]) for m in messages)]


# --- readings ------------------------------------------------------------------


def _readings(args: argparse.Namespace, lang: str) -> int:
    number = _number(args, lang)
    found = readings(number)
    if args.json:
        print_json({"id": str(number), "readings": [r.as_dict(lang) for r in found]})
        return 0
    if not found:
        print(translate("cli.no_readings", lang))
        return 0
    lines = []
    for reading in found:
        fields = ", ".join(f"{translate_field(n, lang)} {v}" for n, v in reading.fields.items())
        lines.append(
            f"{translate_layout(reading.layout, lang):<13} {_when(reading, lang):<25} {fields}"
        )
        lines += [
            f"  {translate('cli.warning', lang, message=m['message'])}"
            for m in reading.messages(lang)
        ]
    print("\n".join(lines))
    return 0


# --- encode --------------------------------------------------------------------


def _encode(args: argparse.Namespace, lang: str) -> int:
    layout = get_layout(args.layout)
    number = layout.check_id(_number(args, lang))
    if args.to is not None and not args.json:
        print(encode(number, args.to))
        return 0
    bases = (args.to,) if args.to is not None else BASES
    if args.json:
        print_json({"id": str(number), **{base: encode(number, base) for base in bases}})
        return 0
    print("\n".join(aligned([("decimal", str(number)), *((b, encode(number, b)) for b in bases)])))
    return 0
