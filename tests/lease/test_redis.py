"""Redis leases: what only Redis has (strict mode, docs/leases.md case 24; URLs, TLS, the
CLI). The fault cases shared with PostgreSQL and MySQL are in test_store_faults.py and
test_store_regressed.py (and the slow store, asyncio and chaos modules); restarts, a frozen
server and an emptied one in test_store_restart.py.

Every test starts its own redis-server (tests/support/redis.py) except the ones
that show the shared server on 127.0.0.1:6379 (``appendonly no``) is refused.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import pytest

from snowid import TWITTER, Generator
from snowid.cli import main
from snowid.errors import (
    LeaseError,
    StoreConfigHiddenError,
    StoreNotDurableError,
    StoreRefusedError,
    StoreReplicationError,
    StoreUnreachableError,
)
from snowid.lease import init_lease, lease_status
from tests.support.holders import wait_until
from tests.support.redis import (
    SHARED,
    open_redis,
    redis_server,
    rurl,
    server,
)
from tests.support.servers import RedisServer, new_name

__all__ = ["rurl", "server"]  # fixtures, imported for pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]


def _keys(client: object, prefix: str) -> list[str]:
    return sorted(client.keys(f"{{{prefix}}}:*"))  # type: ignore[attr-defined]


# --- strict mode (case 24) -------------------------------------------------------------


def test_strict_mode_refuses_the_shared_server_that_keeps_nothing_on_disk() -> None:
    """The shared Redis runs with appendonly no: refused, naming the setting, and nothing
    is written (not even the set-up): the check comes before anything else."""
    import redis

    prefix = new_name()
    lease = open_redis(f"{SHARED}?key={prefix}&range=0-0&ttl=1&timeout=2")
    with lease, pytest.raises(StoreNotDurableError) as caught:
        lease.acquire(0)
    error = caught.value
    assert (error.setting, error.found, error.required) == ("appendonly", "no", "yes")
    assert "appendonly is no" in str(error)
    assert "durability=best_effort" in str(error)
    assert "appendonly" in error.message("vi")
    with pytest.raises(StoreNotDurableError):
        init_lease(f"{SHARED}?key={prefix}")
    assert _keys(redis.Redis(decode_responses=True), prefix) == []


@pytest.mark.parametrize(
    ("settings", "setting", "found"),
    [
        pytest.param({"maxmemory-policy": "allkeys-lru"}, "maxmemory-policy", "allkeys-lru"),
        pytest.param({"appendonly": "no"}, "appendonly", "no"),
        pytest.param({"appendfsync": "no"}, "appendfsync", "no"),
    ],
)
def test_strict_mode_refuses_a_server_that_can_lose_writes_before_setting_it_up(
    tmp_path: Path, settings: dict[str, str], setting: str, found: str
) -> None:
    """Case 24: an evicting policy, no append-only file, or an AOF the OS flushes when it
    likes: the claim and `snowid lease init` refuse with the setting named, before the
    store is set up or quarantined (no key is written)."""
    with redis_server(tmp_path / "r", settings) as srv:
        prefix = new_name()
        url = srv.url(f"key={prefix}&range=0-0&ttl=1&timeout=2")
        with open_redis(url) as lease, pytest.raises(StoreNotDurableError) as caught:
            lease.acquire(0)
        assert (caught.value.setting, caught.value.found) == (setting, found)
        with pytest.raises(StoreNotDurableError):
            init_lease(url)
        assert _keys(srv.client(), prefix) == []
        # The opt-in accepts the same server (the risk is the operator's).
        with open_redis(f"{url}&durability=best_effort") as lease:
            assert lease.acquire(0).epoch == 1


def test_everysec_and_volatile_eviction_are_accepted(tmp_path: Path) -> None:
    """appendfsync everysec writes each command to the file before answering (a crash of
    the server loses nothing; see docs/lease-redis.md), and volatile-* eviction never
    touches our keys, which have no TTL."""
    settings = {"appendfsync": "everysec", "maxmemory-policy": "volatile-lru"}
    with redis_server(tmp_path / "r", settings) as srv:
        with open_redis(srv.url(f"key={new_name()}&range=0-0&ttl=1&timeout=2")) as lease:
            assert Generator(fence=lease).next_ids(100)
        client = srv.client()
        assert all(client.ttl(key) == -1 for key in client.keys("*"))  # no TTL anywhere


def test_hidden_config_needs_the_opt_in_which_is_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Managed Redis often blocks CONFIG: strict mode cannot vouch for the server and says
    so; durability=best_effort works and warns once per process and store, not per lease."""
    with redis_server(tmp_path / "r", {"rename-command": 'CONFIG ""'}) as srv:
        url = srv.url(f"key={new_name()}&range=0-1&ttl=1&timeout=2")
        with open_redis(url) as lease, pytest.raises(StoreConfigHiddenError) as caught:
            lease.acquire(0)
        assert "CONFIG" in caught.value.reason or "config" in caught.value.reason.lower()
        with caplog.at_level(logging.WARNING, logger="snowid.lease"):
            for _ in range(2):
                with open_redis(f"{url}&durability=best_effort") as lease:
                    lease.acquire(0)
        warnings = [r for r in caplog.records if "best_effort" in r.getMessage()]
        assert len(warnings) == 1


