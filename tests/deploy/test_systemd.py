"""deploy/systemd: the unit passes ``systemd-analyze verify`` with nothing to say, and what it
starts is a ``snowid serve`` whose settings come from the environment file.

``systemd-analyze verify`` exits 0 on many mistakes (``Type=bogus`` is "ignoring" to it), so
any line it prints is a failure here, and a unit with ``Type=bogus`` proves the check sees it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.deploy import (
    DEPLOY,
    STOP_ALLOWANCE_S,
    check_lease_url,
    drain_seconds,
    serve_settings,
    state_dir_of,
)
from tests.support.need import unavailable

UNIT = DEPLOY / "systemd" / "snowid.service"
ENV_FILE = DEPLOY / "systemd" / "snowid.env"
SHIPPED_SNOWID = "/opt/snowid/bin/snowid"
CREDENTIALS = "/run/credentials/snowid.service/"


def directives(text: str) -> dict[str, list[str]]:
    """Each directive's values in order (comments and section headers left out)."""
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.startswith(("#", ";", "[")) or "=" not in line:
            continue
        key, value = line.split("=", 1)
        found.setdefault(key.strip(), []).append(value.strip())
    return found


def render(text: str, *, credentials: bool = False) -> str:
    """The unit with an ExecStart that exists here (this environment's snowid), and with
    the commented credential lines switched on when asked."""
    here = Path(sys.executable).parent / "snowid"
    assert here.exists(), here
    rendered = text.replace(SHIPPED_SNOWID, str(here))
    if credentials:
        rendered = re.sub(r"^#((LoadCredential|Environment)=)", r"\1", rendered, flags=re.M)
    return rendered


def verify(text: str, directory: Path) -> list[str]:
    """Every line ``systemd-analyze verify`` prints for the unit, on either stream."""
    program = shutil.which("systemd-analyze")
    if program is None:
        unavailable("systemd-analyze is not installed (Debian package systemd)")
    unit = directory / "snowid.service"  # the name its credential paths assume
    unit.write_text(text)
    done = subprocess.run(
        [program, "verify", str(unit)], capture_output=True, text=True, timeout=60, check=False
    )
    return [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]


@pytest.mark.parametrize("credentials", [False, True], ids=["as-shipped", "with-credentials"])
def test_systemd_analyze_verify_prints_nothing_for_the_unit(
    tmp_path: Path, credentials: bool
) -> None:
    assert verify(render(UNIT.read_text(), credentials=credentials), tmp_path) == []


def test_the_verify_check_fails_on_a_bogus_service_type(tmp_path: Path) -> None:
    """systemd-analyze exits 0 here; the line it prints is what fails the check."""
    bogus = render(UNIT.read_text()).replace("Type=exec", "Type=bogus")
    assert "Type=bogus" in bogus
    lines = verify(bogus, tmp_path)
    assert any("Failed to parse service type" in line and "bogus" in line for line in lines), lines


def test_the_unit_starts_snowid_serve_with_settings_from_the_environment_file() -> None:
    """The lease URL (and so any password) is in the EnvironmentFile, never on ExecStart."""
    unit = directives(UNIT.read_text())
    assert unit["EnvironmentFile"] == ["/etc/snowid/snowid.env"]
    (exec_start,) = unit["ExecStart"]
    program, *args = exec_start.split()
    assert program == SHIPPED_SNOWID
    assert not any(arg.startswith("--lease") or "://" in arg for arg in args), args
    settings = serve_settings(args, env_file_values(ENV_FILE.read_text()))
    assert settings.lease_url is not None


def env_file_values(text: str, *, commented: bool = False) -> dict[str, str]:
    """NAME=value lines (with the commented examples too when asked)."""
    pattern = r"^#?(SNOWID_\w+)=(.*)$" if commented else r"^(SNOWID_\w+)=(.*)$"
    return dict(re.findall(pattern, text, flags=re.M))


def test_the_file_lease_lives_in_the_state_directory() -> None:
    unit = directives(UNIT.read_text())
    assert unit["DynamicUser"] == ["yes"]
    (state,) = unit["StateDirectory"]
    lease = env_file_values(ENV_FILE.read_text())["SNOWID_LEASE"]
    assert state_dir_of(lease) == f"/var/lib/{state}"
    assert unit["WorkingDirectory"] == [f"/var/lib/{state}"]


def test_every_lease_url_in_the_environment_file_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one in use and the commented ones for a fleet: each is a URL snowid takes, and
    each password file it names is a credential the unit loads (here a file of that name
    stands in for systemd's copy)."""
    urls = re.findall(r"^#?SNOWID_LEASE=(.*)$", ENV_FILE.read_text(), flags=re.M)
    assert len(urls) == 4, urls
    loaded = {
        value.split(":", 1)[0]
        for value in directives(render(UNIT.read_text(), credentials=True))["LoadCredential"]
    }
    for url in urls:
        for path in re.findall(r"password_file=([^&]+)", url):
            assert path.startswith(CREDENTIALS), path
            name = path.removeprefix(CREDENTIALS)
            assert name in loaded, (path, loaded)
            (tmp_path / name).write_text("not-a-real-password\n")
        check_lease_url(url.replace(CREDENTIALS, f"{tmp_path}/"), monkeypatch)


def test_snowid_serve_takes_the_drain_flag_the_unit_gives() -> None:
    (exec_start,) = directives(UNIT.read_text())["ExecStart"]
    serve_settings(exec_start.split()[1:], env_file_values(ENV_FILE.read_text()))


def test_the_stop_outlasts_the_drain_and_signals_the_main_process_only() -> None:
    """SIGTERM to snowid serve alone, which passes it on to its workers (SIGKILL, at the
    timeout, to them all), and TimeoutStopSec at least drain + stop."""
    unit = directives(UNIT.read_text())
    assert unit["KillSignal"] == ["SIGTERM"]
    assert unit["KillMode"] == ["mixed"]
    drain = drain_seconds(unit["ExecStart"][0].split())
    (timeout,) = unit["TimeoutStopSec"]
    assert int(timeout) >= drain + STOP_ALLOWANCE_S, (timeout, drain)
