"""MySQL / MariaDB leases: what only this backend has (the server checks of strict mode,
the claim under concurrency, a stalled row, URLs and TLS modes). The fault cases shared
with PostgreSQL and Redis are in test_store_faults.py and test_store_regressed.py (and the
slow store, asyncio and chaos modules); restarts, a frozen server and an emptied one in
test_store_restart.py.

Tests that change server settings run on a mariadbd of the module's own
(tests/support/mysql.py); the others use a fresh table on the shared server.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from snowid import TWITTER
from snowid.cli import main
from snowid.errors import (
    InvalidLeaseUrlError,
    NoFreeIdentityError,
    StoreNotDurableError,
    StoreRefusedError,
    StoreUnreachableError,
    StoreVersionError,
)
from snowid.lease import init_lease, lease_status, open_lease
from snowid.lease._mysqlconn import parse_version
from tests.support.mysql import (
    SHARED,
    fresh_table,
    maria,
    maria_server,
    murl,
    open_mysql,
    sql,
)
from tests.support.servers import MariaServer, new_name

__all__ = ["maria", "murl"]  # fixtures, imported for pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


@pytest.fixture
def table() -> Iterator[str]:
    """A fresh lease table on the shared server (first deployment: no quarantine)."""
    with fresh_table() as name:
        yield name


def _tables(server: MariaServer, table: str) -> list[str]:
    rows = server.sql("SHOW TABLES LIKE %s", (f"{table}%",))
    return sorted(row[0] for row in rows)


# --- strict mode: the server must keep what it acknowledged ----------------------------


def test_strict_mode_refuses_unflushed_commits_before_setting_anything_up(
    maria: MariaServer,
) -> None:
    """innodb_flush_log_at_trx_commit = 2 (commits reach the log file only once a second):
    refused, naming the setting, and nothing is created - the check comes first. The
    best_effort opt-in accepts the same server and logs one warning."""
    table = new_name()
    url = maria.url(f"table={table}&range=0-0&ttl=1&timeout=2")
    maria.sql("SET GLOBAL innodb_flush_log_at_trx_commit = 2")
    try:
        with open_mysql(url) as lease, pytest.raises(StoreNotDurableError) as caught:
            lease.acquire(0)
        error = caught.value
        assert (error.setting, error.found, error.required) == (
            "innodb_flush_log_at_trx_commit",
            "2",
            "1",
        )
        assert "innodb_flush_log_at_trx_commit is 2" in str(error)
        assert "innodb_flush_log_at_trx_commit" in error.message("vi")
        with pytest.raises(StoreNotDurableError):
            init_lease(url, first_deployment=True)
        assert _tables(maria, table) == []  # refused before anything was written
    finally:
        maria.sql("SET GLOBAL innodb_flush_log_at_trx_commit = 1")


def test_best_effort_accepts_unflushed_commits_and_says_so_once(
    maria: MariaServer, caplog: pytest.LogCaptureFixture
) -> None:
    table = new_name()
    url = maria.url(f"table={table}&range=0-1&ttl=1&timeout=2&durability=best_effort")
    maria.sql("SET GLOBAL innodb_flush_log_at_trx_commit = 0")
    try:
        with caplog.at_level(logging.WARNING, logger="snowid.lease"):
            for _ in range(2):
                with open_mysql(url) as lease:
                    lease.acquire(0)
        warned = [r for r in caplog.records if "best_effort" in r.getMessage()]
        assert len(warned) == 1
        assert "innodb_flush_log_at_trx_commit 0" in warned[0].getMessage()
    finally:
        maria.sql("SET GLOBAL innodb_flush_log_at_trx_commit = 1")


def test_a_binary_log_without_sync_binlog_is_refused() -> None:
    """With the binary log on, a crash can roll back a commit whose binlog entry was not
    synced (sync_binlog = 0), even with innodb_flush_log_at_trx_commit = 1."""
    with maria_server({"log-bin": "binlog", "sync-binlog": "0"}) as server:
        url = server.url(f"table={new_name()}&range=0-0&ttl=1&timeout=2")
        with open_mysql(url) as lease, pytest.raises(StoreNotDurableError) as caught:
            lease.acquire(0)
        assert caught.value.setting == "sync_binlog"
        server.sql("SET GLOBAL sync_binlog = 1")
        init_lease(url, first_deployment=True)
        with open_mysql(url) as lease:
            lease.acquire(0)


def test_a_read_only_server_is_refused(maria: MariaServer) -> None:
    """A replica (read_only = ON) cannot hold the lease table: refused by name."""
    maria.sql("SET GLOBAL read_only = ON")
    try:
        with (
            open_mysql(maria.url(f"table={new_name()}&ttl=1&timeout=2")) as lease,
            pytest.raises(StoreRefusedError) as caught,
        ):
            lease.acquire(0)
        assert "read_only=ON" in caught.value.reason
    finally:
        maria.sql("SET GLOBAL read_only = OFF")


def test_a_server_too_old_for_skip_locked_is_refused(
    table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The version check runs on every new connection: with this server's own release
    required to be 99.0.0, it is refused with StoreVersionError naming both."""
    from snowid.lease import _mysqlconn, mysql

    product, _ = parse_version(sql("SELECT VERSION()")[0][0])
    monkeypatch.setitem(_mysqlconn.MIN_VERSION, product, (99, 0, 0))
    assert mysql.MIN_VERSION[product] == (99, 0, 0)
    with (
        open_mysql(f"{SHARED}?table={table}&ttl=1&timeout=2") as lease,
        pytest.raises(StoreVersionError) as caught,
    ):
        lease.acquire(0)
    error = caught.value
    assert error.product == product
    assert error.required == f"{product} 99.0.0"
    assert "SKIP LOCKED" in str(error)
    assert "99.0.0" in error.message("vi")


