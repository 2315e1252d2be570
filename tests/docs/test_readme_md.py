"""README.md, the page a newcomer reads first (issue 25 §4): its quick start is the two
commands that work on a fresh machine, the second being what CI runs; its example runs and
shows what it says (tests/docs/snippets.py); it stays short, its topics one line each.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.docs import snippets
from tests.docs.snippets import ROOT, Example

PAGE = "README.md"
MAX_LINES = 250  # issue 25 §4: "at most about 250 lines"; the rest lives in docs/


def _section(title: str) -> str:
    text = (ROOT / PAGE).read_text()
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"README.md has no section {title!r}"
    return match.group(1)


def quick_start_commands() -> list[str]:
    """The command of each shell block of the Quick start, in order."""
    return re.findall(r"^```sh\n(.*?)\n```$", _section("Quick start"), re.M | re.S)


def test_the_quick_start_has_the_two_commands_for_a_fresh_machine() -> None:
    """Exactly these two: a change to either is tried from a fresh clone, then made here."""
    assert quick_start_commands() == [
        "python3 -m venv .venv && .venv/bin/pip install -e '.[all]' && .venv/bin/snowid serve",
        "scripts/test",
    ]
    _, test = quick_start_commands()
    assert os.access(ROOT / test, os.X_OK)


def test_ci_runs_the_quick_starts_test_command_and_nothing_else() -> None:
    _, test = quick_start_commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    steps = [line for line in ci if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert steps == [test]


def test_the_readme_stays_a_five_minute_read() -> None:
    lines = (ROOT / PAGE).read_text().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines: move a topic to docs/"


def test_each_topic_is_one_line_pointing_into_the_docs() -> None:
    """Adding a topic is adding one line ``- [Title](docs/page.md): what it covers``."""
    items = [line for line in _section("Documentation").splitlines() if line.startswith("- ")]
    assert len(items) >= 10
    for item in items:
        assert re.match(r"^- \[[^\]]+\]\((docs/[\w.-]+\.md|bench/README\.md|CHANGELOG\.md)\)", item)


def test_the_page_has_examples() -> None:
    assert snippets.blocks(PAGE, "python")
    assert snippets.commands(PAGE)


@pytest.mark.parametrize("block", snippets.python_params(PAGE))
def test_each_python_example_runs_and_shows_what_it_says(
    block: Example, tmp_path: Path, pg_url: str
) -> None:
    snippets.run_python(block, tmp_path, pg_url)


@pytest.mark.parametrize("command", snippets.command_params(PAGE))
def test_each_command_line_example_exits_0(command: Example, tmp_path: Path, pg_url: str) -> None:
    snippets.run_command(command, tmp_path, pg_url)
