"""ZooKeeper for the lease tests: a server of the test's own (``ZkServer``, a servers.OwnServer
and a cluster.Member), one shared by the whole test session (``shared_zookeeper``), and an
ensemble of three (``zookeeper_ensemble``, its leader ``leader_of``) whose servers reach
each other through the cluster's proxies, and an ensemble's data directories copied and
copied back (``copy_data``, ``restore_data``: a store restored from an older copy).

Each server runs Debian's ZooKeeper 3.8 (``/usr/share/java/zookeeper.jar`` on OpenJDK 17)
on free loopback ports, with its data in a temporary directory and a small heap (64 MB,
the serial collector, C1 only: it starts in about a second). ``tickTime`` is 500 ms, so
sessions may be 1 s to 60 s: the lease tests' TTLs of 2-3 s, with a margin a busy 2-core
machine needs (a JVM pauses); ``maxClientCnxns`` is 2000 (ZooKeeper's default of 60
connections per client address would turn away the tests' many claimants on 127.0.0.1).
Every write is on disk before it is acknowledged (``forceSync``, ZooKeeper's default). A
server that is down is started again on the same data.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tests.support.cleanup import Cleanup
from tests.support.cluster import Cluster, Net
from tests.support.need import unavailable
from tests.support.servers import OwnServer, _wait_ready, binary, free_port

JAR = "/usr/share/java/zookeeper.jar"
LOGGER = "/usr/share/java/slf4j-simple.jar"  # ZooKeeper's warnings to its log file
MAX_CLIENT_CNXNS = 2000
TICK_MS = 500


QUICK_START = ("-Xmx64m", "-Xms16m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
"""The tests' JVM: a small heap, the serial collector, C1 only (it starts in about a second)."""
THROUGHPUT = ("-Xmx512m", "-Xms256m", "-XX:+UseParallelGC")
"""A JVM as a production server runs one (both compilers, room for a thousand sessions): the
crowd benchmark's (bench/bench_lease_crowd.py --jvm throughput)."""