@pytest.mark.parametrize(
    ("version", "product", "numbers", "supported"),
    [
        ("10.11.19-MariaDB-0+deb12u1", "MariaDB", (10, 11, 19), True),
        ("10.6.0-MariaDB", "MariaDB", (10, 6, 0), True),
        ("10.5.23-MariaDB-log", "MariaDB", (10, 5, 23), False),
        ("5.5.5-10.4.32-MariaDB", "MariaDB", (10, 4, 32), False),  # the old version prefix
        ("11.4.2-MariaDB-ubu2404", "MariaDB", (11, 4, 2), True),
        ("8.0.36", "MySQL", (8, 0, 36), True),
        ("8.0.0-dmr", "MySQL", (8, 0, 0), False),
        ("5.7.44-log", "MySQL", (5, 7, 44), False),
        ("8.4.0-commercial", "MySQL", (8, 4, 0), True),
    ],
)
def test_server_versions(
    version: str, product: str, numbers: tuple[int, int, int], supported: bool
) -> None:
    from snowid.lease._mysqlconn import MIN_VERSION

    assert parse_version(version) == (product, numbers)
    assert (numbers >= MIN_VERSION[product]) is supported


def test_a_table_in_another_engine_is_refused(table: str) -> None:
    """MyISAM has no transactions and no row locks: SKIP LOCKED would mean nothing."""
    sql(f"ALTER TABLE {table} ENGINE=MyISAM")
    with (
        open_mysql(f"{SHARED}?table={table}&ttl=1&timeout=2") as lease,
        pytest.raises(StoreRefusedError) as caught,
    ):
        lease.acquire(0)
    assert "MyISAM" in caught.value.reason


# --- claims under concurrency ------------------------------------------------------------


