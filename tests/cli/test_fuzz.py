"""The CLI under random arguments: exit code 0, 1 or 2 and never a traceback (issue 8).

Arguments are drawn from a grammar of the sub-commands with hostile values (huge and
negative numbers, Unicode digits, control characters, junk text) plus free mixes of
option names and values. Everything runs inside a temporary directory:

- ``file:`` leases and ``state_dir=`` point into a fresh directory per example (on the
  same disk as the test's tmp_path, as the lease tests use), and SNOWID_LEASE and
  XDG_STATE_HOME point there too, so the default ``file:`` store is never the host's;
- ``postgresql:`` URLs always name 127.0.0.1 port 1, where nothing listens, and only
  snowid's own options or ``x_`` names (never libpq's host/port/service) are added;
- ``serve`` only gets ports that are refused before anything listens, and uvicorn.run is
  replaced by a function that fails the test should it ever be reached.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from snowid.cli import main

STATE = "{state}"  # replaced by a fresh directory for every example

# --- values ----------------------------------------------------------------------------

_INTERESTING = [
    "0", "1", "31", "32", "-1", "", "  ", "4095", "4096", "1023", "1024",
    "1288834974656", "1288834974657", "1288834975657", "3480433830208", "3480433830207",
    "9223372036854775807", "9223372036854775808", "18446744073709551616", "-0", "+5",
    " 7 ", "1_0", "1__0", "_1", "1e3", "0x10", "1.0", "1.5", "nan", "inf", "\u0661\u0662",
    "\uff11", "\x00", "\x1b[31m", "1\n2", "9" * 4000, "9" * 4001, "9" * 5000, "-" + "9" * 4300,
]  # fmt: skip


def _bounded(text: str) -> str:
    """Keep ``--count`` (or any value) from asking for thousands of ids: the run stays short."""
    digits = "".join(c for c in text if c.isascii() and c.isdigit())
    if 4 <= len(digits) <= 8 and int(digits) > 500:
        return "3"
    return text


VALUES = st.one_of(
    st.sampled_from(_INTERESTING),
    st.integers(-(2**70), 2**70).map(str),
    st.text(max_size=10),
).map(_bounded)
# A field value: often valid (so that the command does its work), else anything above.
FIELDS = st.one_of(st.integers(0, 31).map(str), VALUES)

_OPTION_VALUES = st.one_of(
    VALUES, st.sampled_from(["0-0", "0-1023", "5-3", "a-b", "0.001", "0.5", "yes", "off"])
)


def _query(names: list[str]) -> st.SearchStrategy[str]:
    pair = st.tuples(st.sampled_from([*names, "x_junk"]), _OPTION_VALUES)
    return st.lists(pair, max_size=3).map(
        lambda pairs: "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in pairs)
    )


_FILE_OPTIONS = [
    "range", "datacenter", "delta", "max_wait", "max_regression", "forward_guard",
    "forward_confirm", "allow_volatile",
]  # fmt: skip
_PG_OPTIONS = [
    "range", "datacenter", "schema", "table", "ttl", "renew", "span", "max_skew", "timeout",
    "claim_wait",
]  # fmt: skip
_SAFE_NAME = st.text("abcdefgh0123456789-_.", min_size=1, max_size=6).filter(
    lambda name: name not in (".", "..")
)

LEASE_URLS = st.one_of(
    st.builds(lambda q: f"file://{STATE}?{q}", _query(_FILE_OPTIONS)),
    st.builds(lambda n, q: f"file://{STATE}/{n}?{q}", _SAFE_NAME, _query(_FILE_OPTIONS)),
    st.builds(lambda n: f"file:{n}", _SAFE_NAME),  # relative: inside the working directory
    st.builds(lambda d, m: f"static://{quote(d)}/{quote(m)}", VALUES, VALUES),
    st.builds(lambda w: f"static:?worker={quote(w)}", VALUES),
    st.builds(lambda q: f"static://1/2?state_dir={STATE}/s&{q}", _query(_FILE_OPTIONS)),
    st.builds(
        lambda user, q: f"postgresql://{user}@127.0.0.1:1/x?connect_timeout=1&{q}",
        st.sampled_from(["u", "u:secret", "u:p%40ss"]),
        _query(_PG_OPTIONS),
    ),
    st.sampled_from(["", "redis://x", "file://otherhost/x", "static:", "postgresql://[::1"]),
    st.text(alphabet="abc:?&=%[]", max_size=12),
)

# --- command lines ----------------------------------------------------------------------


def _maybe(flag: str) -> st.SearchStrategy[list[str]]:
    return st.sampled_from([[], [flag]])


def _option(name: str, values: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    return st.one_of(st.just([]), values.map(lambda value: [name, value]))


def _usually(name: str, values: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    """A required option: present three times in four, so that runs get past argparse."""
    given = values.map(lambda value: [name, value])
    return st.one_of(st.just([]), given, given, given)


def _joined(*parts: st.SearchStrategy[list[str]]) -> st.SearchStrategy[list[str]]:
    return st.tuples(*parts).map(lambda lists: [token for part in lists for token in part])


_LANG = _option("--lang", st.sampled_from(["en", "vi", "fr", "", "VI"]))
_OUTPUT = _joined(_maybe("--json"), _maybe("--steps"), _LANG)
_ID = st.one_of(VALUES, st.sampled_from(["4194439168", "1"]))

COMPOSE = _joined(
    st.just(["compose"]),
    _option("--timestamp", st.one_of(st.just("1288834975657"), VALUES)),
    _usually("--datacenter", FIELDS),
    _usually("--machine", FIELDS),
    _option("--sequence", FIELDS),
    _OUTPUT,
)
DECODE = _joined(st.sampled_from([["decode"], ["explain"]]), _ID.map(lambda v: [v]), _OUTPUT)
GENERATE = _joined(
    st.just(["generate"]),
    _option("--count", FIELDS),
    _option("--datacenter", FIELDS),
    _option("--machine", FIELDS),
    _option("--lease", LEASE_URLS),
    _maybe("--json"),
    _LANG,
)
LEASE = _joined(
    st.sampled_from([["lease", "init"], ["lease", "status"]]),
    st.one_of(st.just([]), LEASE_URLS.map(lambda url: [url])),
    _maybe("--json"),
    _maybe("--all"),
    _maybe("--first-deployment"),
    _LANG,
)
# Ports refused before anything listens (parsing comes first); loopback hosts only.
SERVE = _joined(
    st.just(["serve"]),
    st.sampled_from(["abc", "-1", "65536", "99999999999999", "1.5", "\u0663", "8o80"]).map(
        lambda port: ["--port", port]
    ),
    _option("--host", st.sampled_from(["127.0.0.1", "::1"])),
    _option("--workers", VALUES),
    _option("--max-count", VALUES),
    _option("--lease", LEASE_URLS),
)
_TOKENS = st.one_of(
    st.sampled_from(
        [
            "compose", "decode", "explain", "generate", "lease", "init", "status", "--json",
            "--steps", "--all", "--lang", "--count", "--datacenter", "--machine", "--sequence",
            "--timestamp", "--lease", "--help", "-h", "--version", "--first-deployment", "--", "-",
        ]
    ),
    VALUES,
)  # fmt: skip
MIXED = st.lists(_TOKENS, max_size=6).filter(lambda argv: "serve" not in argv)

# Weights: the lease and generate paths do the most work; serve only ever reaches parsing.
_WEIGHTED = [COMPOSE, DECODE, GENERATE, GENERATE, LEASE, LEASE, MIXED]
COMMAND_LINES = st.tuples(
    st.sampled_from([[], ["--lang", "vi"], ["--lang", "en"]]),
    st.integers(0, len(_WEIGHTED) - 1).flatmap(lambda index: _WEIGHTED[index]),
).map(lambda pair: pair[0] + pair[1])
WITH_SERVE = st.integers(0, 9).flatmap(lambda index: SERVE if index == 0 else COMMAND_LINES)

# --- running -----------------------------------------------------------------------------

ERROR_LINE = re.compile(r"^(Error|Lỗi): \S")


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory, lease defaults inside it, and no way to start a real server."""
    import uvicorn

    import snowid.lease

    def no_server(*args: object, **kwargs: object) -> None:
        raise AssertionError("the fuzz test must never start a server")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SNOWID_LEASE", f"file://{tmp_path / 'default'}")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("SNOWID_PORT", raising=False)
    monkeypatch.delenv("SNOWID_HOST", raising=False)
    monkeypatch.setattr(uvicorn, "run", no_server)
    # The pytest process keeps its own SIGTERM handling.
    monkeypatch.setattr(snowid.lease, "release_on_sigterm", lambda: False)
    return tmp_path