class ZkServer(OwnServer):
    """ZooKeeper server ``myid`` (1-based) of ``peers`` (``myid -> (peer, election,
    client)`` ports as the others reach it; alone when empty)."""

    name = "zookeeper"

    def __init__(self, java: str, myid: int = 1, jvm: tuple[str, ...] = QUICK_START) -> None:
        self.java = java
        self.myid = myid
        self.jvm = jvm
        self.root = Path(tempfile.mkdtemp(prefix="snowid-zk-"))
        self.port, self.peer_port, self.election_port = free_port(), free_port(), free_port()
        self.peers: dict[int, tuple[int, int, int]] = {}
        self.log = self.root / "zookeeper.log"

    @property
    def ports(self) -> dict[str, int]:
        return {"client": self.port, "peer": self.peer_port, "election": self.election_port}

    def url(self, query: str = "", port: int | None = None) -> str:
        return f"zookeeper://127.0.0.1:{port or self.port}/{query}"

    def _config(self) -> Path:
        data = self.root / "data"
        data.mkdir(exist_ok=True)
        lines = [
            f"tickTime={TICK_MS}", "initLimit=20", "syncLimit=10", f"dataDir={data}",
            f"clientPort={self.port}", "clientPortAddress=127.0.0.1",
            f"maxClientCnxns={MAX_CLIENT_CNXNS}", "minSessionTimeout=1000",
            "maxSessionTimeout=60000", "admin.enableServer=false",
            "4lw.commands.whitelist=srvr,ruok,mntr", "autopurge.purgeInterval=0",
        ]  # fmt: skip
        if self.peers:
            (data / "myid").write_text(f"{self.myid}\n")
            for myid, reached in sorted(self.peers.items()):
                # its own line: the ports it listens on; the others': their proxies'
                own = (self.peer_port, self.election_port, self.port)
                peer, election, client = own if myid == self.myid else reached
                lines.append(f"server.{myid}=127.0.0.1:{peer}:{election};127.0.0.1:{client}")
        config = self.root / "zoo.cfg"
        config.write_text("\n".join(lines) + "\n")
        return config

    def start(self) -> None:
        assert not self.running
        config = self._config()
        args = [
            self.java, *self.jvm, "-Djava.net.preferIPv4Stack=true", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
            "-Dzookeeper.jmx.log4j.disable=true",
            # Transaction logs grow by 1 MB at a time, not 64 MB: cheap to copy (a restore).
            "-Dzookeeper.preAllocSize=1024",
            # An election on a busy machine: ask peers again every 0.2-1 s (ZooKeeper backs
            # off to 60 s) and give up on a dead peer's connection after 1 s (5 s).
            "-Dzookeeper.fastleader.minNotificationInterval=200",
            "-Dzookeeper.fastleader.maxNotificationInterval=1000", "-Dzookeeper.cnxTimeout=1000",
            "-cp", f"{JAR}:{LOGGER}",
            "org.apache.zookeeper.server.quorum.QuorumPeerMain", str(config),
        ]  # fmt: skip
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                args, cwd=self.root, stdin=subprocess.DEVNULL, stdout=log, stderr=log
            )

    def four_letters(self, word: str) -> str:
        """A four-letter command's answer (``srvr``, ``ruok``) from its own client port."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=2) as sock:
            sock.sendall(word.encode())
            chunks = []
            while chunk := sock.recv(4096):
                chunks.append(chunk)
        return b"".join(chunks).decode(errors="replace")

    @property
    def mode(self) -> str:
        """``leader``, ``follower``, ``standalone``, or "" (not serving: no quorum)."""
        for line in self.four_letters("srvr").splitlines():
            if line.startswith("Mode:"):
                return line.partition(":")[2].strip()
        return ""

    def wait_ready(self, seconds: float = 60) -> None:
        """Until the server serves clients (in an ensemble: it has a quorum)."""
        _wait_ready(
            f"ZooKeeper on port {self.port}", lambda: bool(self.mode), self.proc, self.log, seconds
        )

    def wipe(self) -> None:
        assert not self.running
        shutil.rmtree(self.root / "data", ignore_errors=True)


def java_binary() -> str:
    found = binary("java")
    if found is None or not os.path.exists(JAR):  # scripts/test installs zookeeper
        unavailable("ZooKeeper is not installed (Debian's zookeeper, with OpenJDK)")
    assert found is not None
    return found


@contextlib.contextmanager
def zookeeper_server() -> Iterator[ZkServer]:
    """A started standalone ZooKeeper of the test's own, ended after."""
    server = ZkServer(java_binary())
    try:
        server.start()
        server.wait_ready()
        yield server
    finally:
        server.close()


def zookeeper_ensemble(
    size: int, cleanup: Cleanup, jvm: tuple[str, ...] = QUICK_START
) -> Cluster[ZkServer]:
    """A started ensemble of ``size`` servers (on JVMs started with ``jvm``), each reaching
    the others (and clients reaching each) through the cluster's proxies; closed by
    ``cleanup``."""
    java = java_binary()

    def make(index: int, net: Net) -> ZkServer:
        del net  # the proxies' ports are known only after every server is made: set below
        return ZkServer(java, index + 1, jvm)

    cluster = Cluster(size, make, cleanup, start=False)
    peers = {
        index + 1: (
            cluster.port(index, "peer"),
            cluster.port(index, "election"),
            cluster.port(index),
        )
        for index in range(size)
    }
    for member in cluster.members:
        member.peers = peers
    cluster.start(parallel=True)
    for member in cluster.members:
        member.wait_ready()
    return cluster


def leader_of(cluster: Cluster[ZkServer]) -> int:
    """The index of the ensemble's leader (asked of the servers that run; one that does not
    answer is not it)."""
    for index, member in enumerate(cluster.members):
        if member.running:
            with contextlib.suppress(OSError):
                if member.mode == "leader":
                    return index
    raise AssertionError("no leader")


def copy_data(cluster: Cluster[ZkServer], to: Path) -> None:
    """Every server's data directory as it is now, copied to ``to/MYID``: each server
    frozen (SIGSTOP) while its own files are copied, so no write is caught halfway; one at
    a time, so the ensemble keeps its quorum."""
    for member in cluster.members:
        member.pause()
        try:
            shutil.copytree(member.root / "data", to / str(member.myid))
        finally:
            member.resume()