def test_sixty_four_claimers_at_once_each_get_a_worker(table: str) -> None:
    """64 threads claim at the same moment from 100 free workers: every one gets its own,
    none is told all are held. (A claim that sorted by ceiling without the by_ceiling
    index locked every free row it read before picking one, so the others, skipping
    locked rows, found none free.)"""
    url = f"{SHARED}?table={table}&range=0-99&ttl=5"
    leases = [open_mysql(url) for _ in range(64)]
    for lease in leases:
        lease._connect()  # connected and checked first: the claims themselves race
    barrier = threading.Barrier(len(leases))
    errors: list[BaseException] = []

    def claim(lease: object) -> None:
        barrier.wait(10)
        try:
            lease.acquire(0)  # type: ignore[attr-defined]
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=claim, args=(lease,)) for lease in leases]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    try:
        assert errors == []
        assert len({lease.worker for lease in leases}) == 64
    finally:
        for lease in leases:
            lease.close()


def test_the_lowest_ceiling_is_claimed_first(table: str) -> None:
    """The successor most likely to start at once: the free worker with the lowest ceiling."""
    sql(
        f"UPDATE {table} SET ceiling_ms = CAST(FLOOR(UNIX_TIMESTAMP(SYSDATE(6)) * 1000)"
        " AS SIGNED) + 600000 - worker WHERE worker <= 2"
    )
    sql(f"UPDATE {table} SET ceiling_ms = 5 WHERE worker = 2")
    with open_mysql(f"{SHARED}?table={table}&range=0-2&ttl=1&timeout=2") as lease:
        grant = lease.acquire(0)
        assert TWITTER.worker(grant.datacenter, grant.machine) == 2
        assert grant.start_ms == 6


# --- a stalled row: timeouts end the server's side too ---------------------------------


def test_timed_out_renewals_do_not_pile_up_on_the_server(maria: MariaServer, murl: str) -> None:
    """Another session holds the lease row's lock for 4 s: each renewal times out after
    1.1 s and is retried; the session each one abandoned is ended on the server (KILL),
    so at most about one waits at a time and none waits out innodb_lock_wait_timeout
    (the timeout rounded up: 2 s, so a KILL has 0.9 s to land). Without it each waited the
    full lock wait and they piled up (3 at a time, with 0.3 s against 1 s); with a long
    stall a fleet of holders could exhaust max_connections.

    On the module's own server, so that its KILL counter (Com_kill) counts this lease's
    KILLs alone: that the sessions were KILLed is read there, not guessed from how long
    they lived (on a busy machine a KILL can take most of a second to arrive)."""
    import pymysql

    table = murl.partition("table=")[2]
    lease = open_mysql(f"{murl}&range=0-0&ttl=3&renew=0.5&timeout=1.1&span=2")
    deadline = time.monotonic() + 30  # a busy machine's round trip can outlast 1.1 s
    while True:
        try:
            lease.acquire(0)
            break
        except StoreUnreachableError:
            assert time.monotonic() < deadline, "no claim in 30 s"
    kills_before = _status(maria, "Com_kill")
    waiting, oldest_ms = 0, 0.0
    locker = pymysql.connect(
        host="127.0.0.1", port=maria.port, user="root", database=maria.database, ssl_disabled=True
    )
    try:
        with locker.cursor() as cur:
            cur.execute("START TRANSACTION")
            cur.execute(f"SELECT 1 FROM {table} WHERE worker = 0 FOR UPDATE")
        deadline = time.monotonic() + 4.0
        while time.monotonic() < deadline:
            time.sleep(0.05)
            ((count, longest),) = maria.sql(
                "SELECT COUNT(*), COALESCE(MAX(time_ms), 0)"
                " FROM information_schema.processlist WHERE info LIKE %s",
                (f"SELECT ceiling_ms INTO @snowid_old FROM `{table}`%",),
            )
            waiting, oldest_ms = max(waiting, count), max(oldest_ms, float(longest))
        locker.rollback()
    finally:
        locker.close()
        lease.close()
    kills = _status(maria, "Com_kill") - kills_before
    assert lease.renew_failures >= 2  # the stall was real: renewals timed out
    assert kills >= 1  # their sessions were KILLed
    assert 1 <= waiting <= 2
    assert oldest_ms < 2000  # none waited out the 2 s lock wait


