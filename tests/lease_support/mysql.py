"""MySQL / MariaDB helpers for the lease tests: the shared server, a fresh table per test,
direct SQL, and a ``mariadbd`` of the test's own for the cases that crash, freeze,
reconfigure or wipe the server.

The shared server is MariaDB on 127.0.0.1:3306 (user root, no password, database
``test``). ``MariaServer`` makes a data directory with ``mariadb-install-db``, runs
``mariadbd`` on a free loopback port (durable: ``innodb_flush_log_at_trx_commit=1``,
no binary log), and can SIGKILL it, restart it on the same data, freeze it (SIGSTOP)
and wipe it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.support.web import free_port

if TYPE_CHECKING:
    from snowid.lease.mysql import MysqlLease

SHARED = "mysql://root@127.0.0.1:3306/test"


def _connect(port: int = 3306, database: str | None = "test", **options: Any) -> Any:
    import pymysql

    return pymysql.connect(
        host="127.0.0.1",
        port=port,
        user="root",
        database=database,
        autocommit=True,
        connect_timeout=3,
        ssl_disabled=True,  # no TLS context to build: a connection per call stays cheap
        **options,
    )


def mysql_available() -> bool:
    try:
        import pymysql
    except ImportError:
        return False
    try:
        _connect().close()
    except pymysql.err.MySQLError:
        return False
    return True


def require_shared() -> None:
    if not mysql_available():
        if os.environ.get("CI"):  # scripts/test starts it: in CI a missing server is a failure
            pytest.fail("MariaDB is not reachable on 127.0.0.1:3306")
        pytest.skip("MariaDB is not reachable on 127.0.0.1:3306")


def sql(statement: str, params: Any = None, port: int = 3306) -> list[tuple[Any, ...]]:
    """Run one statement on the shared server (or the one on ``port``); its rows."""
    conn = _connect(port)
    try:
        with conn.cursor() as cur:
            cur.execute(statement, params)
            return list(cur.fetchall())
    finally:
        conn.close()


def new_table() -> str:
    return f"t_{uuid.uuid4().hex[:12]}"


@contextlib.contextmanager
def fresh_table(first_deployment: bool = True) -> Iterator[str]:
    """A unique table name on the shared server, set up (no quarantine by default) and
    dropped afterwards."""
    require_shared()
    from snowid.lease import init_lease

    table = new_table()
    init_lease(f"{SHARED}?table={table}", first_deployment=first_deployment)
    try:
        yield table
    finally:
        sql(f"DROP TABLE IF EXISTS {table}, {table}_meta")


def open_mysql(url: str, **options: object) -> MysqlLease:
    """``open_lease`` for a mysql:// URL, typed as the MySQL backend."""
    from snowid.lease import open_lease
    from snowid.lease.mysql import MysqlLease

    lease = open_lease(url, **options)
    assert isinstance(lease, MysqlLease)
    return lease


# --- a server of the test's own -------------------------------------------------------------


def _binary(name: str) -> str:
    found = shutil.which(name) or next(
        (p for p in (f"/usr/sbin/{name}", f"/usr/bin/{name}") if os.path.exists(p)), None
    )
    if found is None:
        if os.environ.get("CI"):  # scripts/test installs it: in CI its absence is a failure
            pytest.fail(f"{name} is not installed")
        pytest.skip(f"{name} is not installed")
    return found


class MariaServer:
    """One ``mariadbd`` on 127.0.0.1:``port`` with its own data directory under ``root``."""

    def __init__(self, root: Path, options: Sequence[str] = ()) -> None:
        self.server = _binary("mariadbd")
        self.install = _binary("mariadb-install-db")
        self.root = root
        self.data = root / "data"
        self.port = free_port()
        self.options = list(options)
        self.proc: subprocess.Popen[bytes] | None = None

    def url(self, query: str = "", port: int | None = None) -> str:
        """A lease URL for this server (or a proxy in front of it on ``port``)."""
        base = f"mysql://root@127.0.0.1:{port or self.port}/snowid"
        return f"{base}?{query}" if query else base

    def initialize(self) -> None:
        proc = subprocess.run(
            [
                self.install, "--no-defaults", f"--datadir={self.data}", "--user=root",
                "--auth-root-authentication-method=normal", "--skip-test-db",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )  # fmt: skip
        if proc.returncode != 0:
            pytest.fail(f"mariadb-install-db failed:\n{proc.stdout}{proc.stderr}")

    def start(self) -> None:
        assert self.proc is None or self.proc.poll() is not None
        if not (self.data / "mysql").is_dir():
            self.initialize()
        log = self.root / "server.log"
        self.proc = subprocess.Popen(
            [
                self.server, "--no-defaults", f"--datadir={self.data}", f"--port={self.port}",
                "--bind-address=127.0.0.1", f"--socket={self.root / 'sock'}", "--user=root",
                f"--pid-file={self.root / 'pid'}", f"--log-error={log}",
                "--skip-name-resolve", "--innodb-buffer-pool-size=32M",
                "--innodb-log-file-size=8M", "--innodb-flush-log-at-trx-commit=1",
                "--max-connections=200", *self.options,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(Exception):
                conn = _connect(self.port, database=None)
                with conn.cursor() as cur:
                    cur.execute("CREATE DATABASE IF NOT EXISTS snowid")
                conn.close()
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                text = log.read_text(errors="replace")[-3000:] if log.exists() else ""
                pytest.fail(f"mariadbd did not start on port {self.port}:\n{text}")
            time.sleep(0.05)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def sql(self, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
        conn = _connect(self.port, database="snowid")
        try:
            with conn.cursor() as cur:
                cur.execute(statement, params)
                return list(cur.fetchall())
        finally:
            conn.close()

    def kill(self) -> None:
        """SIGKILL: a crash; what InnoDB flushed at commit survives."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(30)

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def wipe(self) -> None:
        """With the server stopped: remove its data (the next start makes an empty one)."""
        assert not self.running
        shutil.rmtree(self.data, ignore_errors=True)


@contextlib.contextmanager
def maria_server(options: Sequence[str] = ()) -> Iterator[MariaServer]:
    # Under /tmp with a short path: the Unix socket path must stay under 108 bytes.
    root = Path(tempfile.mkdtemp(prefix="snowid-maria-"))
    server = MariaServer(root, options)
    try:
        server.start()
        yield server
    finally:
        server.kill()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def maria() -> Iterator[MariaServer]:
    """A durable mariadbd for the tests of one module (restarted by a test if it left it
    down)."""
    with maria_server() as server:
        yield server


@pytest.fixture
def murl(maria: MariaServer) -> str:
    """A lease URL on the module's own server, with a fresh table, set up without
    quarantine (first deployment). Append options with ``&``."""
    from snowid.lease import init_lease

    if not maria.running:
        maria.start()
    url = maria.url(f"table={new_table()}")
    init_lease(url, first_deployment=True)
    return url
