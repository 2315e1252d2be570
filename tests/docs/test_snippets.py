"""The runner of the docs' examples (tests/docs/snippets.py) can fail: a value shown wrongly, an
error that is not raised or says something else, a command that exits non-zero."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs import snippets
from tests.docs.snippets import Example


def _run(code: str, tmp_path: Path) -> None:
    snippets.run_python(Example("x.md", "h", 1, code), tmp_path, snippets.EXAMPLE_PG)


def test_a_shown_value_is_checked(tmp_path: Path) -> None:
    _run("from snowid import SnowId\nint(SnowId(42))  # 42", tmp_path / "good")
    with pytest.raises(AssertionError, match=r"\(42, 43\)"):
        _run("from snowid import SnowId\nint(SnowId(42))  # 43", tmp_path / "bad")


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("SnowId.from_parts(timestamp=None, datacenter=1, machine=31)", "no snowid.errors"),
        ("SnowId.from_parts(timestamp=None, datacenter=1, machine=33)", "machine 33"),
    ],
)
def test_a_shown_error_is_checked(code: str, words: str, tmp_path: Path) -> None:
    shown = "# snowid.errors.OutOfRangeError: machine 32 is out of range 0..31"
    _run(f"SnowId.from_parts(timestamp=None, datacenter=1, machine=32)\n{shown}", tmp_path / "ok")
    with pytest.raises(AssertionError, match=words):
        _run(f"{code}\n{shown}", tmp_path / "bad")


def test_a_command_must_exit_0(tmp_path: Path) -> None:
    snippets.run_command(Example("x.md", "h", 1, "snowid decode 42"), tmp_path / "ok", "")
    with pytest.raises(AssertionError, match="decode abc"):
        snippets.run_command(Example("x.md", "h", 1, "snowid decode abc"), tmp_path / "bad", "")


def test_blocks_are_found_under_their_headings_and_code_is_never_a_heading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snippets, "ROOT", tmp_path)
    (tmp_path / "p.md").write_text(
        "# Page\n## One\n```python\n# settings.py\nx = 1\n```\n"
        "```sh\n# not a heading\n```\n```console\n$ snowid layouts\n$ ls\n```\n"
    )
    (python,) = snippets.blocks("p.md", "python")
    assert (python.heading, python.line, python.code) == ("One", 4, "# settings.py\nx = 1")
    (command,) = snippets.commands("p.md")
    assert (command.heading, command.line, command.code) == ("One", 11, "snowid layouts")
