"""No documented command line carries a password (issue 16 §4).

Every local user can read a process's arguments (``ps``, ``/proc/PID/cmdline``), so the
README and docs/*.md show passwords only in files (``password_file=``, libpq's
``passfile=`` / ``PGPASSFILE``) or in the ``SNOWID_LEASE`` variable. A command line here is
a line of a code block (fenced or indented) or an inline code span that runs ``snowid`` or
passes ``--lease``; a password is a URL's ``user:password@`` (or ``:password@``) or a
``password=`` / ``sslpassword=`` query parameter.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_COMMAND = re.compile(r"(^|[\s`$'\"(])snowid\s|--lease\b|--apply\b")
_PASSWORD = re.compile(
    r"[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"`/@?#]*:[^\s'\"`@]+@"  # scheme://user:pw@, ://:pw@
    r"|[?&](ssl)?password=[^&\s'\"`]"  # libpq's password query parameters
)
_INLINE = re.compile(r"`([^`\n]+)`")


def command_lines(text: str) -> list[tuple[int, str]]:
    """(line number, text) of every command line of a Markdown document."""
    found: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        block = fenced or line.startswith(("    ", "\t"))
        pieces = [line] if block else _INLINE.findall(line)
        found.extend((number, piece) for piece in pieces if _COMMAND.search(piece))
    return found


def passwords_on_command_lines(text: str) -> list[str]:
    return [
        f"line {number}: {line.strip()}"
        for number, line in command_lines(text)
        if _PASSWORD.search(line)
    ]


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda path: path.name)
def test_no_documented_command_line_carries_a_password(path: Path) -> None:
    assert passwords_on_command_lines(path.read_text()) == []


def test_the_documents_have_command_lines() -> None:
    """The scan reads what it should: the README and the pages with lease URLs show commands."""
    for name in (
        "README.md",
        "leases.md",
        "cli.md",
        "lease-redis.md",
        "lease-mysql.md",
        "lease-etcd.md",
        "lease-zookeeper.md",
    ):
        path = next(path for path in DOCUMENTS if path.name == name)
        assert command_lines(path.read_text()), name


@pytest.mark.parametrize(
    "text",
    [
        "    snowid serve --lease 'redis://:PASSWORD@redis.internal:6379/0?range=0-1023'\n",
        "```\n$ snowid lease init mysql://fleet:s3cret@db/app\n```\n",
        "Run `snowid generate --lease postgresql://u:pw@h/db` to try it.\n",
        "Run `snowid lease status 'postgresql://u@h/db?password=pw'`.\n",
        "```console\nSNOWID_LEASE='rediss://app:pw@h/0' snowid serve\n```\n",
        "    gunicorn --lease mysql://u:pw@h/db\n",
    ],
)
def test_the_scan_finds_a_password_on_a_command_line(text: str) -> None:
    """The check can fail: each of these puts a password where ``ps`` shows it."""
    assert passwords_on_command_lines(text) != []


@pytest.mark.parametrize(
    "text",
    [
        "    snowid serve --lease 'redis://h:6379/0?password_file=/run/secrets/redis'\n",
        "    PGPASSFILE=/run/secrets/pgpass snowid lease init 'postgresql://fleet@db/app'\n",
        "| `mysql://user:pw@host/db` | a URL in a table, not a command |\n",
        "```python\nopen_lease('postgresql://u:pw@h/db')\n```\n",
    ],
)
def test_the_scan_leaves_files_and_non_commands_alone(text: str) -> None:
    assert passwords_on_command_lines(text) == []