def restore_data(cluster: Cluster[ZkServer], copy: Path) -> None:
    """What an operator does to put an ensemble back to a copy of its data directories:
    every server stopped, its data directory replaced by its copy in ``copy`` (from
    ``copy_data``), every server started on it."""
    for member in cluster.members:
        if member.running:
            member.crash()
    for member in cluster.members:
        member.wipe()
        shutil.copytree(copy / str(member.myid), member.root / "data")
    cluster.start(parallel=True)
    for member in cluster.members:
        member.wait_ready()


class ZkNodes:
    """Nodes on a ZooKeeper server, read and written from outside the lease (the tests'
    faults), through a kazoo client of their own. The face of ``etcd.EtcdKv`` on paths:
    ``range(PREFIX/, "prefix")`` reads a node's children."""

    def __init__(self, port: int) -> None:
        from kazoo.client import KazooClient

        self.client = KazooClient(f"127.0.0.1:{port}", timeout=10)
        self.client.start(timeout=30)

    def get(self, key: str) -> str | None:
        from kazoo.exceptions import NoNodeError

        try:
            data, _ = self.client.get("/" + key)
        except NoNodeError:
            return None
        return bytes(data or b"").decode()

    def range(self, key: str, end: str | None = None) -> dict[str, str]:
        """Key -> data of the children of ``key`` (a prefix ``P/``: ``end`` "prefix")."""
        from kazoo.exceptions import NoNodeError

        assert end == "prefix"
        parent = key.rstrip("/")
        try:
            names = self.client.get_children("/" + parent)
        except NoNodeError:
            return {}
        pending = [
            (f"{parent}/{name}", self.client.get_async(f"/{parent}/{name}")) for name in names
        ]
        found = {}
        for path, result in pending:  # side by side: one round trip's wait
            with contextlib.suppress(NoNodeError):
                found[path] = bytes(result.get(timeout=30)[0] or b"").decode()
        return found

    def put(self, key: str, value: str) -> None:
        path = "/" + key
        if self.client.exists(path):
            self.client.set(path, value.encode())
        else:
            self.client.create(path, value.encode(), makepath=True)

    def delete(self, key: str, prefix: bool = False) -> None:
        """Delete ``key`` (with ``prefix``: and every node under it), in one transaction, so
        that a live holder sees all of it gone at once or none (a few tries if one
        writes under it meanwhile)."""
        top = "/" + key.rstrip("/")
        for _ in range(20):
            if self.delete_many([top], nodes_under=prefix):
                return
        raise AssertionError(f"{top} kept changing while the test deleted it")

    def delete_many(self, keys: list[str], *, nodes_under: bool = False) -> bool:
        """Delete the nodes ``keys`` (absolute paths; ``nodes_under``: with the nodes under
        them, deepest first) in one transaction; False if it failed (nothing deleted)."""
        order: list[str] = []
        for key in keys:
            if self.client.exists(key):
                order.extend(self._tree(key) if nodes_under else [key])
        if not order:
            return True
        transaction = self.client.transaction()
        for path in order:
            transaction.delete(path)
        return not any(isinstance(item, Exception) for item in transaction.commit())

    def _tree(self, path: str) -> list[str]:
        """``path`` and every node under it, deepest first (one round trip's wait a level)."""
        from kazoo.exceptions import NoNodeError

        levels, level = [], [path]
        while level:
            levels.append(level)
            pending = [(node, self.client.get_children_async(node)) for node in level]
            level = []
            for node, result in pending:
                with contextlib.suppress(NoNodeError):
                    level.extend(f"{node}/{name}" for name in result.get(timeout=30))
        return [node for nodes in reversed(levels) for node in nodes]

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.client.stop()
            self.client.close()


_SHARED: list[ZkServer] = []


def shared_zookeeper(cleanup: Cleanup) -> ZkServer:
    """The test session's one standalone ZooKeeper (started on first use, ended by
    ``cleanup``, the session's); each test keeps to a path of its own."""
    if not _SHARED or not _SHARED[0].running:
        server = ZkServer(java_binary())
        _SHARED[:] = [server]
        cleanup.add(server.close, "the session's ZooKeeper")
        server.start()
        server.wait_ready()
    return _SHARED[0]
