"""Looking for a secret where tooling looks: every exception of an error's chain, and a
PostgreSQL cluster that asks for passwords (the shared server trusts every local user).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.need import unavailable
from tests.support.servers import PgCluster, binary

MARKER = "Mk7-s3cr3t-q9"
"""The password the tests give; it must never be found."""


def chain(error: BaseException) -> list[BaseException]:
    """``error`` and every exception reachable from it by ``__cause__`` and ``__context__``."""
    found: list[BaseException] = []
    todo: list[BaseException | None] = [error]
    while todo:
        current = todo.pop()
        if current is None or any(current is seen for seen in found):
            continue
        found.append(current)
        todo.extend((current.__cause__, current.__context__))
    return found


def _looked_at(error: BaseException) -> Iterator[str]:
    """What a reporter, debugger or log handler shows of one exception: its text, repr,
    arguments and attributes (and the reprs and attributes of those)."""
    yield str(error)
    yield repr(error)
    for value in (*error.args, *vars(error).values()):
        yield repr(value)
        with contextlib.suppress(TypeError):
            yield repr(vars(value))
    yield repr(vars(error))


def leaks(error: BaseException, secret: str = MARKER) -> list[str]:
    """The places of ``error``'s chain that hold ``secret`` (empty: none)."""
    return [
        f"{type(exc).__name__}: {text[:200]}"
        for exc in chain(error)
        for text in _looked_at(exc)
        if secret in text
    ]


def assert_clean(error: BaseException, secret: str = MARKER) -> None:
    """``error`` keeps no chain, and holds ``secret`` nowhere a tool would look."""
    assert leaks(error, secret) == []
    assert error.__cause__ is None, repr(error.__cause__)
    assert error.__context__ is None, repr(error.__context__)


@contextlib.contextmanager
def scram_cluster() -> Iterator[PgCluster]:
    """A PostgreSQL cluster of the test's own where every user but ``postgres`` signs in
    over TCP with a password (scram-sha-256); ``postgres`` stays trusted for set-up."""
    initdb = binary("initdb")
    if initdb is None:
        unavailable("initdb is not installed (PATH or /usr/lib/postgresql/*/bin)")
    try:
        cluster = PgCluster(Path(initdb).resolve().parent)
    except KeyError:
        pytest.fail("running as root, and there is no postgres user to run the server as")
    hba = cluster.root / "pg_hba.conf"
    hba.write_text(
        "local all all trust\n"
        "host all postgres 127.0.0.1/32 trust\n"
        "host all all 127.0.0.1/32 scram-sha-256\n"
    )
    hba.chmod(0o644)
    cluster.settings["hba_file"] = f"'{hba}'"
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.close()