def test_a_replica_confirms_every_write_and_a_stalled_one_stops_the_lease(
    tmp_path: Path,
) -> None:
    """With a replica attached, each claim and renewal waits for it (WAIT); when the replica
    stops answering, the write is not confirmed and its ceiling is not used."""
    with redis_server(tmp_path / "primary") as primary:
        replica_of = {"replicaof": f"127.0.0.1 {primary.port}"}
        with redis_server(tmp_path / "replica", replica_of) as replica:
            wait_until(
                lambda: (
                    primary.client().info("replication")["connected_slaves"] == 1
                    and replica.client().info("replication")["master_link_status"] == "up"
                ),
                10,
                "the replica to sync",
            )
            # timeout=2: each round trip waits for the replica (WAIT) up to it; 0.3 s ran out
            # on a busy machine with the replica well. The paused replica's WAIT still
            # times out, 2 s later.
            url = primary.url(f"key={new_name()}&range=0-1&ttl=5&renew=5&timeout=2")
            init_lease(url, first_deployment=True)
            with open_redis(url) as lease:
                grant = lease.acquire(0)
                assert lease.replicas == 1
                worker = TWITTER.worker(grant.datacenter, grant.machine)
                stored = replica.client().hget(f"{{{lease.keys.prefix}}}:ceiling", worker)
                assert int(stored) == grant.ceiling_ms  # on the replica before we used it
                replica.pause()
                with pytest.raises(StoreReplicationError) as caught:
                    lease.acquire(lease.ceiling_ms + 1)  # a renewal the replica never confirms
                assert (caught.value.acked, caught.value.replicas) == (0, 1)
                assert lease.ceiling_ms == grant.ceiling_ms  # the unconfirmed one is not used
                replica.resume()


def test_a_read_only_replica_is_refused(tmp_path: Path) -> None:
    with redis_server(tmp_path / "primary") as primary:
        replica_of = {"replicaof": f"127.0.0.1 {primary.port}"}
        with redis_server(tmp_path / "replica", replica_of) as replica:
            lease = open_redis(replica.url("range=0-0"))
            with lease, pytest.raises(StoreRefusedError, match="replica"):
                lease.acquire(0)


# --- URLs, passwords, the CLI, the service ------------------------------------------------


def test_password_is_used_and_never_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """redis://:pw@host: the lease authenticates; its URL, its errors and `snowid lease
    status` never show the password, right or wrong."""
    with redis_server(tmp_path / "r", {"requirepass": "s3cret-pw"}) as srv:
        url = (
            f"redis://:s3cret-pw@127.0.0.1:{srv.port}/0?key={new_name()}&range=0-1&ttl=1&timeout=2"
        )
        init_lease(url, first_deployment=True)
        with open_redis(url) as lease:
            lease.acquire(0)
            assert "s3cret" not in lease.url
            assert "s3cret" not in repr(lease)
            assert main(["lease", "status", url, "--json"]) == 0
            out = capsys.readouterr().out
            assert "s3cret" not in out
            assert [r["held"] for r in json.loads(out)["identities"]] == [True]
        wrong = url.replace("s3cret-pw", "s3cret-wrong")
        with open_redis(wrong) as lease, pytest.raises(StoreUnreachableError) as caught:
            lease.acquire(0)
        for text in (str(caught.value), caught.value.message("vi")):
            assert "s3cret" not in text
        assert main(["lease", "status", wrong]) == 1
        assert "s3cret" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("durability=sometimes", "choice"),
        ("rnage=0-7", "unknown_option"),
        ("key=Robert';flushall", "identifier"),
        ("range=9-3", "worker_range"),
        ("ttl=-1", "seconds"),
    ],
)
def test_bad_redis_urls_are_refused_without_connecting(query: str, reason: str) -> None:
    from snowid.errors import InvalidLeaseUrlError
    from snowid.lease import open_lease

    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(f"redis://:pw@127.0.0.1:1/0?{query}")
    assert caught.value.reason == reason
    assert ":pw@" not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("redis://127.0.0.1:1/0?ssl_ca_certs=/ca.pem", "unknown_option"),  # TLS is rediss://
        ("rediss://127.0.0.1:1/0?ssl_cert_reqs=maybe", "choice"),
        ("rediss://127.0.0.1:1/0?ssl_ca_certs=/a%0Ab.pem", "control_character"),
    ],
)
def test_tls_options_are_checked_when_the_url_is_read(url: str, reason: str) -> None:
    """A TLS option on a plain redis:// URL would be ignored (no TLS), a wrong
    certificate requirement would only fail at the first connection as an unreachable
    store: both are refused by name when the lease is opened."""
    from snowid.errors import InvalidLeaseUrlError
    from snowid.lease import open_lease

    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(url)
    assert caught.value.reason == reason


