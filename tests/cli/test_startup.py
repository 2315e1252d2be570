"""The commands that read ids start light: no web server, lease store, asyncio or driver.

Each command runs in a fresh interpreter that then lists ``sys.modules``: a sub-command's
module is imported only when that command is parsed (``snowid.cli._commands``), so a
``snowid decode`` pays neither for ``snowid serve``'s imports nor for ``snowid lease``'s.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from snowid.cli import build_parser
from snowid.cli._commands import COMMANDS

# Packages that no id-reading command may load (a module or any of its submodules).
HEAVY = (
    "snowid.web",
    "snowid.client",
    "snowid.lease",
    "snowid.cli._serve",
    "asyncio",
    "starlette",
    "uvicorn",
    "jinja2",
    "psycopg",
    "psycopg2",
    "psycopg_pool",
    "redis",
    "pymysql",
    "MySQLdb",
    "sqlalchemy",
    "pydantic",
    "django",
)

_PROBE = """
import contextlib, io, json, sys
from snowid.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exit:
        code = exit.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def loaded_after(*argv: str) -> tuple[object, list[str]]:
    """The exit code of ``snowid ARGV`` in a fresh interpreter and the modules it loaded."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    result = json.loads(done.stdout)
    return result["code"], result["modules"]


def heavy(modules: list[str]) -> list[str]:
    return [name for name in modules if any(name == h or name.startswith(f"{h}.") for h in HEAVY)]


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["decode", "1"], 0),
        (["decode", "4194439168", "--json", "--steps"], 0),
        (["decode", "1", "--layout", "discord", "--lang", "vi"], 0),
        (["readings", "4194439168"], 0),
        (["encode", "4194439168"], 0),
        (["compose", "--datacenter", "1", "--machine", "2"], 0),
        (["explain", "4194439168"], 0),
        (["layouts"], 0),
        (["range", "2020-01-01", "2020-01-02"], 0),
        (["decode", "-1"], 1),  # a snowid error: message from the catalog
        (["decode"], 2),  # a usage error
        (["--help"], 0),  # lists every command
        (["decode", "--help"], 0),
    ],
)
def test_an_id_reading_command_loads_no_server_store_or_driver(argv: list[str], code: int) -> None:
    exit_code, modules = loaded_after(*argv)
    assert exit_code == code
    assert "snowid.cli" in modules
    assert heavy(modules) == []


def test_the_probe_sees_what_serve_loads() -> None:
    """The probe can see those modules: asking for the server's help loads the web package."""
    exit_code, modules = loaded_after("serve", "--help")
    assert exit_code == 0
    assert "snowid.web" in modules
    assert "snowid.cli._serve" in modules


def test_every_command_in_the_table_is_defined_by_its_module() -> None:
    """The table and the modules agree: no command listed without arguments, none forgotten."""
    modules = {module for module, _ in COMMANDS.values()}
    defined = {
        name: module
        for module in modules
        for name in importlib.import_module(f"snowid.cli.{module}").ARGUMENTS
    }
    assert defined == {name: module for name, (module, _) in COMMANDS.items()}


def test_top_level_help_lists_every_command_with_its_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # one line per command
    text = build_parser().format_help()
    for name, (_, line) in COMMANDS.items():
        assert f"    {name} " in text
        assert f" {line}\n" in text
