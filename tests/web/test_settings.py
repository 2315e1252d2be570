"""``snowid.web.Settings``: the one copy of the service's defaults, from flags and SNOWID_*."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import pytest

from snowid.cli import build_parser
from snowid.cli._commands import CommandParser
from snowid.cli._serve import FLAGS, settings_from
from snowid.errors import (
    AuthTokenFileMissingError,
    ClockPolicyError,
    EmptyValueError,
    ForwardedIpsError,
    NotABooleanError,
    NotAnIntegerError,
    NotSecondsError,
    OutOfRangeError,
)
from snowid.web import Settings

SERVE_PAGE = Path(__file__).resolve().parents[2] / "docs" / "web.md"  # its settings table


def serve_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["serve", *argv])


def test_defaults_without_flags_or_environment() -> None:
    assert Settings.load({}, {}) == Settings()
    assert Settings() == Settings(
        host="127.0.0.1",
        port=8000,
        workers=1,
        lease_url=None,
        max_count=4096,
        access_log=False,
        auth_token_file=None,
        auth_metrics=False,
        metrics_dir=None,
        forwarded_allow_ips=None,
        clock_back="ride:5",
        drain_seconds=5,
    )


def test_every_setting_comes_from_its_variable() -> None:
    env = {
        "SNOWID_HOST": "::1",
        "SNOWID_PORT": "9000",
        "SNOWID_WORKERS": "3",
        "SNOWID_LEASE": "file:",
        "SNOWID_MAX_COUNT": "10",
        "SNOWID_ACCESS_LOG": "yes",
        "SNOWID_AUTH_TOKEN_FILE": "/etc/snowid/tokens",
        "SNOWID_AUTH_METRICS": "on",
        "SNOWID_METRICS_DIR": "/run/snowid",
        "SNOWID_FORWARDED_ALLOW_IPS": "10.0.0.1,10.1.0.0/16",
        "SNOWID_CLOCK_BACK": "wait:200",
        "SNOWID_DRAIN_SECONDS": "30",
    }
    settings = Settings.from_env(env)
    assert settings == Settings(
        "::1",
        9000,
        3,
        "file:",
        10,
        True,
        "/etc/snowid/tokens",
        True,
        "/run/snowid",
        "10.0.0.1,10.1.0.0/16",
        "wait:200",
        30,
    )
    assert settings.environment() == {**env, "SNOWID_ACCESS_LOG": "1", "SNOWID_AUTH_METRICS": "1"}
    assert Settings.from_env(settings.environment()) == settings  # what each worker reads


def test_flags_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SNOWID_HOST", "::1")
    monkeypatch.setenv("SNOWID_PORT", "9000")
    monkeypatch.setenv("SNOWID_LEASE", "static://1/1")
    monkeypatch.setenv("SNOWID_ACCESS_LOG", "1")
    from_env = settings_from(serve_args())
    assert (from_env.host, from_env.port, from_env.lease_url) == ("::1", 9000, "static://1/1")
    assert from_env.access_log is True
    flags = settings_from(
        serve_args("--host", "0.0.0.0", "--port", "8123", "--lease", "file:", "--no-access-log")
    )
    assert (flags.host, flags.port, flags.lease_url, flags.access_log) == (
        "0.0.0.0",
        8123,
        "file:",
        False,
    )


def test_every_serve_flag_has_its_variable_and_the_docs_name_them() -> None:
    """The regression: --workers had no SNOWID_WORKERS although the README said so (the
    settings table is in docs/web.md now)."""
    names = [field.name for field in dataclasses.fields(Settings)]
    assert list(FLAGS) == names
    assert list(Settings.ENVIRONMENT) == names
    serve = next(
        action.choices["serve"]
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    assert isinstance(serve, CommandParser)
    serve.complete()  # its arguments are added when `serve` is first parsed
    flags = {option for action in serve._actions for option in action.option_strings}
    assert flags - {"-h", "--help", "--lang"} == {
        option
        for flag, metavar, _ in FLAGS.values()
        for option in ([flag] if metavar else [flag, flag.replace("--", "--no-", 1)])
    }
    page = SERVE_PAGE.read_text()
    for variable in Settings.ENVIRONMENT.values():
        assert f"`{variable}`" in page
    for flag, _, _ in FLAGS.values():
        assert f"`{flag}`" in page


@pytest.mark.parametrize(
    ("env", "error", "words"),
    [
        ({"SNOWID_PORT": "http"}, NotAnIntegerError, "SNOWID_PORT http is not a whole number"),
        ({"SNOWID_WORKERS": "0"}, OutOfRangeError, "workers 0 is out of range 1..1024"),
        ({"SNOWID_MAX_COUNT": "0"}, OutOfRangeError, "max_count 0 is out of range"),
        (
            {"SNOWID_ACCESS_LOG": "maybe"},
            NotABooleanError,
            "SNOWID_ACCESS_LOG maybe is not a yes/no",
        ),
        ({"SNOWID_AUTH_METRICS": "1"}, AuthTokenFileMissingError, "no token file is given"),
        (
            {"SNOWID_FORWARDED_ALLOW_IPS": "10.0.0.1, proxy.example"},
            ForwardedIpsError,
            "SNOWID_FORWARDED_ALLOW_IPS 10.0.0.1, proxy.example is not a list of IP addresses",
        ),
        (
            {"SNOWID_CLOCK_BACK": "logical"},
            ClockPolicyError,
            "SNOWID_CLOCK_BACK logical cannot be used: the logical policy needs its bound",
        ),
        (
            {"SNOWID_DRAIN_SECONDS": "soon"},
            NotSecondsError,
            "SNOWID_DRAIN_SECONDS soon is not a number of seconds; give a decimal number",
        ),
        (  # issue 25 §3: the range names the variable set, as the other readers do
            {"SNOWID_DRAIN_SECONDS": "601"},
            OutOfRangeError,
            "SNOWID_DRAIN_SECONDS 601 is out of range 0..600",
        ),
        (
            {"SNOWID_DRAIN_SECONDS": "-1"},
            OutOfRangeError,
            "SNOWID_DRAIN_SECONDS -1 is out of range 0..600",
        ),
    ],
)
def test_a_bad_variable_is_a_specific_error_naming_it(
    env: dict[str, str], error: type[Exception], words: str
) -> None:
    with pytest.raises(error) as caught:
        Settings.from_env(env)
    assert words in str(caught.value)


@pytest.mark.parametrize(
    ("given", "seconds", "written"),
    [("3.0", 3.0, "3"), ("2.5", 2.5, "2.5"), (" 7 ", 7.0, "7"), (".5", 0.5, "0.5"), ("0", 0, "0")],
)
def test_drain_seconds_is_a_decimal_number_of_seconds(
    given: str, seconds: float, written: str
) -> None:
    """Issue 25 §3: ``--drain-seconds 3.0`` was refused as "not a whole number". The flag
    and the variable take a decimal number; each worker reads back what was written."""
    from_flag = settings_from(serve_args("--drain-seconds", given))
    from_env = Settings.from_env({"SNOWID_DRAIN_SECONDS": given})
    assert from_flag.drain_seconds == from_env.drain_seconds == seconds
    assert from_flag.environment()["SNOWID_DRAIN_SECONDS"] == written
    assert Settings.from_env(from_flag.environment()) == from_flag


def test_blank_variables_are_unset_but_a_blank_flag_is_refused() -> None:
    assert Settings.from_env({"SNOWID_HOST": " ", "SNOWID_LEASE": ""}) == Settings()
    with pytest.raises(EmptyValueError):
        Settings.load({"host": ""}, {})
    with pytest.raises(TypeError):
        Settings.load({"colour": "blue"}, {})


def test_the_repr_of_settings_never_shows_the_lease_password() -> None:
    """A Settings object that ends up in a log or a traceback shows the store, not its secret."""
    settings = Settings(lease_url="postgresql://snow:hunter2@db.example/ids?password=hunter2")
    text = repr(settings)
    assert "hunter2" not in text
    assert "db.example" in text
    assert "port=8000" in text


def test_the_clock_back_flag_wins_and_a_logical_clock_must_fit_the_lease(tmp_path: Path) -> None:
    """``--clock-back`` over SNOWID_CLOCK_BACK; preflight refuses a logical clock that the
    lease cannot back (no mark, or N over its bound) before any worker starts."""
    from snowid.web import preflight

    flags = Settings.load({"clock_back": "Logical:100"}, {"SNOWID_CLOCK_BACK": "raise"})
    assert flags.clock_back == "logical:100"
    with pytest.raises(ClockPolicyError) as caught:
        preflight(Settings(lease_url="static://1/1", clock_back="logical:100"))
    assert caught.value.reason == "no_mark"
    with pytest.raises(ClockPolicyError) as caught:
        preflight(Settings(lease_url=f"file://{tmp_path}", clock_back="logical:300"))
    assert (caught.value.reason, caught.value.max) == ("lead", 250)
    preflight(Settings(lease_url=f"file://{tmp_path}", clock_back="logical:250"))
