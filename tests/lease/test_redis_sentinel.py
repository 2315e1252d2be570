"""``redis+sentinel://`` lease URLs (issue 26 §1): the URL names the sentinels, the service
and the database; the lease finds the primary through them (redis-py's Sentinel support),
with ``redis://``'s options, and the sentinels' own password only from a file.

Refusals name the store without a secret: no sentinel answers (SentinelUnreachableError),
none monitors the service (SentinelServiceUnknownError, naming those it does), a database
the primary does not have (StoreRefusedError). The failover through Sentinel is
test_failover_sentinel.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from snowid.cli import main
from snowid.errors import (
    InvalidLeaseUrlError,
    SentinelServiceUnknownError,
    SentinelUnreachableError,
    StoreRefusedError,
)
from snowid.lease import open_lease, url_kind
from snowid.lease.redis import SentinelLease
from tests.support.cleanup import Cleanup
from tests.support.redis import redis_server
from tests.support.sentinel import SERVICE, Sentinels
from tests.support.servers import RedisServer, free_port, new_name

REDIS_PW = "redis-s3cret"
SENTINEL_PW = "sentinel-s3cret"


def _open(url: str) -> SentinelLease:
    lease = open_lease(url)
    assert isinstance(lease, SentinelLease)
    return lease


# --- reading the URL ----------------------------------------------------------------------


def test_the_url_names_the_sentinels_the_service_and_the_database() -> None:
    lease = _open("redis+sentinel://app@s1:26380,S2,[::1]:26381/my-primary.a/3?range=5-6&ttl=4")
    assert lease.sentinels == [("s1", 26380), ("s2", 26379), ("::1", 26381)]
    assert lease.service == "my-primary.a"
    assert lease.connection == {"db": 3, "username": "app"}
    assert (lease.first, lease.last, lease.ttl_ms) == (5, 6, 4000)
    assert url_kind(lease.url) == "redis"  # /metrics labels it as a Redis lease


def test_the_defaults_a_local_sentinel_and_database_0() -> None:
    lease = _open("redis+sentinel:///mymaster")
    assert (lease.sentinels, lease.service, lease.connection) == (
        [("127.0.0.1", 26379)],
        "mymaster",
        {"db": 0},
    )


def test_the_sentinel_password_comes_from_its_file_and_is_never_shown(tmp_path: Path) -> None:
    path = tmp_path / "sentinel-pw"
    path.write_text(f"{SENTINEL_PW}\n")
    url = f"redis+sentinel://h:1/m/0?sentinel_user=watcher&sentinel_password_file={path}"
    lease = _open(url)
    assert lease._sentinel_auth == {"username": "watcher", "password": SENTINEL_PW}
    assert lease.connection == {"db": 0}  # not the Redis password
    for text in (repr(lease), str(lease), lease.url):
        assert SENTINEL_PW not in text


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("", "sentinel_service"),
        ("/", "sentinel_service"),
        ("/a/0/extra", "sentinel_service"),
        ("/my%20primary/0", "sentinel_service"),
        ("/" + "s" * 101, "sentinel_service"),
        ("/mymaster/x", "integer"),
        ("/mymaster/65536", "range"),
    ],
)
def test_a_path_that_is_not_service_and_db_is_refused(path: str, reason: str) -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(f"redis+sentinel://h:26379{path}?range=0-0")
    assert caught.value.reason == reason


def test_replication_sync_is_refused_as_for_redis() -> None:
    """WAIT is best effort with Sentinel too: nothing to verify a synchronous store by."""
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease("redis+sentinel://h:26379/m/0?replication=sync")
    assert (caught.value.reason, caught.value.scheme) == ("replication_sync", "redis+sentinel:")


def test_tls_options_are_not_taken() -> None:
    """Sentinel over TLS is not supported (yet): its options are refused by name."""
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease("redis+sentinel://h:26379/m/0?ssl_ca_certs=/ca.pem")
    assert (caught.value.reason, caught.value.options) == ("unknown_option", "ssl_ca_certs")


# --- against sentinels of the test's own ----------------------------------------------------


@pytest.fixture(scope="module")
def watched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RedisServer, Sentinels]]:
    """A durable redis-server asking for a password and one sentinel (asking for its own)
    watching it."""
    root = tmp_path_factory.mktemp("sentinel")
    with Cleanup() as steps, redis_server(root / "redis", {"requirepass": REDIS_PW}) as server:
        sentinels = Sentinels(
            steps, server.port, size=1, password=SENTINEL_PW, primary_password=REDIS_PW
        )
        yield server, sentinels


@pytest.fixture
def files(tmp_path: Path) -> str:
    """The query naming both password files and a fresh key prefix."""
    (tmp_path / "redis").write_text(REDIS_PW)
    (tmp_path / "sentinel").write_text(SENTINEL_PW)
    return (
        f"key={new_name()}&range=0-1&ttl=2&timeout=2&password_file={tmp_path / 'redis'}"
        f"&sentinel_password_file={tmp_path / 'sentinel'}"
    )


@pytest.mark.slow
def test_init_claim_and_status_through_the_sentinels(
    watched: tuple[RedisServer, Sentinels], files: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``snowid lease init`` and ``status`` take the URL; a lease claims on the primary the
    sentinel names (the keys land on that server)."""
    server, sentinels = watched
    url = sentinels.url(files)
    assert main(["lease", "init", url, "--first-deployment"]) == 0
    with open_lease(url) as lease:
        grant = lease.acquire(0)
        assert grant.epoch == 1
        capsys.readouterr()
        assert main(["lease", "status", url, "--json"]) == 0
        status = json.loads(capsys.readouterr().out)
    held = [row for row in status["identities"] if row["held"]]
    assert [row["worker"] for row in held] == [grant.datacenter * 32 + grant.machine]
    prefix = files.partition("key=")[2].partition("&")[0]
    assert server.client().hget(f"{{{prefix}}}:epoch", "0") == "1"
    out = json.dumps(status)
    assert REDIS_PW not in out
    assert SENTINEL_PW not in out


