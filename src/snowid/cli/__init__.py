"""The ``snowid`` command: a thin adapter over the library.

Each sub-command lives in its own module with ``register(subparsers)``; this module
builds the parser, picks the language and turns snowid errors into exit code 1
with ``Error: …`` on stderr (argparse's usage errors exit 2).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from snowid import __version__
from snowid.cli import _compose, _generate, _lease, _serve
from snowid.cli._common import Handler
from snowid.errors import SnowIdError
from snowid.i18n import LANGS, detect_lang, translate

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="snowid",
        description="Compose, decode, explain and generate Twitter Snowflake ids.",
    )
    parser.add_argument(
        "--lang", choices=LANGS, default=None, help="language of messages (default: the locale)"
    )
    parser.add_argument("--version", action="version", version=f"snowid {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (_compose, _generate, _lease, _serve):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    lang: str = args.lang or detect_lang()
    handler: Handler = args.func
    try:
        return handler(args, lang)
    except SnowIdError as error:
        print(translate("cli.error", lang, message=error.message(lang)), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `snowid generate … | head`: the reader left, nothing to report
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the exit-time flush cannot fail again
        return 0
