"""PostgreSQL leases behind PgBouncer in transaction mode (docs/leases.md case 25).

Each test starts its own ``pgbouncer`` (Debian 12 ships 1.18, which cannot track
prepared statements) on a free loopback port, with ``pool_mode = transaction`` and
fewer server connections than clients, so consecutive statements of one client run on
whatever server session is free. The lease must rely on no session state and no
server-side prepared statement; a control test shows that the pooler really does break
code that does.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from snowid import TWITTER, Generator
from snowid.lease import init_lease, lease_status, open_lease
from snowid.lease.postgres import PostgresLease
from tests.support.holders import wait_until
from tests.support.need import unavailable
from tests.support.pg import pg_available, sql
from tests.support.web import free_port

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]

PGBOUNCER = "/usr/sbin/pgbouncer"


@dataclass
class Bouncer:
    port: int
    proc: subprocess.Popen[bytes]
    log: Path

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/test"

    def admin(self, command: str) -> list[tuple[object, ...]]:
        """A command on PgBouncer's admin console (SHOW SERVERS, SHOW CLIENTS...)."""
        import psycopg

        admin_url = f"postgresql://postgres@127.0.0.1:{self.port}/pgbouncer"
        with psycopg.connect(admin_url, autocommit=True, connect_timeout=3) as conn:
            return list(conn.execute(command).fetchall())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def _unprivileged_user() -> str:
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    pytest.skip("pgbouncer refuses to run as root and there is no postgres or nobody user")


def _port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def start_pgbouncer(directory: Path, *, pool_size: int) -> Bouncer:
    """Our own pgbouncer (transaction pooling, trust auth) in front of 127.0.0.1:5432."""
    if not os.path.exists(PGBOUNCER):  # scripts/test installs it
        unavailable(f"{PGBOUNCER} is not installed (apt-get install pgbouncer)")
    if not pg_available():  # scripts/test starts it
        unavailable("PostgreSQL is not reachable on 127.0.0.1:5432")
    directory.mkdir(parents=True, exist_ok=True)
    users = directory / "users.txt"
    users.write_text('"postgres" ""\n')
    log = directory / "pgbouncer.log"
    for _ in range(3):  # the free port may be taken between the probe and the bind
        port = free_port()
        ini = directory / "pgbouncer.ini"
        ini.write_text(
            "[databases]\n"
            "test = host=127.0.0.1 port=5432 dbname=test\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {users}\nadmin_users = postgres\n"
            f"pool_mode = transaction\ndefault_pool_size = {pool_size}\n"
            "min_pool_size = 0\nreserve_pool_size = 0\nmax_client_conn = 100\n"
            "server_round_robin = 1\nlogfile =\npidfile =\n"
        )
        command = [PGBOUNCER]
        if os.geteuid() == 0:  # "PgBouncer should not run as root"; it reads the config first
            command += ["-u", _unprivileged_user()]
        command.append(str(ini))
        with log.open("ab") as out:
            proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        bouncer = Bouncer(port, proc, log)
        deadline = time.monotonic() + 10
        while proc.poll() is None and time.monotonic() < deadline:
            if _port_open(port):
                return bouncer
            time.sleep(0.05)
        bouncer.stop()
    pytest.fail(f"pgbouncer did not start:\n{log.read_text()}")


@pytest.fixture
def bouncers(tmp_path: Path) -> Iterator[Callable[[int], Bouncer]]:
    started: list[Bouncer] = []

    def start(pool_size: int) -> Bouncer:
        bouncer = start_pgbouncer(tmp_path / f"bouncer{len(started)}", pool_size=pool_size)
        started.append(bouncer)
        return bouncer

    yield start
    for bouncer in started:
        bouncer.stop()