def test_rediss_means_tls_and_the_db_comes_from_the_path() -> None:
    lease = open_redis("rediss://u:pw@example.invalid:6380/3?ssl_cert_reqs=none&range=0-7")
    assert lease.connection["ssl"] is True
    assert lease.connection["ssl_cert_reqs"] == "none"
    assert (lease.connection["host"], lease.connection["port"]) == ("example.invalid", 6380)
    assert (lease.connection["db"], lease.connection["username"]) == (3, "u")
    assert (lease.first, lease.last) == (0, 7)
    assert "pw" not in lease.url
    lease.close()


def test_cli_init_and_status(server: RedisServer, capsys: pytest.CaptureFixture[str]) -> None:
    """`snowid lease init` sets a new store up (quarantined unless --first-deployment) and is
    idempotent; `snowid lease status` lists the holder, its epoch and ceiling."""
    url = server.url(f"key={new_name()}&range=0-3&ttl=1&timeout=2&max_skew=0.5")
    assert main(["lease", "init", url]) == 0
    out = capsys.readouterr().out
    assert "created" in out
    assert "--first-deployment" in out
    client = server.client()
    now = int(time.time() * 1000)
    ceilings = [int(v) for v in client.hvals(open_redis(url).keys.all[2])]
    assert len(ceilings) == 1024
    assert min(ceilings) > now + 2000  # ttl + span + max_skew = 2.5 s of quarantine
    assert main(["lease", "init", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["created"] is False

    fresh = server.url(f"key={new_name()}&range=0-3&ttl=1&timeout=2")
    assert main(["lease", "init", fresh, "--first-deployment", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["created"], result["quarantined"]) == (True, False)
    with open_redis(fresh) as lease:
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


def test_cli_refuses_a_server_that_can_lose_writes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lease", "init", f"{SHARED}?key={new_name()}"]) == 1
    assert "appendonly is no" in capsys.readouterr().err


def test_serve_with_a_redis_lease(server: RedisServer, rurl: str, tmp_path: Path) -> None:
    """`snowid serve --lease redis://…` serves ids from the identity it claimed."""
    import httpx

    from snowid import SnowId
    from tests.web.test_serve import STARTED, running_serve

    log = tmp_path / "serve.log"
    with running_serve(["--lease", f"{rurl}&range=5-5&ttl=2"], log) as url:
        ids = httpx.post(f"{url}/api/ids?count=3").json()["ids"]
        assert {SnowId.from_str(i).parts[1:3] for i in ids} == {TWITTER.split_worker(5)}
        assert [row.held for row in lease_status(rurl)] == [True]
    assert [(dc, m) for _, dc, m in STARTED.findall(log.read_text())] == [("0", "5")]
    assert [row.held for row in lease_status(rurl)] == [False]  # released at SIGTERM


def test_an_out_of_memory_store_is_a_specific_error(tmp_path: Path) -> None:
    """A server at its memory limit (noeviction) refuses writes: the claim says so."""
    with redis_server(tmp_path / "r", {"maxmemory": "1mb"}) as srv:
        url = srv.url(f"key={new_name()}&range=0-0&ttl=1&timeout=2")
        client = srv.client()
        filler = "x" * 100_000
        for i in range(100):
            try:
                client.set(f"filler{i}", filler)
            except Exception:  # the server is full now
                break
        with open_redis(url) as lease, pytest.raises(LeaseError) as caught:
            lease.acquire(0)
        assert isinstance(caught.value, StoreRefusedError)
        assert "OOM" in caught.value.reason or "memory" in caught.value.reason


def test_rediss_connects_over_tls_and_checks_the_certificate(tmp_path: Path) -> None:
    """rediss:// against a TLS-only port: the lease claims with the CA given in the URL;
    without it the self-signed certificate is refused (StoreUnreachableError, no traceback)."""
    import shutil
    import subprocess

    from tests.support.web import free_port

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
         "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    tls_port = free_port()
    settings = {
        "tls-port": str(tls_port), "tls-cert-file": str(cert), "tls-key-file": str(key),
        "tls-ca-cert-file": str(cert), "tls-auth-clients": "no",
    }  # fmt: skip
    with redis_server(tmp_path / "r", settings):
        base = f"rediss://127.0.0.1:{tls_port}/0?key={new_name()}&range=0-0&ttl=1&timeout=2"
        url = f"{base}&ssl_ca_certs={cert}"
        init_lease(url, first_deployment=True)
        with open_redis(url) as lease:
            assert Generator(fence=lease).next_ids(100)
            assert [row.held for row in lease_status(url)] == [True]
        with open_redis(base) as lease, pytest.raises(StoreUnreachableError):
            lease.acquire(0)
