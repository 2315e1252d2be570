"""Helpers for tests of the process-wide generator and the integrations built on it.

- ``process_wide`` (fixture): ``snowid.next_id()`` configured with file slots in the test's
  own directory, forgotten again afterwards (no ``SNOWID_LEASE`` leaks in or out);
- ``run_in_child(body)``: fork, run ``body()`` in the child, get back what it returned;
- ``databases``: the SQL servers of this machine as SQLAlchemy URLs, skipped when absent
  (a failure in CI, where scripts/test runs on a machine that has them).
"""

from __future__ import annotations

import os
import pickle
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from snowid import SnowId
from snowid.ids._layout import TWITTER
from snowid.process import _default

__all__ = [
    "MARIADB_URL",
    "POSTGRES_URL",
    "engine_url",
    "process_wide",
    "run_in_child",
    "unique_name",
    "worker_of",
]

POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
MARIADB_URL = "mysql+pymysql://root@127.0.0.1:3306/test"

T = TypeVar("T")


@pytest.fixture
def process_wide(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The process-wide generator on file slots under tmp_path; yields the lease URL."""
    monkeypatch.delenv(_default.ENV_VAR, raising=False)
    _default._reset()
    url = f"file://{tmp_path}/slots"
    _default.configure(lease=url)
    try:
        yield url
    finally:
        _default._reset()


def run_in_child(body: Callable[[], T]) -> T:
    """Fork; run ``body()`` in the child and return its result here (an error is re-raised)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        os.close(read_fd)
        try:
            try:
                outcome: tuple[bool, object] = (True, body())
            except BaseException as error:
                outcome = (False, error)
            with os.fdopen(write_fd, "wb") as pipe:
                pickle.dump(outcome, pipe)
        finally:
            os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    ok, value = pickle.loads(data)
    if not ok:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[no-any-return]


def worker_of(value: SnowId | int) -> int:
    """The 10-bit worker (datacenter and machine) an id was issued under."""
    return TWITTER.worker_of(int(value))


def unique_name(prefix: str = "t") -> str:
    """A table name no other test (or helper running tests at the same time) uses."""
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


def engine_url(kind: str, directory: Path) -> str:
    """The SQLAlchemy URL of ``kind`` ("sqlite", "postgresql", "mariadb"), or skip/fail.

    SQLite gets a file in ``directory``: threads and forked children share it.
    """
    if kind == "sqlite":
        return f"sqlite:///{directory}/test.sqlite"
    url = POSTGRES_URL if kind == "postgresql" else MARIADB_URL
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import OperationalError

    engine = create_engine(url, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except OperationalError:
        if os.environ.get("CI"):
            pytest.fail(f"{kind} is not reachable at {url}")
        pytest.skip(f"{kind} is not reachable at {url}")
    finally:
        engine.dispose()
    return url
