"""etcd for the lease tests: a member of the test's own (``EtcdServer``, a servers.OwnServer
and a cluster.Member), one shared by the whole test session (``SHARED``), and a cluster of
three (``etcd_cluster``) whose members reach each other through the cluster's proxies.

Each member runs Debian's ``etcd`` on free loopback ports with its data in a temporary
directory; its election timeout is generous (a busy machine pauses processes), and
``--unsafe-no-fsync`` is never used: an acknowledged write is on disk. A member that is
down is started again on the same data.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from tests.support.cleanup import Cleanup
from tests.support.cluster import Cluster, Net
from tests.support.need import unavailable
from tests.support.servers import OwnServer, _wait_ready, binary, free_port


class EtcdServer(OwnServer):
    """One etcd member ``name`` of ``initial`` (``name=http://127.0.0.1:PEER`` for every
    member; its own alone when None), advertising ``client_port``/``peer_port`` (a
    cluster's proxies) while listening on its own ports."""

    name = "etcd"

    def __init__(
        self,
        program: str,
        member: str = "n0",
        *,
        initial: str | None = None,
        advertise_client: int | None = None,
        advertise_peer: int | None = None,
        election_ms: int = 1000,
    ) -> None:
        self.program = program
        self.member = member
        self.root = Path(tempfile.mkdtemp(prefix="snowid-etcd-"))
        self.port, self.peer_port = free_port(), free_port()
        self.advertise_client = advertise_client or self.port
        self.advertise_peer = advertise_peer or self.peer_port
        self.initial = initial or f"{member}=http://127.0.0.1:{self.advertise_peer}"
        self.data_dir = self.root / "data"
        self.log = self.root / "etcd.log"
        self.election_ms = election_ms
        self.token = self.root.name  # the same for every member of one cluster

    @property
    def ports(self) -> dict[str, int]:
        return {"client": self.port, "peer": self.peer_port}

    def url(self, query: str = "", port: int | None = None) -> str:
        return f"etcd://127.0.0.1:{port or self.port}/{query}"

    def start(self) -> None:
        assert not self.running
        args = [
            self.program, "--name", self.member, "--data-dir", str(self.data_dir),
            "--listen-client-urls", f"http://127.0.0.1:{self.port}",
            "--advertise-client-urls", f"http://127.0.0.1:{self.advertise_client}",
            "--listen-peer-urls", f"http://127.0.0.1:{self.peer_port}",
            "--initial-advertise-peer-urls", f"http://127.0.0.1:{self.advertise_peer}",
            "--initial-cluster", self.initial, "--initial-cluster-state", "new",
            "--initial-cluster-token", self.token,
            # etcd's shortest lease is 1.5 election timeouts: a lone member keeps etcd's
            # 1 s (leases of 2 s); a cluster's members get more (a busy machine pauses them).
            "--heartbeat-interval", str(self.election_ms // 10),
            "--election-timeout", str(self.election_ms),
            "--quota-backend-bytes", str(256 * 2**20), "--logger", "zap",
            "--log-outputs", str(self.log),
        ]  # fmt: skip
        self.proc = subprocess.Popen(
            args,
            cwd=self.root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def wait_ready(self, seconds: float = 60) -> None:
        """Until the member answers a read that needs a leader (a quorum)."""

        def ready() -> bool:
            request = urllib.request.Request(
                f"http://127.0.0.1:{self.port}/v3/kv/range",
                data=json.dumps({"key": "AA=="}).encode(),
                method="POST",
            )
            with urllib.request.urlopen(request, timeout=2) as answer:
                return "header" in json.loads(answer.read())

        _wait_ready(f"etcd on port {self.port}", ready, self.proc, self.log, seconds)

    def wipe(self) -> None:
        assert not self.running
        shutil.rmtree(self.data_dir, ignore_errors=True)


def etcd_binary() -> str:
    found = binary("etcd")
    if found is None:  # scripts/test installs it
        unavailable("etcd is not installed (Debian's etcd-server)")
    return found


@contextlib.contextmanager
def etcd_server() -> Iterator[EtcdServer]:
    """A started single-member etcd of the test's own, ended after."""
    server = EtcdServer(etcd_binary())
    try:
        server.start()
        server.wait_ready()
        yield server
    finally:
        server.close()


def etcd_cluster(size: int, cleanup: Cleanup) -> Cluster[EtcdServer]:
    """A started etcd cluster of ``size`` members, each reaching the others (and clients
    reaching each) through the cluster's proxies; closed by ``cleanup``."""
    program = etcd_binary()
    names = [f"n{i}" for i in range(size)]
    peers: dict[str, int] = {}

    def make(index: int, net: Net) -> EtcdServer:
        del net  # the proxies' ports are known only after this member is made: set below
        return EtcdServer(program, names[index], election_ms=2000)

    cluster = Cluster(size, make, cleanup, start=False)
    for index, member in enumerate(cluster.members):
        peers[names[index]] = cluster.port(index, "peer")
        member.advertise_client = cluster.port(index)
        member.advertise_peer = cluster.port(index, "peer")
    initial = ",".join(f"{name}=http://127.0.0.1:{port}" for name, port in peers.items())
    for member in cluster.members:
        member.initial, member.token = initial, cluster.members[0].token
    cluster.start(parallel=True)
    for member in cluster.members:
        member.wait_ready()
    return cluster


def etcdctl(*args: str) -> str:
    program = binary("etcdctl")
    if program is None:  # scripts/test installs it
        unavailable("etcdctl is not installed (Debian's etcd-client)")
    done = subprocess.run(
        [program, *args],
        env={**os.environ, "ETCDCTL_API": "3"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, f"etcdctl {' '.join(args)}: {done.stderr}"
    return done.stdout


def snapshot_save(member: EtcdServer, path: Path) -> None:
    """``etcdctl snapshot save``: the member's keys, leases and revisions now, to ``path``."""
    etcdctl("--endpoints", f"http://127.0.0.1:{member.port}", "snapshot", "save", str(path))


def snapshot_restore(cluster: Cluster[EtcdServer], path: Path, token: str | None = None) -> None:
    """What an operator does to put a cluster back to a snapshot: every member stopped,
    ``etcdctl snapshot restore`` of ``path`` into a new data directory for each (with
    ``token`` as the initial cluster token; a new one gives the cluster a new
    ``cluster_id``, the cluster's own when None), every member started on it."""
    for member in cluster.members:
        if member.running:
            member.crash()
    for member in cluster.members:
        member.token = token or member.token
        fresh = member.root / f"data.{len(list(member.root.glob('data*')))}"
        etcdctl(
            "snapshot", "restore", str(path), "--name", member.member,
            "--data-dir", str(fresh), "--initial-cluster", member.initial,
            "--initial-cluster-token", member.token,
            "--initial-advertise-peer-urls", f"http://127.0.0.1:{member.advertise_peer}",
        )  # fmt: skip
        member.data_dir = fresh
    cluster.start(parallel=True)
    for member in cluster.members:
        member.wait_ready()


class EtcdKv:
    """Keys on an etcd member, read and written from outside the lease (the tests' faults),
    through the JSON gateway."""

    def __init__(self, port: int) -> None:
        self.port = port

    def call(self, path: str, body: dict[str, object]) -> dict[str, object]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/v3/{path}", data=json.dumps(body).encode(), method="POST"
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            found: dict[str, object] = json.loads(answer.read())
            return found

    def range(self, key: str, end: str | None = None) -> dict[str, str]:
        """Key -> value of ``key`` (up to ``end``; a prefix when ``end`` is "prefix")."""
        body: dict[str, object] = {"key": _b64(key)}
        if end is not None:
            body["range_end"] = _b64(_after(key) if end == "prefix" else end)
        kvs = self.call("kv/range", body).get("kvs", [])
        assert isinstance(kvs, list)
        return {_text(kv["key"]): _text(kv.get("value", "")) for kv in kvs}

    def get(self, key: str) -> str | None:
        return self.range(key).get(key)

    def put(self, key: str, value: str) -> None:
        self.call("kv/put", {"key": _b64(key), "value": _b64(value)})

    def delete(self, key: str, prefix: bool = False) -> None:
        body: dict[str, object] = {"key": _b64(key)}
        if prefix:
            body["range_end"] = _b64(_after(key))
        self.call("kv/deleterange", body)


def leader_of(cluster: Cluster[EtcdServer]) -> int:
    """The index of the cluster's leader (asked of the members that run)."""
    for index, member in enumerate(cluster.members):
        if member.running:
            status = EtcdKv(member.port).call("maintenance/status", {})
            header = status["header"]
            assert isinstance(header, dict)
            if status.get("leader") == header.get("member_id"):
                return index
    raise AssertionError("no leader")


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _text(text: str) -> str:
    return base64.b64decode(text).decode()


def _after(prefix: str) -> str:
    """The first key after every key starting with ``prefix``."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


_SHARED: list[EtcdServer] = []


def shared_etcd(cleanup: Cleanup) -> EtcdServer:
    """The test session's one etcd member (started on first use, ended by ``cleanup``, the
    session's); each test keeps to a key prefix of its own."""
    if not _SHARED or not _SHARED[0].running:
        server = EtcdServer(etcd_binary())
        _SHARED[:] = [server]
        cleanup.add(server.close, "the session's etcd")
        server.start()
        server.wait_ready()
    return _SHARED[0]