@pytest.fixture
def schema() -> Iterator[str]:
    """A unique schema, created by the lease itself (through the pooler), dropped after."""
    name = f"s_{uuid.uuid4().hex[:12]}"
    yield name
    if pg_available():
        sql(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


@dataclass
class Claimant:
    url: str
    seconds: float
    ids: list[int] = field(default_factory=list)
    workers: set[int] = field(default_factory=set)
    ceiling_ms: int = -1
    renewals: int = 0
    renew_failures: int = 0
    event_kinds: list[str] = field(default_factory=list)
    error: BaseException | None = None

    def run(self, started: threading.Barrier) -> None:
        try:
            lease = open_lease(self.url)
            assert isinstance(lease, PostgresLease)
            with lease:
                generator = Generator(fence=lease)
                started.wait(10)
                end = time.monotonic() + self.seconds
                while time.monotonic() < end:
                    self.ids += generator.next_ids(200)
                    assert lease.worker is not None
                    self.workers.add(lease.worker)
                    time.sleep(0.01)
                self.ceiling_ms = lease.ceiling_ms
                self.renewals, self.renew_failures = lease.renewals, lease.renew_failures
                self.event_kinds = [e.kind for e in lease.events]
        except BaseException as error:  # reported by the test, not lost in the thread
            self.error = error
            with contextlib.suppress(threading.BrokenBarrierError):
                started.abort()


def test_claimants_renew_and_release_through_pgbouncer_transaction_mode(
    bouncers: Callable[[int], Bouncer], schema: str
) -> None:
    """Case 25: init, 4 claimants sharing 2 server connections, renewals over 2 TTLs,
    release: distinct workers, no failed renewal, all ids unique, every worker free after."""
    bouncer = bouncers(2)
    # A statement may take 1 s (a harness margin: the default, the renewal interval, and
    # the 0.5 s this test gave before are short for a statement queued behind 3 others on
    # a busy machine), well within the holder's local deadline after its last renewal.
    url = f"{bouncer.url}?schema={schema}&table=leases&range=0-7&ttl=2&renew=0.2&timeout=1"
    info = init_lease(url, first_deployment=True)  # the schema set-up transaction, pooled
    assert info["created"] is True
    assert init_lease(url)["created"] is False  # idempotent through the pooler too

    claimants = [Claimant(url, seconds=4.0) for _ in range(4)]
    started = threading.Barrier(len(claimants) + 1)
    threads = [threading.Thread(target=c.run, args=(started,)) for c in claimants]
    for thread in threads:
        thread.start()
    started.wait(20)
    time.sleep(1.0)
    clients = [r for r in bouncer.admin("SHOW CLIENTS") if r[2] == "test"]
    servers = [r for r in bouncer.admin("SHOW SERVERS") if r[2] == "test"]
    for thread in threads:
        thread.join(30)
    for claimant in claimants:
        if claimant.error is not None:
            raise claimant.error
    assert not any(thread.is_alive() for thread in threads)

    # The pooler really multiplexed: 4 lease sessions over at most 2 server sessions.
    assert len(clients) >= 4
    assert 1 <= len(servers) <= 2
    workers = [c.workers for c in claimants]
    assert all(len(w) == 1 for w in workers), workers  # nobody lost its identity
    assert len(set().union(*workers)) == 4
    for claimant in claimants:
        assert claimant.renew_failures == 0
        assert claimant.renewals >= 8  # 4 s at one renewal per 0.2 s (+ the claim)
        assert "lost" not in claimant.event_kinds
        assert "expired" not in claimant.event_kinds
        assert claimant.ids == sorted(set(claimant.ids))
        assert max(TWITTER.timestamp_of(v) for v in claimant.ids) <= claimant.ceiling_ms
    every = [v for c in claimants for v in c.ids]
    assert len(set(every)) == len(every)

    rows = lease_status(url)  # read through the pooler as well
    assert sorted(r.worker for r in rows) == sorted(set().union(*workers))
    assert not any(r.held for r in rows)  # released at close, not left to expire
    assert bouncer.proc.poll() is None


def test_released_worker_is_reclaimed_at_once_through_pgbouncer(
    bouncers: Callable[[int], Bouncer], schema: str
) -> None:
    """Case 25: release and re-claim over one pooled server session; the successor of a
    released worker starts above its ceiling (the CAS statements see one consistent row)."""
    bouncer = bouncers(1)
    # Renewals every 0.1 s; a statement may take 1 s (the default, the renewal interval,
    # fails on a loaded machine), within the TTL of 2 s.
    url = f"{bouncer.url}?schema={schema}&table=leases&range=5-5&ttl=2&renew=0.1&timeout=1"
    init_lease(url, first_deployment=True)
    previous: list[int] = []
    epochs = []
    for _ in range(3):
        lease = open_lease(url, claim_wait=5)
        with lease:
            grant = lease.acquire(0)
            epochs.append(grant.epoch)
            if previous:
                assert grant.start_ms > max(TWITTER.timestamp_of(v) for v in previous)
            generator = Generator(fence=lease)
            ids = generator.next_ids(2000)
            # a few renewals on the shared server session (0.3 s unloaded)
            wanted = lease.renewals + 3
            wait_until(lambda held=lease, n=wanted: held.renewals >= n, 10, "three renewals")
            ids += generator.next_ids(2000)
            assert lease.renew_failures == 0
            assert not previous or min(ids) > max(previous)
            previous = ids
    assert epochs == sorted(set(epochs))
    assert len(epochs) == 3


def test_server_side_prepare_breaks_behind_this_pooler(bouncers: Callable[[int], Bouncer]) -> None:
    """Control: psycopg's server-side prepare (prepare_threshold=0) collides on the shared
    server session, while the lease's setting (prepare_threshold=None) works - so the
    tests above would catch a lease that relied on prepared statements."""
    import psycopg

    bouncer = bouncers(1)
    with (
        psycopg.connect(bouncer.url, autocommit=True, prepare_threshold=0) as a,
        psycopg.connect(bouncer.url, autocommit=True, prepare_threshold=0) as b,
    ):
        assert a.execute("SELECT %s::int", (1,)).fetchall() == [(1,)]
        with pytest.raises(psycopg.errors.DuplicatePreparedStatement):
            b.execute("SELECT %s::int", (2,))
    with (
        psycopg.connect(bouncer.url, autocommit=True, prepare_threshold=None) as a,
        psycopg.connect(bouncer.url, autocommit=True, prepare_threshold=None) as b,
    ):
        for i in range(20):
            conn = a if i % 2 else b
            assert conn.execute("SELECT %s::int", (i,)).fetchall() == [(i,)]
