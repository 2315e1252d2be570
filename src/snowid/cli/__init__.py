"""The ``snowid`` command: a thin adapter over the library.

Each sub-command lives in its own module, imported only when that command is parsed
(``_commands`` holds the table, so ``snowid decode`` stays free of the web server, the
lease stores and asyncio); this module builds the parser, picks the language and turns
snowid errors and a failed write to stdout into exit code 1 with ``Error: …`` on stderr
(argparse's usage errors exit 2, in the same language and without repeating a value:
see ``_usage``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence

from snowid import __version__
from snowid._exceptions import SnowIdError
from snowid.cli._commands import add_commands
from snowid.cli._common import Handler, OutputError, discard_stdout, guarded_stdout
from snowid.cli._usage import Parser, lang_from_argv, usage_lang
from snowid.i18n import LANGS, translate

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="snowid",
        description=(
            "Compose, decode, explain and generate Twitter Snowflake ids; decode ids of other"
            " layouts (Discord, Instagram, Sonyflake, Mastodon) and find the ids of a time window."
        ),
    )
    parser.add_argument(
        "--lang", choices=LANGS, default=None, help="language of messages (default: the locale)"
    )
    parser.add_argument("--version", action="version", version=f"snowid {__version__}")
    add_commands(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    lang = lang_from_argv(arguments)
    usage_lang.set(lang)  # a usage error can come before --lang is parsed
    parser = build_parser()
    try:
        with guarded_stdout(closed_is_error=False):  # --help; argparse falls back to stderr
            args = parser.parse_args(arguments)
        lang = args.lang or lang
        handler: Handler = args.func
        if args.command == "serve":  # writes no output of its own: logs go to stderr
            return handler(args, lang)
        with guarded_stdout():
            return handler(args, lang)
    except (SnowIdError, OutputError) as error:
        if isinstance(error, OutputError):
            discard_stdout()
        _report(translate("cli.error", lang, message=error.message(lang)))
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `snowid generate … | head`: the reader left, nothing to report
        discard_stdout()  # so the exit-time flush cannot fail again
        return 0


def _report(line: str) -> None:
    """One line on stderr; a stderr that cannot be written either leaves only the exit code."""
    with contextlib.suppress(OSError):
        print(line, file=sys.stderr, flush=True)
