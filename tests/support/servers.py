"""Lease-store servers of a test's (or a benchmark's) own, each on a free loopback port with
its data in a temporary directory: a PostgreSQL cluster, a ``mariadbd`` and a
``redis-server``, durable by default (every acknowledged commit is on disk).

The shared servers (PostgreSQL 5432, MariaDB 3306, Redis 6379) must not be crashed,
frozen or wiped, and the shared Redis keeps nothing on disk; a test that does those things
to a store starts one of these. They share one face:

- ``url(query, port)``: a lease URL for the server (or a proxy in front of it on ``port``);
- ``start()``: start it (again, on the same data: a restart);
- ``crash()``: end it at once (SIGKILL, PostgreSQL's immediate shutdown): what the server
  made durable survives, the next start replays its log;
- ``pause()`` / ``resume()``: freeze it with SIGSTOP, thaw it (PostgreSQL: every process);
- ``wipe()``: with the server down, delete its data: the next start is an empty store;
- ``close()``: end it and delete its directory;
- ``ports`` and ``pids()``: what it listens on by role and the processes it runs, so it
  can be a member of a ``cluster.Cluster`` (several servers behind proxies).

Nothing here needs pytest (``bench/bench_lease.py`` uses these classes too): a server that
cannot start raises ``RuntimeError`` with the end of its log; ``binary(name)`` is None when a
program is not installed, and the caller decides whether that is a skip or a failure.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from tests.support import procnet


def new_name() -> str:
    """A table name or key prefix no other test uses (the shared servers are shared)."""
    return f"t_{uuid.uuid4().hex[:12]}"


_GIVEN: set[int] = set()  # the ports free_port handed out in this process
_LOWEST = 10000  # under it: well-known and registered services' ports


def _port_slice() -> range:
    """This process's ports: its share of those under the kernel's ephemeral range (a
    pytest-xdist worker ``gwN`` of ``C`` takes share N of C + 1; any other process, the last)."""
    try:
        ephemeral = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        top = int(ephemeral[0])
    except (OSError, ValueError, IndexError):
        top = 32768  # Linux's default
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    shares = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or 0) + 1
    share = int(worker[2:]) if worker[2:].isdigit() and shares > 1 else shares - 1
    size = (top - _LOWEST) // shares
    return range(_LOWEST + share * size, _LOWEST + (share + 1) * size)


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on, for a server that binds it later (a JVM, etcd, uvicorn in
    another process). Port 0's answer would be a port in the kernel's ephemeral range, which
    the kernel may give to any new connection before that server binds it ("Address already
    in use": a ZooKeeper that did not start). So the port comes from under that range, from
    this process's own share (parallel test workers never pick the same one), and is never
    one this process handed out before (a server picked but not yet started)."""
    ports = _port_slice()
    if len(ports) < 64:  # a kernel whose ephemeral range starts low: the kernel's pick
        with socket.socket() as sock:
            sock.bind((host, 0))
            return int(sock.getsockname()[1])
    offset = os.getpid() * 7919 % len(ports)
    for fresh_only in (True, False):  # a second pass: a share all handed out, reused
        for step in range(len(ports)):
            port = ports[(offset + len(_GIVEN) + step) % len(ports)]
            if fresh_only and port in _GIVEN:
                continue
            with socket.socket() as sock:
                try:
                    sock.bind((host, port))
                except OSError:
                    continue
            _GIVEN.add(port)
            return port
    raise RuntimeError(f"no free port on {host} in {ports.start}-{ports.stop - 1}")


def binary(name: str) -> str | None:
    """Where program ``name`` is installed (PATH, /usr/sbin, /usr/bin; PostgreSQL's newest
    /usr/lib/postgresql/N/bin), or None."""
    found = shutil.which(name) or next(
        (p for p in (f"/usr/sbin/{name}", f"/usr/bin/{name}") if os.path.exists(p)), None
    )
    if found is None:
        candidates = glob.glob(f"/usr/lib/postgresql/*/bin/{name}")
        found = max(candidates, key=_major, default=None)
    return found


