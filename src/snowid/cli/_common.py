"""What the sub-commands share: the handler type, JSON output, colour decisions."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import TextIO

Handler = Callable[[argparse.Namespace, str], int]


def add_lang_option(parser: argparse.ArgumentParser) -> None:
    """``--lang`` after the sub-command too (``snowid compose … --lang vi``)."""
    parser.add_argument("--lang", choices=("en", "vi"), default=argparse.SUPPRESS)


def print_json(value: object, stream: TextIO | None = None) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2), file=stream or sys.stdout)


def use_colour(stream: TextIO | None = None) -> bool:
    """Colour only on a terminal, never with NO_COLOR set (https://no-color.org)."""
    if "NO_COLOR" in os.environ:
        return False
    target = stream or sys.stdout
    return hasattr(target, "isatty") and target.isatty()