@pytest.mark.slow
def test_no_sentinel_answers(files: str) -> None:
    ports = f"127.0.0.1:{free_port()},127.0.0.1:{free_port()}"
    url = f"redis+sentinel://{ports}/{SERVICE}/0?{files}"
    with pytest.raises(SentinelUnreachableError) as caught, open_lease(url) as lease:
        lease.acquire(0)
    error = caught.value
    assert error.code == "sentinel_unreachable"
    assert error.store == f"redis+sentinel://{ports}/{SERVICE}/0"  # the query dropped
    assert error.sentinels == ports.replace(",", ", ")
    assert "refused" in error.reason.lower()
    for text in (str(error), error.message("vi")):
        assert error.store in text
        assert SENTINEL_PW not in text


@pytest.mark.slow
def test_a_wrong_sentinel_password_is_told_apart_from_silence(
    watched: tuple[RedisServer, Sentinels], files: str, tmp_path: Path
) -> None:
    (tmp_path / "sentinel").write_text("not-it")
    with (
        pytest.raises(SentinelUnreachableError) as caught,
        open_lease(watched[1].url(files)) as lease,
    ):
        lease.acquire(0)
    assert "invalid" in caught.value.reason.lower()  # redis: "invalid username-password pair"
    assert "not-it" not in str(caught.value)


@pytest.mark.slow
def test_an_unknown_service_is_named_with_those_the_sentinels_watch(
    watched: tuple[RedisServer, Sentinels], files: str
) -> None:
    url = watched[1].url(files).replace(f"/{SERVICE}/", "/no-such-primary/")
    with pytest.raises(SentinelServiceUnknownError) as caught, open_lease(url) as lease:
        lease.acquire(0)
    error = caught.value
    assert (error.service, error.known) == ("no-such-primary", SERVICE)
    assert error.store == url.partition("?")[0]
    for text in (str(error), error.message("vi")):
        assert "no-such-primary" in text
        assert SERVICE in text


@pytest.mark.slow
def test_a_database_the_primary_does_not_have_is_refused(
    watched: tuple[RedisServer, Sentinels], files: str
) -> None:
    url = watched[1].url(files, db=999)  # redis-server has 16 by default
    with pytest.raises(StoreRefusedError) as caught, open_lease(url) as lease:
        lease.acquire(0)
    assert caught.value.store == url.partition("?")[0]
    assert "DB index is out of range" in caught.value.reason
