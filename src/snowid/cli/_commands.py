"""The sub-commands: each one's name, its line in ``snowid --help`` and the module that does it.

``snowid --help`` needs only this table. A command's module (its arguments and its code)
is imported when argparse picks that command, so ``snowid decode`` does not import the web
server, the lease stores or asyncio that ``snowid serve`` and ``snowid lease`` need.
Each module lists its commands in ``ARGUMENTS``: name -> the function adding its
arguments and its handler (``set_defaults(func=…)``).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable, Sequence
from typing import Any

from snowid.cli._usage import Parser

__all__ = ["COMMANDS", "Arguments", "CommandParser", "add_commands"]

Arguments = Callable[[argparse.ArgumentParser], None]

# name -> (module in snowid.cli, help); in the order `snowid --help` lists them.
COMMANDS: dict[str, tuple[str, str]] = {
    "compose": ("_compose", "build one id from its four fields and show its 64 bits"),
    "explain": ("_compose", "decode an id and walk through the formula that builds it"),
    "decode": ("_decode", "split an id into its fields, in any layout"),
    "readings": ("_decode", "the number read in every built-in layout with a plausible time"),
    "encode": ("_decode", "write an id in hex, base32, … base62"),
    "layouts": ("_range", "the built-in layouts and their sources"),
    "range": (
        "_range",
        "the lowest and highest id made between two times (for WHERE id BETWEEN)",
    ),
    "generate": ("_generate", "print fresh ids from the production generator"),
    "lease": (
        "_lease",
        "set up a worker-identity lease store and list who holds which identity",
    ),
    "serve": ("_serve", "serve the web page and the JSON API (Starlette on uvicorn)"),
    "sql": ("_sql", "SQL functions that read ids inside a database"),
}


class CommandParser(Parser):
    """A parser that adds a command's arguments the first time it parses or shows help.

    ``command`` is given for the top-level commands only; the parsers a command makes
    for its own sub-commands (``lease init``) are of this class too and start complete.
    """

    def __init__(self, *args: Any, command: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pending = command

    def complete(self) -> argparse.ArgumentParser:
        """Import the command's module and add its arguments (once); returns ``self``."""
        if self._pending is not None:
            command, self._pending = self._pending, None
            module = importlib.import_module(f"snowid.cli.{COMMANDS[command][0]}")
            arguments: dict[str, Arguments] = module.ARGUMENTS
            arguments[command](self)
        return self

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self.complete()
        return super().parse_known_args(args, namespace)

    def format_help(self) -> str:
        self.complete()
        return super().format_help()

    def format_usage(self) -> str:
        self.complete()
        return super().format_usage()


def add_commands(parser: argparse.ArgumentParser) -> None:
    """One sub-parser per command, each completed only when it is used."""
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=CommandParser
    )
    for name, (_, text) in COMMANDS.items():
        sub.add_parser(name, help=text, command=name)
