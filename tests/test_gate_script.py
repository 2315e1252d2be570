"""scripts/test and .ci/run pass shellcheck, and CI runs the gate as it is."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.need import unavailable

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("script", ["scripts/test", ".ci/run"])
def test_the_gate_scripts_pass_shellcheck(script: str) -> None:
    program = shutil.which("shellcheck")
    if program is None:
        unavailable("shellcheck is not installed (Debian package shellcheck)")
    done = subprocess.run(
        [program, str(ROOT / script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def test_ci_runs_scripts_test_with_no_option() -> None:
    """The busy mode and the worker count are options on top; CI runs the plain gate."""
    commands = [
        line.strip()
        for line in (ROOT / ".ci/run").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert commands[-1] == "scripts/test"