def _status(server: MariaServer, name: str) -> int:
    ((_, value),) = server.sql("SHOW GLOBAL STATUS LIKE %s", (name,))
    return int(value)


# --- URLs, passwords, the CLI, the service ------------------------------------------------


def test_password_is_used_and_never_printed(
    maria: MariaServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """mysql://user:pw@host/db: the lease authenticates; its URL, its errors and `snowid
    lease status` never show the password, right or wrong."""
    maria.sql("CREATE USER IF NOT EXISTS 'fleet'@'%' IDENTIFIED BY 's3cret-pw'")
    maria.sql("GRANT ALL ON snowid.* TO 'fleet'@'%'")
    url = f"mysql://fleet:s3cret-pw@127.0.0.1:{maria.port}/snowid?table={new_name()}&range=0-1&ttl=1&timeout=2"
    init_lease(url, first_deployment=True)
    with open_mysql(url) as lease:
        lease.acquire(0)
        assert "s3cret" not in lease.url
        assert "s3cret" not in repr(lease)
        assert main(["lease", "status", url, "--json"]) == 0
        out = capsys.readouterr().out
        assert "s3cret" not in out
        assert [r["held"] for r in json.loads(out)["identities"]] == [True]
    wrong = url.replace("s3cret-pw", "s3cret-wrong")
    with open_mysql(wrong) as lease, pytest.raises(StoreUnreachableError) as caught:
        lease.acquire(0)
    assert "Access denied" in caught.value.reason
    for text in (str(caught.value), caught.value.message("vi")):
        assert "s3cret" not in text
    assert main(["lease", "status", wrong]) == 1
    assert "s3cret" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("durability=sometimes", "choice"),
        ("ssl_mode=on", "choice"),
        ("rnage=0-7", "unknown_option"),
        ("table=Robert';drop", "identifier"),
        ("range=9-3", "worker_range"),
        ("ttl=-1", "seconds"),
    ],
)
def test_bad_mysql_urls_are_refused_without_connecting(query: str, reason: str) -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(f"mysql://u:pw@127.0.0.1:1/db?{query}")
    assert caught.value.reason == reason
    assert ":pw@" not in str(caught.value)


def test_a_url_without_a_database_is_refused() -> None:
    for url in ("mysql://u:pw@127.0.0.1", "mysql://u:pw@127.0.0.1:3306/", "mariadb://h/a/b"):
        with pytest.raises(InvalidLeaseUrlError) as caught:
            open_lease(url)
        assert caught.value.reason == "database_missing"


def test_url_parts_reach_the_driver() -> None:
    """mariadb:// is the same backend; user and password are percent-decoded; TLS follows
    ssl_mode as the mysql client's --ssl-mode does."""
    lease = open_mysql(
        "mariadb://app%40eu:p%2Fw@db.example.invalid:3307/ids?range=0-7"
        "&ssl_mode=verify_identity&ssl_ca=/etc/ca.pem"
    )
    assert lease.connection["host"] == "db.example.invalid"
    assert (lease.connection["port"], lease.connection["database"]) == (3307, "ids")
    assert (lease.connection["user"], lease.connection["password"]) == ("app@eu", "p/w")
    assert lease.connection["ssl"] == {
        "verify_mode": True,
        "check_hostname": True,
        "ca": "/etc/ca.pem",
    }
    assert (lease.first, lease.last) == (0, 7)
    assert "p%2Fw" not in lease.url
    lease.close()
    assert open_mysql("mysql://h/db?ssl_mode=disabled").connection["ssl_disabled"] is True
    assert "ssl" not in open_mysql("mysql://h/db").connection  # preferred: PyMySQL's default
    socket_lease = open_mysql("mysql://root@localhost/db?unix_socket=/run/mysqld/mysqld.sock")
    assert socket_lease.connection["unix_socket"] == "/run/mysqld/mysqld.sock"


