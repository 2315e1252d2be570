"""The one reader of lease URLs (issue 24 §4): ``_urltext.split_url`` never raises, and
reads a URL as urllib did where urllib could read it, so replacing urllib changed nothing
the stores see; several hosts are read one by one."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from snowid.errors import InvalidLeaseUrlError
from snowid.lease import open_lease, parse_lease_url, redact
from snowid.lease._redact import secrets_in
from snowid.lease._urltext import Host, split_url

SCHEMES = ["postgresql", "POSTGRES", "redis", "rediss", "mysql", "file", "static", "k8s"]
FUTURE = ["redis+sentinel", "etcd", "zookeeper"]
URL_CHARS = "ab:/?#@[]%&=+,;.1-_é '\\"


@given(st.text())
@example("postgresql://u:pw@[::1/db")
@example("x://@@@:::[[[]]]///???###")
def test_reading_never_raises(text: str) -> None:
    """Whatever it is given: the redaction must work on text the strict reader refuses."""
    url = split_url(text)
    url.hosts()
    url.pairs()
    redact(text)
    secrets_in(text)


@given(st.sampled_from(SCHEMES + FUTURE + ["x"]), st.text(alphabet=URL_CHARS, max_size=40))
@example("postgresql", "//u:p@h1:1,[::1]:2/db?a=1&b=%20+x#f")
@example("file", "///tmp/a#b?c")
@example("redis", "//:p@h:6379/0?&&a&b=")
def test_it_reads_what_urllib_reads_as_urllib_did(scheme: str, rest: str) -> None:
    """Scheme (case aside), authority, path, query, fragment and the query's pairs are
    urllib's, wherever urllib reads the URL at all (it refuses bad brackets)."""
    text = f"{scheme}:{rest}".strip()
    try:
        expected = urlsplit(text)
    except ValueError:
        return
    url = split_url(text)
    got = (url.scheme.lower(), url.netloc, url.path, url.query, url.fragment)
    assert got == (
        expected.scheme,
        expected.netloc,
        expected.path,
        expected.query,
        expected.fragment,
    )
    assert url.pairs() == parse_qsl(expected.query, keep_blank_values=True)


@pytest.mark.parametrize(
    ("hostlist", "hosts"),
    [
        ("h", [Host("h", "")]),
        ("h:5432", [Host("h", "5432")]),
        ("h1:1,h2,[::1]:3", [Host("h1", "1"), Host("h2", ""), Host("::1", "3")]),
        ("[fe80::1%25eth0]", [Host("fe80::1%25eth0", "")]),
        ("[::1", [Host("::1", "", bad=True)]),
        ("[::1]x", [Host("::1", "x", bad=True)]),
        ("[127.0.0.1]", [Host("127.0.0.1", "", bad=True)]),
        ("::1", [Host(":", "1", bad=True)]),
        ("h]:1", [Host("h]", "1", bad=True)]),
        ("h:abc", [Host("h", "abc")]),  # the port is the strict reader's to refuse
    ],
)
def test_hosts_are_read_one_by_one(hostlist: str, hosts: list[Host]) -> None:
    assert split_url(f"etcd://u:pw@{hostlist}/prefix").hosts() == hosts


@pytest.mark.parametrize(
    ("url", "hosts"),
    [
        (
            "redis+sentinel://:pw@h1:26379,h2:26379,h3/mymaster/0?ttl=5",
            [("h1", 26379), ("h2", 26379), ("h3", None)],
        ),
        ("etcd://[::1]:2379,DB.example:2380/snowid", [("::1", 2379), ("db.example", 2380)]),
        ("zookeeper://zk:2181/snowid/leases", [("zk", 2181)]),
        ("postgresql:///db?host=/run/postgresql", []),
    ],
)
def test_the_strict_reader_gives_every_host_with_its_port(
    url: str, hosts: list[tuple[str, int | None]]
) -> None:
    """What a store of several hosts (Redis Sentinel, etcd, ZooKeeper) will read."""
    assert parse_lease_url(url).hosts() == hosts


@pytest.mark.parametrize("url", ["etcd://h1:1,h2:0/p", "etcd://h1:65536/p", "etcd://h:x1/p"])
def test_a_bad_port_in_a_host_list_is_named(url: str) -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        parse_lease_url(url).hosts()
    assert caught.value.reason == "port"
    assert caught.value.port == url.rpartition(":")[2].removesuffix("/p")


@pytest.mark.parametrize(
    "url",
    [
        "redis://:pw@h1:6379,h2:6379/0",
        "rediss://h1,h2/0",
        "mysql://app:pw@h1:3306,h2:3306/db",
        "mariadb://h1,h2/db",
    ],
)
def test_a_store_of_one_host_refuses_a_list(url: str) -> None:
    """Before, urllib read ``h1:6379,h2`` as the host name ``h1:6379,h2`` and the driver
    failed at the first claim; now the URL is refused when read, saying why."""
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(url)
    assert (caught.value.reason, caught.value.count) == ("host_list", 2)
    assert "connects to one host" in str(caught.value)
    assert "pw" not in str(caught.value)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://u:pw@[::1/db",
        "postgresql://u:pw@[notanaddress]/db",
        "redis://[127.0.0.1]:6379/0",
        "redis://::1/0",
        "postgresql://u:pa/ss@h/db",
    ],
)
def test_a_host_that_is_not_well_formed_is_a_syntax_error(url: str) -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        parse_lease_url(url)
    assert caught.value.reason == "syntax"
    assert "pw" not in str(caught.value)
    assert "pa/ss" not in str(caught.value)
