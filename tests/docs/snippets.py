"""Run the examples of a Markdown page as written, and check that they show what they say.

Each page's test (``tests/docs/test_<page>_md.py``) collects its blocks here:

- every ```` ```python ```` block runs in a fresh interpreter (the process-wide generator is per
  process), with the few things a reader supplies made concrete: a lease URL that points at a
  temporary directory or a fresh table of the test database, ``start``/``end`` for the
  time-range examples, an endless loop cut to three ids. A line ``expr  # value`` whose comment
  is a Python literal (or a ``Parts(...)`` record) must evaluate to it, and an expression
  followed by a line ``# snowid.errors.SomeError: message`` must raise that error with that
  message;
- every ``$ snowid …`` line of the ```` ```console ```` blocks runs as a command and must exit 0
  (``snowid serve`` is started, asked for /readyz, and stopped).

A block that cannot run as a script (it needs a Django project or an Alembic ``env.py``) is left
out by its page's test, which names the test that runs the same code instead.
"""

from __future__ import annotations

import ast
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.pg import PG
from tests.support.web import free_port

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 60
EXAMPLE_PG = "postgresql://127.0.0.1/test"  # the store the examples name when they run against one
EXAMPLE_FLEET = "postgresql://db.internal/app"  # an application's store: a file lease here


@dataclass(frozen=True)
class Example:
    """One fenced block (or one command line of a console block) of a page."""

    page: str
    heading: str
    line: int
    code: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line} ({self.heading})"


def blocks(page: str, language: str) -> list[Example]:
    """Every fenced block in ``language`` of ``page`` (a path from the repository's root)."""
    heading, out, lines = "", [], (ROOT / page).read_text().splitlines()
    i = 0
    while i < len(lines):
        fence = lines[i].strip()
        if fence.startswith("```"):  # a block: its lines are never headings
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
            if fence == f"```{language}":
                out.append(Example(page, heading, i + 2, "\n".join(lines[i + 1 : end])))
            i = end + 1
            continue
        if lines[i].startswith("#"):
            heading = lines[i].lstrip("# ").strip()
        i += 1
    return out


def commands(page: str) -> list[Example]:
    """Every ``$ snowid …`` line of the console blocks of ``page``, its comment cut off."""
    out = []
    for block in blocks(page, "console"):
        for offset, line in enumerate(block.code.splitlines()):
            if line.startswith("$ snowid "):
                command = line[2:].split("  #")[0].strip()
                out.append(Example(page, block.heading, block.line + offset, command))
    return out


def _marks(example: Example) -> list[pytest.MarkDecorator]:
    """An example that uses the PostgreSQL server or starts the service is slow."""
    slow = EXAMPLE_PG in example.code or "snowid serve" in example.code
    return [pytest.mark.slow] if slow else []


def python_params(page: str, left_out: dict[str, str] | None = None) -> list[object]:
    """pytest params of the page's python blocks, but those under a heading in ``left_out``."""
    return [
        pytest.param(block, id=f"L{block.line}-{block.heading[:30]}", marks=_marks(block))
        for block in blocks(page, "python")
        if block.heading not in (left_out or {})
    ]


def command_params(page: str) -> list[object]:
    return [
        pytest.param(command, id=command.code[:60], marks=_marks(command))
        for command in commands(page)
    ]


def check_left_out(page: str, left_out: dict[str, str]) -> None:
    """Each block a page's test leaves out is still on the page, and the test that runs its
    code instead exists: a stale entry would hide a block, or promise a test that is gone."""
    headings = {block.heading for block in blocks(page, "python")}
    for heading, test in left_out.items():
        assert heading in headings, f"{page} has no python block under {heading!r}"
        assert list(ROOT.glob(test)), f"{test}, which runs {heading!r} of {page}, is missing"


# --- python blocks --------------------------------------------------------------------------


def check_comments(code: str) -> str:
    """Turn ``expr  # literal`` lines into checks, and ``expr`` followed by
    ``# snowid.errors.Name: message`` into a check that it raises; leave the rest alone."""
    out: list[str] = []
    lines = code.splitlines()
    for number, line in enumerate(lines):
        raised = re.match(r"^# (snowid\.errors\.\w+): (.+)$", line)
        if raised and out and _is_expression(lines[number - 1]):
            out[-1] = f"_raises(lambda: {lines[number - 1]}, {raised[1]!r}, {raised[2]!r})"
            continue
        match = re.match(r"^(?P<expr>\S.*?)\s{2,}#\s*(?P<value>.+)$", line)
        expected = _literal(match.group("value")) if match else None
        if match and expected is not None and _is_expression(match.group("expr")):
            out.append(f"_check({match.group('expr')}, {expected!r})")
        else:
            out.append(line)
    return "\n".join(out)


