"""Black-box: no piece of a password ever reaches the CLI's output (issue 8, item 1).

Each case runs ``python -m snowid`` in a subprocess, as an operator would, with a
password written in one of the forms libpq reads (user-information, ``?password=``,
``sslpassword=``, a ``key=value`` string) or pasted where no password belongs (a bad
``--lang``, an extra argument, an ambiguous option). The password is made of two
unusual pieces, ``qz7`` and ``wk9``, so that a message holding either half fails. The
PostgreSQL store is 127.0.0.1 port 1: nothing listens there, nothing shared is touched.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PIECES = ("qz7", "wk9")
STORE = "127.0.0.1:1"


def _cli(*argv: str, lang: str = "en") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SNOWID_LANG": lang}
    env.pop("SNOWID_LEASE", None)
    return subprocess.run(
        [sys.executable, "-m", "snowid", *argv],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )


def _assert_hidden(done: subprocess.CompletedProcess[str]) -> str:
    said = done.stdout + done.stderr
    for piece in PIECES:
        assert piece not in said, said
    assert "Traceback" not in said, said
    return said


LEASE_URLS = [
    # (the URL, what the message must still name: the scheme, the host, the database)
    (f"postgresql://u:qz7wk9@{STORE}/db", f"postgresql://{STORE}/db"),
    (f"postgresql://u@{STORE}/db?password=qz7wk9", f"postgresql://{STORE}/db"),
    (f"postgresql://u@{STORE}/db?sslmode=disable&sslpassword=qz7wk9", f"postgresql://{STORE}/db"),
    (f"postgresql://u@{STORE}/db?password=qz7%20wk9", f"postgresql://{STORE}/db"),
    (f"postgresql://u:qz7%zzwk9@{STORE}/db", f"postgresql://{STORE}/db"),  # libpq: bad %
    (f"postgres://u:qz7/wk9@{STORE}/db", "postgres://…"),  # the "port sec" case
    (f"postgres://u:qz7?wk9@{STORE}/db", "postgres://…"),
    (f"postgres://u:qz7#wk9@{STORE}/db", "postgres://…"),
    (f"postgres://u:qz7@wk9@{STORE}/db", "postgres://…"),
    (f"postgres://u:qz7:wk9@{STORE}/db", f"postgres://{STORE}/db"),
    (f"postgres://u:qz7/wk9@{STORE}:abc/db", "postgres://…"),
    (f"postgres://u@{STORE}/db?password=qz7&wk9", f"postgres://{STORE}/db"),
    (f"redis://:qz7wk9@{STORE}/0", f"redis://{STORE}/0"),
    (f"rediss://usr:qz7/wk9@{STORE}/0", "rediss://…"),
    (f"mysql://u:qz7wk9@{STORE}/db", f"mysql://{STORE}/db"),
    (f"mariadb://usr:qz7/wk9@{STORE}/db", "mariadb://…"),
    ("host=127.0.0.1 port=1 password=qz7wk9", "host=127.0.0.1 port=1"),
    ("host=127.0.0.1 password='qz7 wk9'", "host=127.0.0.1"),
    ("qz7wk9", "…"),
    ("static://u:qz7wk9@1/2", "static://1/2"),
    ("file:///tmp/s?password=qz7wk9", "file:///tmp/s"),
    ("file://u:qz7wk9@otherhost/tmp/x", "file://otherhost/tmp/x"),
]


@pytest.mark.parametrize(("url", "named"), LEASE_URLS)
@pytest.mark.parametrize("command", [("lease", "status"), ("lease", "init")])
def test_lease_commands_name_the_store_but_never_its_password(
    command: tuple[str, ...], url: str, named: str
) -> None:
    done = _cli(*command, url)
    assert done.returncode == 1
    said = _assert_hidden(done)
    assert said.startswith("Error: ")
    assert named in said  # where the store is stays visible to its operator


@pytest.mark.parametrize(("url", "named"), LEASE_URLS[:9])
def test_generate_with_a_lease_never_prints_its_password(url: str, named: str) -> None:
    done = _cli("generate", "--lease", url, lang="vi")
    assert done.returncode == 1
    said = _assert_hidden(done)
    assert said.startswith("Lỗi: ")
    assert named in said


@pytest.mark.slow
def test_serve_with_a_static_url_and_workers_never_prints_its_password() -> None:
    done = _cli("serve", "--workers", "2", "--lease", "static:?worker=1&password=qz7wk9")
    assert done.returncode == 1
    _assert_hidden(done)


@pytest.mark.parametrize(
    "argv",
    [
        ("--lang", "qz7wk9", "decode", "1"),
        ("decode", "1", "--lang=qz7wk9"),
        ("serve", f"postgresql://u:qz7wk9@{STORE}/db"),
        ("lease", "status", "file:///tmp/x", "qz7wk9"),
        ("serve", "--l=qz7wk9"),
        ("generate", "--json=qz7wk9"),
        ("qz7wk9",),
        ("lease", "qz7wk9"),
    ],
)
@pytest.mark.parametrize("lang", ["en", "vi"])
def test_usage_errors_never_repeat_a_value(argv: tuple[str, ...], lang: str) -> None:
    done = _cli(*argv, lang=lang)
    assert done.returncode == 2
    said = _assert_hidden(done)
    assert ("error: " if lang == "en" else "lỗi: ") in said
