"""The README's library and command-line examples run as written, and say what they print.

Each ```python block runs in a fresh interpreter (the process-wide generator is
per process), with the few things a reader supplies made concrete: a lease URL that
points at a temporary directory or a fresh table of the test database, ``start``/``end``
for the time-range examples, an endless loop cut to three ids. A line ``expr  # value``
whose comment is a Python literal (or a ``Parts(...)`` record) must evaluate to it.

Each ``$ snowid …`` line of the ```console blocks runs as a command: it must exit 0
(``snowid serve`` is started, asked for /readyz, and stopped).
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
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.pg import PG, fresh_table
from tests.support.web import free_port

README = Path(__file__).resolve().parents[2] / "README.md"
TIMEOUT_S = 60
README_PG = "postgresql://127.0.0.1/test"  # the store the README's examples name


def blocks(language: str) -> list[tuple[str, str]]:
    """(section heading, code) of every fenced block in ``language``."""
    heading, out, lines = "", [], README.read_text().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("#"):
            heading = lines[i].lstrip("# ").strip()
        if lines[i].strip() == f"```{language}":
            j = lines.index("```", i + 1)
            out.append((heading, "\n".join(lines[i + 1 : j])))
            i = j
        i += 1
    return out


PYTHON = blocks("python")
CONSOLE = blocks("console")
# Blocks that need a framework's settings module rather than a script: their integration tests
# (tests/integrations/test_django*.py) run the same code in a configured project.
# The async and Alembic blocks build on the SQLAlchemy model (async) or live in an env.py (Alembic):
# tests/integrations/test_sqlalchemy_async.py and test_alembic.py run them against PostgreSQL,
# and tests/docs/test_readme_types.py type-checks the SQLAlchemy ones.
NOT_A_SCRIPT = {
    "Django (`pip install 'snowid[django]'`, Django 5.2 LTS or later)",
    "Async SQLAlchemy (`pip install 'snowid[sqlalchemy]' asyncpg`, or `[postgres]` for psycopg)",
    "Alembic (`pip install alembic`)",
}


def _check_comments(code: str) -> str:
    """Turn ``expr  # literal`` lines into asserts; leave every other line as it is."""
    out = []
    for line in code.splitlines():
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
        return ast.literal_eval(head)
    except (ValueError, SyntaxError):
        return None


def _is_expression(text: str) -> bool:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    return len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr)


PRELUDE = """
import asyncio, itertools
def _check(value, expected):
    if isinstance(expected, str) and expected.startswith("Parts("):
        assert repr(value) == expected, (value, expected)
    elif isinstance(expected, str) and "…" in expected:
        head, tail = expected.split("…")
        assert isinstance(value, str) and value.startswith(head) and value.endswith(tail), value
    else:
        assert value == expected, (value, expected)
"""


def _script(heading: str, code: str, state_dir: Path, pg_url: str) -> str:
    code = code.replace(README_PG, pg_url)
    code = code.replace("postgresql://db.internal/app", f"file://{state_dir}?range=0-3")
    code = code.replace("for sid in gen: ...", "for sid in itertools.islice(gen, 3): ...")
    setup = ""
    if "snowid.next_id" in code and "configure(" not in code:
        setup += f"import snowid\nsnowid.configure(lease='file://{state_dir}?range=0-3')\n"
    if "created_between(" in code:
        setup += "start, end = '2024-05-01T00:00:00Z', '2024-05-02T00:00:00Z'\n"
    if "class Hero(SQLModel" in code:
        setup += (
            "import snowid\nfrom snowid import SnowId\nfrom sqlmodel import Field, SQLModel\n"
            "from snowid.sqlalchemy import SnowIdType\n"
        )
    body = _check_comments(code)
    return f"{PRELUDE}\n{setup}\nasync def _main():\n" + _indent(body) + "\nasyncio.run(_main())\n"


def _indent(code: str) -> str:
    return "\n".join(f"    {line}" if line.strip() else "" for line in code.splitlines()) + (
        "\n    pass"
    )


@pytest.fixture
def pg_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh lease table for the examples that name the README's store; others get none."""
    text = request.node.callspec.params.get("code") or request.node.callspec.params["command"]
    if README_PG not in text:
        yield README_PG  # nothing to replace
        return
    with fresh_table() as table:
        yield f"{PG}?table={table}"


def _marks(example: str) -> list[pytest.MarkDecorator]:
    """An example that uses the PostgreSQL server or starts the service is slow."""
    return [pytest.mark.slow] if README_PG in example or "snowid serve" in example else []


@pytest.mark.parametrize(
    ("heading", "code"),
    [pytest.param(h, c, id=f"{i}-{h[:30]}", marks=_marks(c)) for i, (h, c) in enumerate(PYTHON)],
)
def test_each_python_example_runs_and_shows_what_it_says(
    heading: str, code: str, tmp_path: Path, pg_url: str
) -> None:
    if heading in NOT_A_SCRIPT:
        pytest.skip("needs a Django project, the SQLAlchemy model or an env.py: see NOT_A_SCRIPT")
    if code.lstrip().startswith("SnowId.from_parts(timestamp=None, datacenter=1, machine=32)"):
        code = (
            "from snowid import SnowId\nfrom snowid.errors import OutOfRangeError\n"
            "try:\n    " + code.splitlines()[0] + "\nexcept OutOfRangeError as e:\n"
            "    assert str(e) == 'machine 32 is out of range 0..31', str(e)\n"
            "else:\n    raise AssertionError('no error')"
        )
    script = _script(heading, code, tmp_path / "state", pg_url)
    (tmp_path / "state").mkdir()
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 0, f"{heading}:\n{script}\n{result.stderr}"


def _commands() -> list[tuple[str, str]]:
    out = []
    for heading, code in CONSOLE:
        for line in code.splitlines():
            if line.startswith("$ snowid "):
                out.append((heading, line[2:].split("  #")[0].strip()))
    return out


@pytest.mark.parametrize(
    ("heading", "command"),
    [pytest.param(h, c, id=c[:60], marks=_marks(c)) for h, c in _commands()],
)
def test_each_command_line_example_exits_0(
    heading: str, command: str, tmp_path: Path, pg_url: str
) -> None:
    del heading
    state = tmp_path / "state"
    state.mkdir()
    command = command.replace("/var/lib/snowid", str(state))
    command = command.replace(README_PG, pg_url)
    if "sql postgres --apply" in command:
        schema = f"readme_{uuid.uuid4().hex[:8]}"
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
    assert result.returncode == 0, f"{command}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"


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