def test_cli_init_and_status(table: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`snowid lease init` sets a new store up (quarantined unless --first-deployment) and is
    idempotent; `snowid lease status` lists the holder, its epoch and ceiling."""
    name = new_name()
    url = f"{SHARED}?table={name}&range=0-3&ttl=1&timeout=2&max_skew=0.5"
    try:
        assert main(["lease", "init", url]) == 0
        out = capsys.readouterr().out
        assert "created" in out
        assert "--first-deployment" in out
        now = int(time.time() * 1000)
        ((low, rows),) = sql(f"SELECT MIN(ceiling_ms), COUNT(*) FROM {name}")
        assert rows == 1024
        assert low > now + 2000  # ttl + span + max_skew = 2.5 s of quarantine
        assert main(["lease", "init", url, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["created"] is False
    finally:
        sql(f"DROP TABLE IF EXISTS {name}, {name}_meta")

    fresh = f"{SHARED}?table={table}&range=0-3&ttl=1&timeout=2"
    assert main(["lease", "init", fresh, "--first-deployment", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["created"], result["quarantined"]) == (False, False)  # the fixture made it
    with open_mysql(fresh) as lease:
        grant = lease.acquire(0)
        assert main(["lease", "status", fresh, "--json"]) == 0
        (row,) = json.loads(capsys.readouterr().out)["identities"]
        assert (row["worker"], row["held"], row["epoch"]) == (lease.worker, True, 1)
        assert row["ceiling_ms"] >= grant.ceiling_ms
        assert row["since_ms"] is not None
        assert main(["lease", "status", fresh]) == 0
        assert "pid" in capsys.readouterr().out
    assert main(["lease", "status", fresh]) == 0
    assert "no identity" in capsys.readouterr().out
    assert main(["lease", "status", fresh, "--all", "--json"]) == 0
    assert [r["held"] for r in json.loads(capsys.readouterr().out)["identities"]] == [False]
    assert [r.worker for r in lease_status(fresh)] == [0]


def test_cli_refuses_a_server_that_can_lose_writes(
    maria: MariaServer, capsys: pytest.CaptureFixture[str]
) -> None:
    maria.sql("SET GLOBAL innodb_flush_log_at_trx_commit = 2")
    try:
        assert main(["lease", "init", maria.url(f"table={new_name()}")]) == 1
    finally:
        maria.sql("SET GLOBAL innodb_flush_log_at_trx_commit = 1")
    assert "innodb_flush_log_at_trx_commit is 2" in capsys.readouterr().err


def test_status_of_a_store_never_set_up_is_empty() -> None:
    assert lease_status(f"{SHARED}?table={new_name()}") == []


def test_serve_with_a_mysql_lease(table: str, tmp_path: Path) -> None:
    """`snowid serve --lease mysql://…` serves ids from the identity it claimed."""
    import httpx

    from snowid import SnowId
    from tests.web.test_serve import STARTED, running_serve

    url = f"{SHARED}?table={table}"
    log = tmp_path / "serve.log"
    with running_serve(["--lease", f"{url}&range=5-5&ttl=2"], log) as base:
        ids = httpx.post(f"{base}/api/ids?count=3").json()["ids"]
        assert {SnowId.from_str(i).parts[1:3] for i in ids} == {TWITTER.split_worker(5)}
        assert [row.held for row in lease_status(url)] == [True]
    assert [(dc, m) for _, dc, m in STARTED.findall(log.read_text())] == [("0", "5")]
    assert [row.held for row in lease_status(url)] == [False]  # released at SIGTERM


def test_exhaustion_is_no_free_identity(table: str) -> None:
    url = f"{SHARED}?table={table}&range=0-1&ttl=5"
    with open_mysql(url) as a, open_mysql(url) as b, open_mysql(url) as c:
        a.acquire(0)
        b.acquire(0)
        with pytest.raises(NoFreeIdentityError):
            c.acquire(0)
