"""Standard output that cannot be written: a full disk, a closed descriptor, a reader gone.

Every command that prints ends with one ``Error: …`` line and exit 1 when its output
cannot be written (issue 8, item 4); a reader that leaves early (``| head -1``) is not
an error and stays exit 0. The shell runs the commands so that ``>&-`` and
``> /dev/full`` mean exactly what they mean to an operator.
"""

from __future__ import annotations

import errno
import io
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from snowid.cli import main

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")

SNOWID = f"{shlex.quote(sys.executable)} -m snowid"
FIXED = "--datacenter 1 --machine 1"


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "SNOWID_LANG": "en"},
        check=False,
        timeout=60,
    )


COMMANDS = [
    "decode 1",
    "decode 1 --json",
    "explain 4194439168",
    "compose --datacenter 1 --machine 1 --timestamp 1288834975657",
    "compose --datacenter 1 --machine 1 --json",
    f"generate --count 100000 {FIXED}",
    f"generate --count 100000 {FIXED} --json",
    f"generate --count 1 {FIXED}",
    "lease init file://{state}",
    "lease status file://{state} --all",
    "lease status file://{state} --json",
    "generate --count 3 --lease file://{state}?range=0-1",
    "--help",
    "--version",
]


@pytest.mark.parametrize("redirect", ["> /dev/full", ">&-"])
@pytest.mark.parametrize("command", COMMANDS)
def test_unwritable_stdout_is_one_error_line_and_exit_1(
    tmp_path: Path, command: str, redirect: str
) -> None:
    if command in ("--help", "--version") and redirect == ">&-":
        pytest.skip("argparse prints to stderr when stdout is closed")
    argv = command.format(state=tmp_path / "state")
    done = _shell(f"{SNOWID} {argv} {redirect}", tmp_path)
    assert done.returncode == 1, done.stderr
    full, closed = "the disk is full (ENOSPC)", "standard output is closed (EBADF)"
    reason = full if "full" in redirect else closed
    assert done.stderr == f"Error: cannot write the output: {reason}\n"


def test_the_message_is_vietnamese_under_lang_vi(tmp_path: Path) -> None:
    full = _shell(f"{SNOWID} --lang vi generate --count 100000 {FIXED} > /dev/full", tmp_path)
    closed = _shell(f"{SNOWID} decode 1 --lang vi >&-", tmp_path)
    assert (full.returncode, closed.returncode) == (1, 1)
    assert full.stderr == "Lỗi: không ghi được kết quả ra: ổ đĩa đã hết chỗ trống (ENOSPC)\n"
    assert closed.stderr.startswith("Lỗi: không ghi được kết quả ra: đầu ra chuẩn (stdout)")


def test_a_reader_that_leaves_early_is_not_an_error(tmp_path: Path) -> None:
    done = _shell(
        f"{SNOWID} generate --count 100000 {FIXED} | head -1; echo ${{PIPESTATUS[0]}}", tmp_path
    )
    first, status = done.stdout.splitlines()
    assert int(first) > 0
    assert status == "0"
    assert done.stderr == ""


def test_an_unwritable_stderr_too_still_exits_1_without_traceback(tmp_path: Path) -> None:
    done = _shell(f"{SNOWID} decode 1 > /dev/full 2> /dev/full; echo $?", tmp_path)
    assert done.stdout == "1\n"


class _FullDisk(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_in_process_a_failed_write_is_reported_not_raised(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdout", _FullDisk())
    assert main(["--lang", "en", "decode", "4194439168"]) == 1
    assert capsys.readouterr().err == "Error: cannot write the output: the disk is full (ENOSPC)\n"
    monkeypatch.setattr(sys, "stdout", None)
    assert main(["--lang", "en", "decode", "4194439168"]) == 1
    assert "standard output is closed" in capsys.readouterr().err


def test_an_oserror_that_is_not_the_output_is_not_blamed_on_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Only a failure of stdout itself becomes the output error; another OSError is a bug."""
    import snowid.cli._compose as compose

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "not stdout")

    monkeypatch.setattr(compose, "breakdown", broken)
    with pytest.raises(OSError, match="not stdout"):
        main(["explain", "4194439168"])