def _with_state(argv: list[str], root: Path) -> list[str]:
    state = tempfile.mkdtemp(dir=root, prefix="state-")
    return [token.replace(STATE, state) for token in argv]


def _run_in_process(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as stop:  # argparse: --help (0) and usage errors (2)
            code = stop.code if isinstance(stop.code, int) else 1
    return code, err.getvalue()


def _check(argv: list[str], code: int, err: str) -> None:
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err, (argv, err)
    if code == 1:
        last = err.strip().splitlines()[-1] if err.strip() else ""
        assert ERROR_LINE.match(last), (argv, err)


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(argv=WITH_SERVE)
def test_random_command_lines_in_process_exit_0_1_or_2_without_traceback(
    sandbox: Path, argv: list[str]
) -> None:
    argv = _with_state(argv, sandbox)
    code, err = _run_in_process(argv)
    _check(argv, code, err)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(argv=COMMAND_LINES.filter(lambda argv: not any("\x00" in token for token in argv)))
def test_random_command_lines_as_a_process_exit_0_1_or_2_without_traceback(
    tmp_path: Path, argv: list[str]
) -> None:
    """The same through ``python -m snowid``: the interpreter's own exit path included."""
    argv = _with_state(argv, tmp_path)
    env = {
        **os.environ,
        "SNOWID_LEASE": f"file://{tmp_path / 'default'}",
        "XDG_STATE_HOME": str(tmp_path / "xdg"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "snowid", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
        timeout=60,
    )
    _check(argv, done.returncode, done.stderr)
