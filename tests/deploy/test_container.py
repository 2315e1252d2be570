"""deploy/container: the Containerfile runs ``snowid serve`` as a non-root user, on the port it
exposes, with its lease state in a directory that user owns; its scripts pass shellcheck.

No tool checks a Containerfile without building it, and the build (debootstrap, podman) does
not fit the test budget: docs/deploy.md has the build and the smoke test, with their output.
What is read here is what the build would take from the file, checked against snowid.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.deploy import CONTAINER_USER, DEPLOY, serve_settings, state_dir_of
from tests.support.need import unavailable

CONTAINERFILE = DEPLOY / "container" / "Containerfile"
SCRIPTS = sorted((DEPLOY / "container").glob("*.sh"))


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments left out."""
    joined = re.sub(r"\\\n(\s*#.*\n)*", " ", text)
    found = []
    for raw in joined.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def single(name: str) -> str:
    (value,) = [rest for word, rest in instructions(CONTAINERFILE.read_text()) if word == name]
    return value


def image_environment() -> dict[str, str]:
    env: dict[str, str] = {}
    for word, rest in instructions(CONTAINERFILE.read_text()):
        if word == "ENV":
            env.update(item.split("=", 1) for item in shlex.split(rest))
    return env


def test_it_runs_snowid_serve_as_a_numbered_non_root_user() -> None:
    """A number, so that Kubernetes' runAsNonRoot can check it; the one the manifests name."""
    uid, _, gid = single("USER").partition(":")
    assert uid.isdigit(), single("USER")
    assert gid.isdigit(), single("USER")
    assert int(uid) != 0
    assert int(uid) == CONTAINER_USER
    assert [*eval_json(single("ENTRYPOINT")), *eval_json(single("CMD"))] == ["snowid", "serve"]
    assert single("STOPSIGNAL") == "SIGTERM"


def eval_json(text: str) -> list[str]:
    value = json.loads(text)
    assert isinstance(value, list), text  # the exec form: snowid is PID 1 and gets SIGTERM
    return value


def test_its_settings_are_snowids_and_it_exposes_the_port_it_serves_on() -> None:
    settings = serve_settings(["serve"], image_environment())
    assert settings.host == "0.0.0.0"
    assert single("EXPOSE") == str(settings.port)


def test_the_lease_state_directory_belongs_to_the_user() -> None:
    env = image_environment()
    state = state_dir_of(env["SNOWID_LEASE"])
    assert single("WORKDIR") == state
    uid = single("USER").split(":")[0]
    made = re.findall(r"install -d -o (\d+) -g (\d+) -m (0?700) (\S+)", CONTAINERFILE.read_text())
    assert (uid, uid, "0700", state) in made, made


def test_snowid_comes_from_the_wheelhouse_alone() -> None:
    """No package index during the build: only the wheels made on the host."""
    runs = " ".join(rest for word, rest in instructions(CONTAINERFILE.read_text()) if word == "RUN")
    assert "pip install" in runs
    assert "--no-index --find-links /tmp/wheelhouse" in runs


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_the_scripts_pass_shellcheck(script: Path) -> None:
    program = shutil.which("shellcheck")
    if program is None:
        unavailable("shellcheck is not installed (Debian package shellcheck)")
    done = subprocess.run(
        [program, str(script)], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def test_shellcheck_is_what_finds_a_mistake(tmp_path: Path) -> None:
    """The check can fail: an unquoted expansion in a copy of build.sh is reported."""
    program = shutil.which("shellcheck")
    if program is None:
        unavailable("shellcheck is not installed (Debian package shellcheck)")
    broken = tmp_path / "build.sh"
    broken.write_text((DEPLOY / "container" / "build.sh").read_text() + "echo $work\n")
    done = subprocess.run(
        [program, str(broken)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode != 0
    assert "SC2086" in done.stdout