def _literal(comment: str) -> object | None:
    head = re.split(r"\s{2,}|\s\(|: ", comment, maxsplit=1)[0].strip()
    if head.startswith("Parts("):
        return head
    try:
        value: object = ast.literal_eval(head)
    except (ValueError, SyntaxError):
        return None
    return value


def _is_expression(text: str) -> bool:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    return len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr)


PRELUDE = """
import asyncio, importlib, itertools
def _check(value, expected):
    if isinstance(expected, str) and expected.startswith("Parts("):
        assert repr(value) == expected, (value, expected)
    elif isinstance(expected, str) and "…" in expected:
        head, tail = expected.split("…")
        assert isinstance(value, str) and value.startswith(head) and value.endswith(tail), value
    else:
        assert value == expected, (value, expected)
def _raises(call, name, message):
    module, _, cls = name.rpartition(".")
    error = getattr(importlib.import_module(module), cls)
    try:
        call()
    except error as e:
        assert str(e) == message, (str(e), message)
    else:
        raise AssertionError(f"no {name}")
"""


def script(code: str, state_dir: Path, pg_url: str) -> str:
    """The block as a script that runs on its own, its shown values checked."""
    code = code.replace(EXAMPLE_PG, pg_url)
    code = code.replace(EXAMPLE_FLEET, f"file://{state_dir}?range=0-3")
    code = code.replace("for sid in gen: ...", "for sid in itertools.islice(gen, 3): ...")
    setup = ""
    if "snowid.next_id" in code and "configure(" not in code:
        setup += f"import snowid\nsnowid.configure(lease='file://{state_dir}?range=0-3')\n"
    if "created_between(" in code:
        setup += "start, end = '2024-05-01T00:00:00Z', '2024-05-02T00:00:00Z'\n"
    if "SnowId.from_parts" in code and "import SnowId" not in code:
        setup += "from snowid import SnowId\n"
    if "class Hero(SQLModel" in code:
        setup += (
            "import snowid\nfrom snowid import SnowId\nfrom sqlmodel import Field, SQLModel\n"
            "from snowid.sqlalchemy import SnowIdType\n"
        )
    body = check_comments(code)
    return f"{PRELUDE}\n{setup}\nasync def _main():\n" + _indent(body) + "\nasyncio.run(_main())\n"


def _indent(code: str) -> str:
    return "\n".join(f"    {line}" if line.strip() else "" for line in code.splitlines()) + (
        "\n    pass"
    )


def run_python(block: Example, tmp_path: Path, pg_url: str) -> None:
    """Run one python block; fail with the script and its error output."""
    state = tmp_path / "state"
    state.mkdir(parents=True)
    source = script(block.code, state, pg_url)
    result = subprocess.run(
        [sys.executable, "-c", source],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 0, f"{block}:\n{source}\n{result.stderr}"


# --- command lines --------------------------------------------------------------------------


def run_command(example: Example, tmp_path: Path, pg_url: str) -> None:
    """Run one ``snowid …`` line with this interpreter's snowid; it must exit 0."""
    state = tmp_path / "state"
    state.mkdir(parents=True)
    command = example.code.replace("/var/lib/snowid", str(state))
    command = command.replace(EXAMPLE_PG, pg_url)
    if "sql postgres --apply" in command:
        schema = f"docs_{uuid.uuid4().hex[:8]}"
        subprocess.run(["psql", PG, "-qc", f"CREATE SCHEMA {schema}"], check=True)
        command = re.sub(r"postgresql://\S+", f"{PG}?options=-csearch_path%3D{schema}", command)
    command = command.replace("> snowid.sql", f"> {tmp_path}/snowid.sql")
    argv = ["bash", "-c", command.replace("snowid ", f"{sys.executable} -m snowid ", 1)]
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path), "NO_COLOR": "1"}
    if command.startswith("snowid serve"):
        _serve_then_stop(command, env, tmp_path / "serve.log")
        return
    result = subprocess.run(
        argv, capture_output=True, text=True, timeout=TIMEOUT_S, env=env, check=False
    )
    assert result.returncode == 0, (
        f"{example}\n{command}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
    )


def _serve_then_stop(command: str, env: dict[str, str], log: Path) -> None:
    env = {**env, "SNOWID_DRAIN_SECONDS": "0"}  # stop at once: the drain has its own tests
    port = free_port()
    args = [*command.split()[2:], "--port", str(port)]
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "snowid", "serve", *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=sink,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as r:
                    assert r.status == 200
                    return
            except OSError:
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "snowid serve never became ready"
                time.sleep(0.2)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
