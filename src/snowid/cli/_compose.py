"""``snowid compose`` and ``snowid explain``: the seed's tool on the terminal (``snowid decode``,
which reads every layout, is in ``snowid/ids/_decode.py``)."""

from __future__ import annotations

import argparse

from snowid import SnowId, breakdown
from snowid.cli._commands import Arguments
from snowid.cli._common import add_lang_option, print_json, use_colour
from snowid.cli._render import render_breakdown
from snowid.ids import COMPOSE_FIELDS, read_compose_fields, read_id


def _compose_arguments(compose: argparse.ArgumentParser) -> None:
    compose.add_argument(
        "--timestamp", default=None, help="Unix time in milliseconds (default: now)"
    )
    compose.add_argument("--datacenter", required=True, help="datacenter id, 0..31")
    compose.add_argument("--machine", required=True, help="machine id, 0..31")
    compose.add_argument("--sequence", default="0", help="sequence, 0..4095 (default 0)")
    _add_output_options(compose)
    compose.set_defaults(func=_compose)


def _explain_arguments(explain: argparse.ArgumentParser) -> None:
    explain.add_argument("id", help="a Twitter Snowflake id in decimal (or 0x… hex)")
    _add_output_options(explain)
    explain.set_defaults(func=_decode, steps=True)


ARGUMENTS: dict[str, Arguments] = {"compose": _compose_arguments, "explain": _explain_arguments}


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--steps", action="store_true", help="also show the formula step by step")
    add_lang_option(parser)


def _compose(args: argparse.Namespace, lang: str) -> int:
    texts = {name: getattr(args, name) for name in COMPOSE_FIELDS}
    return _show(read_compose_fields(texts, lang=lang).snow_id(), args, lang)


def _decode(args: argparse.Namespace, lang: str) -> int:
    return _show(read_id(args.id, lang), args, lang)


def _show(snow_id: SnowId, args: argparse.Namespace, lang: str) -> int:
    data = breakdown(snow_id)
    if args.json:
        print_json(data.as_dict())
        return 0
    print("\n".join(render_breakdown(data, lang, colour=use_colour(), steps=args.steps)))
    return 0
