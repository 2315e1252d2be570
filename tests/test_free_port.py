"""tests/support/servers.free_port: the ports it hands out for servers that bind them later
lie under the kernel's ephemeral range (where no outgoing connection and no port-0 bind can
take them meanwhile), in this process's own share, and are never handed out twice."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.support import servers
from tests.support.servers import _port_slice, free_port


def _ephemeral_low() -> int:
    return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])


def test_ports_are_under_the_ephemeral_range_distinct_and_bindable() -> None:
    ports = [free_port() for _ in range(50)]
    assert len(set(ports)) == 50
    assert all(10000 <= port < _ephemeral_low() for port in ports)
    for port in ports[:5]:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))  # free: nothing took it


def test_a_port_something_listens_on_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as taken:
        share = _port_slice()
        taken.bind(("127.0.0.1", share.start))
        taken.listen()
        monkeypatch.setattr(servers, "_GIVEN", set())
        monkeypatch.setattr(servers.os, "getpid", lambda: 0)  # the scan starts at share.start
        assert free_port() == share.start + 1


def test_parallel_workers_have_shares_that_do_not_overlap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "4")
    shares = []
    for worker in ("gw0", "gw1", "gw2", "gw3"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
        shares.append(set(_port_slice()))
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    shares.append(set(_port_slice()))  # a process of no worker: the last share
    assert all(len(share) > 1000 for share in shares)
    assert sum(len(share) for share in shares) == len(set().union(*shares))
