"""The compose/decode/explain commands: output, JSON, languages, colour and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from snowid import SnowId, breakdown
from snowid.cli import main

SEED_ARGS = ["--timestamp", "1288834975657", "--datacenter", "1", "--machine", "1"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_compose_json_gives_the_seed_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "compose", *SEED_ARGS, "--sequence", "0", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["id"] == "4194439168"
    assert set(data) >= {
        "id",
        "timestamp",
        "datacenter",
        "machine",
        "sequence",
        "datetime",
        "binary",
        "segments",
    }


def test_decode_json_gives_the_parts_back(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "decode", "4194439168", "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["timestamp"], data["datacenter"], data["machine"], data["sequence"]) == (
        1288834975657,
        1,
        1,
        0,
    )
    assert data["datetime"] == "2010-11-04T01:42:55.657Z"


def test_json_output_is_the_apis_object_with_64_bit_values_as_strings(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 10 item 5: --json prints Breakdown.as_dict(), the API's object; step results
    (up to 2^63) are decimal strings, as JavaScript needs."""
    args = ["--timestamp", "3487858230208", "--datacenter", "31", "--machine", "31"]
    code, out, _ = run(capsys, "compose", *args, "--sequence", "4095", "--json")
    assert code == 0
    data = json.loads(out)
    assert data == breakdown(SnowId((1 << 63) - 1)).as_dict()
    assert data["id"] == "9223372036854775807"
    assert [step["result"] for step in data["steps"]][-1] == "9223372036854775807"
    assert all(isinstance(step["result"], str) for step in data["steps"])


def test_compose_text_shows_blocks_and_steps(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--lang", "en", "compose", *SEED_ARGS, "--steps")
    assert code == 0
    assert "4194439168" in out
    assert "0 " + format(1000, "041b") + " 00001 00001 000000000000" in out
    assert "1000 << 22 = 4194304000" in out
    assert "4194304000 + 131072 + 4096 + 0 = 4194439168" in out
    assert "\033[" not in out  # not a terminal: no colour


def test_decode_shows_utc_and_local_time(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--lang", "en", "decode", "4194439168")
    assert code == 0
    assert "2010-11-04T01:42:55.657Z" in out
    assert "time (local)" in out


def test_explain_walks_the_formula(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--lang", "vi", "explain", "4194439168")
    assert code == 0
    assert "Bước 1" in out
    assert "1288834975657 − 1288834974657 = 1000" in out


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "Error: machine 32 is out of range 0..31"),
        ("vi", "Lỗi: mã máy 32 nằm ngoài phạm vi cho phép 0..31"),
    ],
)
def test_machine_32_exits_1_naming_field_value_and_range(
    capsys: pytest.CaptureFixture[str], lang: str, expected: str
) -> None:
    code, out, err = run(
        capsys, "compose", *SEED_ARGS[:4], "--machine", "32", "--sequence", "0", "--lang", lang
    )
    assert code == 1
    assert out == ""
    assert err.strip() == expected


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["decode", "-5"], "negative"),
        (["decode", "9223372036854775808"], "sign bit"),
        (["decode", "18446744073709551616"], "more than 64 bits"),
        (["decode", "12abc"], "paste an ID, or a tweet, Discord, Mastodon or Instagram link"),
        (["compose", "--timestamp", "5", "--datacenter", "0", "--machine", "0"], "before"),
        (["compose", "--datacenter", "", "--machine", "0"], "datacenter is empty"),
        (["compose", "--datacenter", "0", "--machine", "0", "--sequence", "4096"], "4095"),
    ],
)
def test_invalid_values_exit_1_with_a_specific_error(
    capsys: pytest.CaptureFixture[str], argv: list[str], fragment: str
) -> None:
    code, _, err = run(capsys, "--lang", "en", *argv)
    assert code == 1
    assert err.startswith("Error: ")
    assert fragment in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("lang", "hint"),
    [
        ("en", "this looks like seconds; in milliseconds it is 1288834975000"),
        ("vi", "giá trị này có vẻ tính bằng giây; đổi ra mili giây là 1288834975000"),
    ],
)
def test_a_timestamp_in_seconds_gets_the_milliseconds_hint(
    capsys: pytest.CaptureFixture[str], lang: str, hint: str
) -> None:
    """Issue 10 item 3: 1288834975 (seconds) is refused with the value × 1000 suggested."""
    code, out, err = run(
        capsys,
        "compose",
        "--timestamp",
        "1288834975",
        "--datacenter",
        "1",
        "--machine",
        "1",
        "--lang",
        lang,
    )
    assert (code, out) == (1, "")
    assert err.strip().endswith(hint)


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["compose", "--datacenter", "1"])
    assert caught.value.code == 2
    with pytest.raises(SystemExit) as caught:
        main(["nonsense"])
    assert caught.value.code == 2


def test_language_defaults_from_the_locale(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "vi_VN.UTF-8")
    for name in ("SNOWID_LANG", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    code, _, err = run(capsys, "decode", "-1")
    assert code == 1
    assert err.startswith("Lỗi: ")


def _cli(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "snowid", *argv],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
        timeout=60,
    )


def test_python_m_snowid_runs_the_cli() -> None:
    done = _cli("compose", *SEED_ARGS, "--json")
    assert done.returncode == 0
    assert json.loads(done.stdout)["id"] == "4194439168"


def test_colour_on_a_terminal_and_never_with_no_color() -> None:
    """Run under a pseudo-terminal: colour appears, and NO_COLOR removes it."""
    pty = pytest.importorskip("pty")
    import select

    def on_tty(env: dict[str, str]) -> str:
        leader, follower = pty.openpty()
        proc = subprocess.Popen(
            [sys.executable, "-m", "snowid", "decode", "4194439168"],
            stdout=follower,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        os.close(follower)
        chunks = []
        while True:
            ready, _, _ = select.select([leader], [], [], 30)
            if not ready:
                break
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=30)
        os.close(leader)
        return b"".join(chunks).decode()

    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    assert "\033[" in on_tty(env)
    assert "\033[" not in on_tty({**env, "NO_COLOR": "1"})


def test_version_prints_the_package_version_and_exits_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The one version: snowid.__version__, which the installed metadata also reads."""
    import importlib.metadata

    import snowid

    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"snowid {snowid.__version__}\n"
    assert importlib.metadata.version("snowid") == snowid.__version__


# --- regression tests from the first wave's reviews (each failed before its fix) ---


# Adversarial review, finding 10: a blank (white space) timestamp is "now" on the web, an error in the CLI (failed before its fix).
def test_whitespace_timestamp_means_now_in_the_cli_as_on_the_web(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys, "compose", "--timestamp", "  ", "--datacenter", "1", "--machine", "1", "--json"
    )
    assert code == 0, err
    assert '"id"' in out