def _major(path: str) -> int:
    version = Path(path).parts[-3]  # /usr/lib/postgresql/15/bin/initdb
    return int(version) if version.isdigit() else 0


def _tail(path: Path, size: int = 3000) -> str:
    return path.read_text(errors="replace")[-size:] if path.exists() else ""


def _wait_ready(
    what: str, ready: Callable[[], bool], proc: subprocess.Popen[bytes] | None, log: Path, s: float
) -> None:
    """Poll ``ready()`` until it is true; RuntimeError if ``proc`` exits or ``s`` pass."""
    deadline = time.monotonic() + s
    while True:
        with contextlib.suppress(Exception):
            if ready():
                return
        if (proc is not None and proc.poll() is not None) or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start:\n{_tail(log)}")
        time.sleep(0.02)


class OwnServer:
    """What the three servers share: a process on 127.0.0.1:``port`` with ``root`` as its
    directory; see the module docstring."""

    name = ""  # the lease scheme: "postgres", "mysql", "redis"
    root: Path
    port: int
    proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        raise NotImplementedError

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def ports(self) -> dict[str, int]:
        """The ports it listens on, by role (a cluster puts a proxy in front of each)."""
        return {"client": self.port}

    def pids(self) -> set[int]:
        """Its processes (the server and every process it started); empty when down."""
        return procnet.descendants(self.pid) if self.running else set()

    def crash(self) -> None:
        """SIGKILL (thawed first, so a frozen server dies too)."""
        if self.running:
            assert self.proc is not None
            children = self.pids() - {self.pid}
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(30)
            procnet.end_all(children)  # a child of the server's outlives its SIGKILL

    def stop(self) -> None:
        """A clean shutdown (SIGTERM; SIGKILL if it takes over 30 s)."""
        if self.running:
            assert self.proc is not None
            children = self.pids() - {self.pid}
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.crash()
            procnet.end_all(children)

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def wipe(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.crash()
        shutil.rmtree(self.root, ignore_errors=True)


def fresh_table(db: PgDb | MariaDb, *, first_deployment: bool = True) -> Iterator[str]:
    """A new lease table on ``db``, set up (no quarantine by default), dropped afterwards
    (a generator for ``contextlib.contextmanager``)."""
    from snowid.lease import init_lease

    table = new_name()
    init_lease(db.url(f"table={table}"), first_deployment=first_deployment)
    try:
        yield table
    finally:
        db.sql(f"DROP TABLE IF EXISTS {table}, {table}_meta")


# --- PostgreSQL --------------------------------------------------------------------------


class PgDb:
    """A PostgreSQL database on 127.0.0.1:``port``, reached as ``postgres`` (trust)."""

    def __init__(self, port: int, database: str) -> None:
        self.port, self.database = port, database

    def url(self, query: str = "", port: int | None = None) -> str:
        base = f"postgresql://postgres@127.0.0.1:{port or self.port}/{self.database}"
        return f"{base}?{query}" if query else base

    def sql(self, statement: str, params: Any = None) -> list[tuple[Any, ...]]:
        """Run one statement on its own connection (autocommit); its rows."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True, connect_timeout=3) as conn:
            cur = conn.execute(statement, params)
            return list(cur.fetchall()) if cur.description else []


class PgCluster(PgDb, OwnServer):
    """A PostgreSQL cluster made by ``initdb`` in ``root`` (database ``postgres``), run by
    ``pg_ctl`` as the ``postgres`` user when we are root (initdb and postgres refuse
    root). ``settings`` are added to postgresql.conf after ours (the server takes the last)."""

    name = "postgres"

    def __init__(self, bindir: Path, settings: Mapping[str, str] | None = None) -> None:
        super().__init__(free_port(), "postgres")
        self.bindir = bindir
        # Under /tmp with a short path, not pytest's tmp_path: its parents are 0700 root,
        # closed to postgres.
        self.root = Path(tempfile.mkdtemp(prefix="snowid-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.settings = {
            "listen_addresses": "'127.0.0.1'", "port": str(self.port),
            "unix_socket_directories": f"'{self.root}'", "fsync": "on",
            "synchronous_commit": "on", "shared_buffers": "16MB", "max_connections": "30",
            **(settings or {}),
        }  # fmt: skip
        self._prefix: list[str] = []
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")  # KeyError: no user to run the server as
            os.chown(self.root, owner.pw_uid, owner.pw_gid)
            self._prefix = ["runuser", "-u", owner.pw_name, "--"]
        self._env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        self._env["LC_ALL"] = "C"
        self._up = False

    def _tool(self, tool: str, *args: str) -> None:
        proc = subprocess.run(
            [*self._prefix, str(self.bindir / tool), *args],
            cwd=self.root,  # the postgres user may not be able to enter ours
            env=self._env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip
        if proc.returncode != 0:
            raise RuntimeError(
                f"{tool} {' '.join(args)} failed:\n{proc.stdout}{proc.stderr}\n{_tail(self.log)}"
            )

    def start(self) -> None:
        if not (self.data / "PG_VERSION").exists():
            self._tool(
                "initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                "--locale=C", "--no-sync",
            )  # fmt: skip
            with (self.data / "postgresql.conf").open("a") as conf:
                conf.writelines(f"{key} = {value}\n" for key, value in self.settings.items())
        self._tool("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60", "start")
        self._up = True

    @property
    def running(self) -> bool:
        return self._up

    @property
    def pid(self) -> int:
        """The postmaster's."""
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def pause(self) -> None:
        """SIGSTOP to the postmaster and every backend (a frozen host)."""
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)

    def resume(self) -> None:
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)

    def crash(self) -> None:
        """Immediate shutdown: backends are killed, nothing is checkpointed."""
        if self._up:
            self.resume()  # a frozen postmaster would not hear pg_ctl
        self._pg_stop("immediate")

    def stop(self) -> None:
        self._pg_stop("fast")

    def _pg_stop(self, mode: str) -> None:
        if (self.data / "postmaster.pid").exists():
            self._up = False
            self._tool("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def wipe(self) -> None:
        assert not self.running
        shutil.rmtree(self.data, ignore_errors=True)


# --- MariaDB -----------------------------------------------------------------------------


class MariaDb:
    """A MariaDB database on 127.0.0.1:``port``, reached as root without a password."""

    def __init__(self, port: int, database: str) -> None:
        self.port, self.database = port, database

    def url(self, query: str = "", port: int | None = None) -> str:
        base = f"mysql://root@127.0.0.1:{port or self.port}/{self.database}"
        return f"{base}?{query}" if query else base

    def connect(self, *, use_database: bool = True) -> Any:
        """A PyMySQL connection (autocommit, no TLS), to our database unless told not to."""
        import pymysql

        return pymysql.connect(
            host="127.0.0.1",
            port=self.port,
            user="root",
            database=self.database if use_database else None,
            autocommit=True,
            connect_timeout=3,
            ssl_disabled=True,  # no TLS context to build: a connection per call stays cheap
        )

    def sql(
        self, statement: str, params: Any = None, *, use_database: bool = True
    ) -> list[tuple[Any, ...]]:
        """Run one statement on its own connection; its rows."""
        conn = self.connect(use_database=use_database)
        try:
            with conn.cursor() as cur:
                cur.execute(statement, params)
                return list(cur.fetchall())
        finally:
            conn.close()


class MariaServer(MariaDb, OwnServer):
    """One ``mariadbd`` with a data directory made by ``mariadb-install-db`` and the database
    ``database``; durable (``innodb_flush_log_at_trx_commit=1``, no binary log). ``options``
    are mariadbd's long options without the dashes, added after ours (the last one wins)."""

    name = "mysql"

    def __init__(
        self,
        server: str,
        install: str,
        options: Mapping[str, str] | None = None,
        database: str = "snowid",
    ) -> None:
        super().__init__(free_port(), database)
        self.server, self.install = server, install
        # Under /tmp with a short path: the Unix socket path must stay under 108 bytes.
        self.root = Path(tempfile.mkdtemp(prefix="snowid-maria-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.options = {
            "innodb-buffer-pool-size": "32M", "innodb-log-file-size": "8M",
            "innodb-flush-log-at-trx-commit": "1", "max-connections": "200",
            **(options or {}),
        }  # fmt: skip

    def install_data(self) -> Path:
        """The data directory made by ``mariadb-install-db`` if it is not there yet; the
        server's own temporary directory."""
        # Its own temporary directory: two set-ups at once in /tmp (two xdist workers) once
        # took each other's temporary tables ("Can't find file: '/tmp/#sql-temptable-…'").
        tmpdir = self.root / "tmp"
        tmpdir.mkdir(exist_ok=True)
        if not (self.data / "mysql").is_dir():
            proc = subprocess.run(
                [
                    self.install, "--no-defaults", f"--datadir={self.data}", "--user=root",
                    "--auth-root-authentication-method=normal", "--skip-test-db",
                    f"--tmpdir={tmpdir}",
                ],
                capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip
            if proc.returncode != 0:
                raise RuntimeError(f"mariadb-install-db failed:\n{proc.stdout}{proc.stderr}")
        return tmpdir

    def start(self) -> None:
        assert not self.running
        tmpdir = self.install_data()
        self.proc = subprocess.Popen(
            [
                self.server, "--no-defaults", f"--datadir={self.data}", f"--port={self.port}",
                "--bind-address=127.0.0.1", f"--socket={self.root / 'sock'}", "--user=root",
                f"--pid-file={self.root / 'pid'}", f"--log-error={self.log}", f"--tmpdir={tmpdir}",
                "--skip-name-resolve", *(f"--{key}={value}" for key, value in self.options.items()),
            ],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip

        def ready() -> bool:
            self.sql(f"CREATE DATABASE IF NOT EXISTS {self.database}", use_database=False)
            return True

        _wait_ready(f"mariadbd on port {self.port}", ready, self.proc, self.log, 60)

    def wipe(self) -> None:
        assert not self.running
        shutil.rmtree(self.data, ignore_errors=True)


# --- Redis -------------------------------------------------------------------------------

DURABLE = {"appendonly": "yes", "appendfsync": "always", "maxmemory-policy": "noeviction"}


class RedisServer(OwnServer):
    """One ``redis-server`` on a config file of ours: by default durable (``appendonly
    yes``, ``appendfsync always``, no eviction); ``settings`` are added to it."""

    name = "redis"

    def __init__(
        self, binary: str, settings: Mapping[str, str] | None = None, root: Path | None = None
    ) -> None:
        self.binary = binary
        self.root = root or Path(tempfile.mkdtemp(prefix="snowid-redis-"))
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.settings = {**DURABLE, **(settings or {})}

    def url(self, query: str = "", port: int | None = None) -> str:
        base = f"redis://127.0.0.1:{port or self.port}/0"
        return f"{base}?{query}" if query else base

    def config(self) -> str:
        """The text of its config file."""
        lines = {
            "bind": "127.0.0.1", "port": str(self.port), "dir": str(self.root),
            "daemonize": "no", "save": '""', "logfile": str(self.root / "redis.log"),
            "appendfilename": "appendonly.aof", **self.settings,
        }  # fmt: skip
        return "".join(f"{key} {value}\n" for key, value in lines.items())

    def start(self) -> None:
        assert not self.running
        config = self.root / "redis.conf"
        config.write_text(self.config())
        self.proc = subprocess.Popen(
            [self.binary, str(config)],
            cwd=self.root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        log = self.root / "redis.log"
        what = f"{Path(self.binary).name} on port {self.port}"
        _wait_ready(what, self.client().ping, self.proc, log, 30)

    def client(self) -> Any:
        import redis

        password = self.settings.get("requirepass")
        return redis.Redis(
            port=self.port, password=password, socket_timeout=5, decode_responses=True
        )

    def wipe(self) -> None:
        """With the server down: remove its data, as a restart on an empty volume."""
        assert not self.running
        for path in self.root.iterdir():
            if path.name not in ("redis.conf", "redis.log"):
                if path.is_dir():
                    shutil.rmtree(path)
                else:
                    path.unlink()
