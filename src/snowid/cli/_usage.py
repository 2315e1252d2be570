"""argparse's usage errors in the catalog language, and never with a value the user typed.

argparse repeats a bad value in its message (``invalid choice: 'xx'``, ``unrecognized
arguments: postgresql://u:pw@h/db``, ``ambiguous option: --l=secret``), and a value
may be a password pasted in the wrong place. :class:`Parser` rewrites each known
message into a catalog one that names only options and sub-commands (which come from
this program, not from the user); a message it does not know becomes a generic one.
The language is read from ``--lang`` in the arguments before parsing, since a usage
error can come before ``--lang`` is parsed.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import NoReturn

from snowid._exceptions import SnowIdError
from snowid.i18n import LANGS, detect_lang, translate

__all__ = ["Parser", "lang_from_argv", "usage_lang"]

usage_lang: ContextVar[str] = ContextVar("usage_lang", default="en")
"""The language usage errors are written in (set by ``snowid.cli.main``)."""

_OPTION = re.compile(r"-{1,2}[A-Za-z][A-Za-z0-9-]{0,40}")


def lang_from_argv(argv: Sequence[str]) -> str:
    """The last valid ``--lang X`` / ``--lang=X`` in ``argv``, else the environment's."""
    found = None
    for index, arg in enumerate(argv):
        if arg == "--lang" and index + 1 < len(argv):
            value = argv[index + 1]
        elif arg.startswith("--lang="):
            value = arg.partition("=")[2]
        else:
            continue
        if value in LANGS:
            found = value
    return found or detect_lang()


def _names(text: str) -> str:
    """A list argparse built from option names or choices, without its quotes."""
    return text.replace("'", "")


def _shown(arg: str) -> str:
    """An argument as a message may show it: an option name, else only MASK."""
    name = arg.partition("=")[0]
    return name if _OPTION.fullmatch(name) else "…"


# (pattern of argparse's English text, catalog key, how the groups are shown)
_Rule = tuple[re.Pattern[str], str, Callable[[re.Match[str]], dict[str, str]]]
_RULES: list[_Rule] = [
    (
        re.compile(r"invalid choice: .* \(choose from (?P<choices>.*)\)", re.DOTALL),
        "cli.arg.invalid_choice",
        lambda m: {"choices": _names(m["choices"])},
    ),
    (re.compile(r"expected one argument"), "cli.arg.expected_one", lambda m: {}),
    (re.compile(r"expected at most one argument"), "cli.arg.expected_at_most_one", lambda m: {}),
    (re.compile(r"expected at least one argument"), "cli.arg.expected_at_least_one", lambda m: {}),
    (
        re.compile(r"expected (?P<count>\d+) arguments?"),
        "cli.arg.expected_n",
        lambda m: {"count": m["count"]},
    ),
    (re.compile(r"ignored explicit argument .*", re.DOTALL), "cli.arg.no_value", lambda m: {}),
    (re.compile(r"invalid \S+ value: .*", re.DOTALL), "cli.arg.invalid_value", lambda m: {}),
    (
        re.compile(r"not allowed with argument (?P<other>\S+)"),
        "cli.arg.not_allowed_with",
        lambda m: {"other": _shown(m["other"])},
    ),
    (
        re.compile(r"the following arguments are required: (?P<names>.*)", re.DOTALL),
        "cli.arg.required",
        lambda m: {"names": _names(m["names"])},
    ),
    (
        re.compile(r"one of the arguments (?P<names>.*) is required", re.DOTALL),
        "cli.arg.one_required",
        lambda m: {"names": _names(m["names"])},
    ),
    (
        re.compile(r"ambiguous option: (?P<option>.*) could match (?P<matches>.*)", re.DOTALL),
        "cli.arg.ambiguous",
        lambda m: {"option": _shown(m["option"]), "matches": m["matches"]},
    ),
]
_ARGUMENT = re.compile(r"argument (?P<name>[^:]+): (?P<rest>.*)", re.DOTALL)


def localize(message: str, lang: str) -> str:
    """argparse's ``message`` in ``lang``, with no value the user typed in it."""
    name = None
    match = _ARGUMENT.fullmatch(message)
    if match is not None:
        name, message = _shown_name(match["name"]), match["rest"]
    for pattern, key, groups in _RULES:
        found = pattern.fullmatch(message)
        if found is not None:
            text = translate(key, lang, **groups(found))
            break
    else:
        text = translate("cli.arg.invalid", lang)
    return text if name is None else translate("cli.arg.named", lang, name=name, message=text)


def _shown_name(text: str) -> str:
    """An action's name: ``--lang``, ``-h/--help``, ``URL`` or ``COMMAND`` (ours)."""
    parts = text.split("/")
    if all(_OPTION.fullmatch(part) or re.fullmatch(r"[A-Za-z_]{1,20}", part) for part in parts):
        return text
    return "…"


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors follow :data:`usage_lang` and hide values.

    Sub-command parsers are of the same class (argparse makes them with ``type(self)``).
    """

    def format_usage(self) -> str:
        formatter = self._get_formatter()
        prefix = translate("cli.usage", usage_lang.get())
        formatter.add_usage(self.usage, self._actions, self._mutually_exclusive_groups, prefix)
        return formatter.format_help()

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            lang = usage_lang.get()
            shown = " ".join(_shown(arg) for arg in extras)
            self._fail(translate("cli.arg.unrecognized", lang, args=shown))
        return parsed

    def error(self, message: str) -> NoReturn:
        self._fail(localize(message, usage_lang.get()))

    def usage_error(self, error: SnowIdError) -> NoReturn:
        """Arguments that parse but do not go together (exit 2, like argparse's own)."""
        self._fail(error.message(usage_lang.get()))

    def _fail(self, text: str) -> NoReturn:
        self.print_usage(sys.stderr)
        line = translate("cli.usage_error", usage_lang.get(), prog=self.prog, message=text)
        self.exit(2, line + "\n")
