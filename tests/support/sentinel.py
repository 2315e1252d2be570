"""Redis Sentinels of the tests' own, on free loopback ports (Debian's ``redis-sentinel``).

- ``SentinelServer``: one ``redis-sentinel`` monitoring one service, on a config file of
  ours that it rewrites as it learns (replicas, other sentinels, a failover).
- ``Sentinels``: ``size`` of them watching the primary at ``primary_port``, with quorum
  ``size // 2 + 1``; ``url()`` is the ``redis+sentinel://`` lease URL naming them all, and
  ``via`` proxies (one per sentinel, ``TcpProxy``) give a second way to them that a test can
  close (``block``/``unblock``): a holder that cannot ask the sentinels cannot find the
  promoted replica before a fresh claimant does.
- ``SentinelPair``: a ``RedisPair`` (tests/support/failover.py) watched by three sentinels,
  with the failover sequence's steps (``cut``, ``kill_primary``, ``promote``: wait until
  every sentinel names the promoted replica, ``move_clients``: the holders' way to the
  sentinels opens again). The sentinels watch the primary through the cluster's proxy of it
  (the address its replica replicates from: a sentinel that sees a replica replicate from
  another address than its own for the primary "fixes" it), and ``cut`` holds the
  replica's link in that proxy, nothing else.

Timings are small (a primary is down after ``DOWN_AFTER_MS`` without an answer; a failover
that makes no progress is abandoned after ``FAILOVER_TIMEOUT_MS``) but hold on a busy
2-core machine: a sentinel PINGs every second, and a primary that answers nothing for 2 s
is one a test killed (at a load average of 45 on 2 cores, none of the sentinels' PINGs
through the primary's proxy went unanswered that long; 1.5 s held too). A vote that splits
is tried again after twice the failover timeout, 12 s, inside the harness's 60 s wait.
Everything is closed by the ``Cleanup`` given, pass or fail.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Any

from tests.support.cleanup import Cleanup
from tests.support.failover import RedisPair, wait_for
from tests.support.need import unavailable
from tests.support.proxy import TcpProxy
from tests.support.servers import RedisServer, binary

__all__ = ["SERVICE", "SentinelPair", "SentinelServer", "Sentinels"]

SERVICE = "snowid-primary"
DOWN_AFTER_MS = 2000
FAILOVER_TIMEOUT_MS = 6000


class SentinelServer(RedisServer):
    """One ``redis-sentinel`` monitoring ``service`` at 127.0.0.1:``primary_port``.

    ``password``: the sentinel's own (``requirepass``), which it also gives the other
    sentinels (``sentinel-pass``); ``primary_password``: the one it gives the primary and
    its replicas (``auth-pass``). Started once (it rewrites its config file as it learns)."""

    name = "redis-sentinel"

    def __init__(
        self,
        found: str,
        service: str,
        primary_port: int,
        quorum: int,
        *,
        password: str | None = None,
        primary_password: str | None = None,
    ) -> None:
        super().__init__(found, root=Path(tempfile.mkdtemp(prefix="snowid-sentinel-")))
        self.service = service
        self.settings = {} if password is None else {"requirepass": password}
        self.lines = [
            f"sentinel monitor {service} 127.0.0.1 {primary_port} {quorum}",
            f"sentinel down-after-milliseconds {service} {DOWN_AFTER_MS}",
            f"sentinel failover-timeout {service} {FAILOVER_TIMEOUT_MS}",
            f"sentinel parallel-syncs {service} 1",
        ]
        if password is not None:
            self.lines.append(f"sentinel sentinel-pass {password}")
        if primary_password is not None:
            self.lines.append(f"sentinel auth-pass {service} {primary_password}")

    def config(self) -> str:
        own = [
            f"port {self.port}", "bind 127.0.0.1", "daemonize no", f"dir {self.root}",
            f"logfile {self.root / 'redis.log'}", *self.lines,
            *(f"{key} {value}" for key, value in self.settings.items()),
        ]  # fmt: skip
        return "".join(f"{line}\n" for line in own)

    def primary(self) -> tuple[str, int] | None:
        """The primary's address this sentinel names now (None if it names none)."""
        with self.client() as client:
            found = client.execute_command("SENTINEL", "get-master-addr-by-name", self.service)
        return None if found is None else (str(found[0]), int(found[1]))

    def state(self) -> dict[str, Any]:
        """What this sentinel knows of the service (``SENTINEL MASTER``), as a dict."""
        with self.client() as client:
            state: dict[str, Any] = client.sentinel_master(self.service)
        return state


class Sentinels:
    """``size`` sentinels watching ``service``'s primary at 127.0.0.1:``primary_port``
    (see the module docstring); closed by ``cleanup``."""

    def __init__(
        self,
        cleanup: Cleanup,
        primary_port: int,
        *,
        size: int = 3,
        service: str = SERVICE,
        password: str | None = None,
        primary_password: str | None = None,
    ) -> None:
        found = binary("redis-sentinel")
        if found is None:  # scripts/test installs it
            unavailable("redis-sentinel is not installed")
        self.service = service
        self.members: list[SentinelServer] = []
        self.via: list[TcpProxy] = []
        cleanup.add(self.close, "the Redis sentinels")
        for _ in range(size):
            member = SentinelServer(
                found, service, primary_port, size // 2 + 1,
                password=password, primary_password=primary_password,
            )  # fmt: skip
            self.members.append(member)
            member.start()
            self.via.append(TcpProxy("127.0.0.1", member.port))

    def url(self, query: str = "", *, via: bool = False, db: int = 0) -> str:
        """The lease URL naming every sentinel (through the ``via`` proxies if asked)."""
        ports = [proxy.port for proxy in self.via] if via else [m.port for m in self.members]
        hosts = ",".join(f"127.0.0.1:{port}" for port in ports)
        base = f"redis+sentinel://{hosts}/{self.service}/{db}"
        return f"{base}?{query}" if query else base

    def wait_watching(self, replicas: int, seconds: float = 60.0) -> None:
        """Until every sentinel knows the others and ``replicas`` replicas (a failover needs
        the votes of a majority of the sentinels each knows, and a replica to promote)."""
        others = len(self.members) - 1

        def ready() -> bool:
            states = [member.state() for member in self.members]
            return all(
                int(s["num-other-sentinels"]) >= others and int(s["num-slaves"]) >= replicas
                for s in states
            )

        wait_for("the sentinels to know each other and the replicas", ready, seconds)

    def wait_primary(self, port: int, seconds: float = 60.0) -> None:
        """Until every running sentinel names 127.0.0.1:``port`` as the primary."""
        wait_for(
            f"the sentinels to name the primary on port {port}",
            lambda: all(m.primary() == ("127.0.0.1", port) for m in self.members if m.running),
            seconds,
        )

    def block(self) -> None:
        """The ``via`` way to the sentinels refuses connections (and drops open ones)."""
        for proxy in self.via:
            proxy.set_mode("reset")

    def unblock(self) -> None:
        for proxy in self.via:
            proxy.set_mode("pass")

    def close(self) -> None:
        parts: list[TcpProxy | SentinelServer] = [*self.via, *self.members]
        for part in parts:
            with contextlib.suppress(Exception):
                part.close()


class SentinelPair:
    """A ``RedisPair`` watched by three sentinels, and the failover sequence's steps.

    Clients reach the store only through the sentinels: ``url()`` directly, ``holder_url()``
    through the ``via`` proxies, which ``kill_primary`` closes and ``move_clients`` opens
    again (a fresh claimant reaches the promoted replica first)."""

    def __init__(self, cleanup: Cleanup) -> None:
        self.pair = RedisPair(cleanup)
        self.sentinels = Sentinels(cleanup, self.pair.cluster.port(0))
        self.sentinels.wait_watching(replicas=1)

    def url(self, query: str = "") -> str:
        return self.sentinels.url(query)

    def holder_url(self, query: str = "") -> str:
        return self.sentinels.url(query, via=True)

    def detach(self) -> None:
        self.pair.detach()

    def attach(self) -> None:
        self.pair.attach()

    def cut(self) -> None:
        """Hold the replica's replication link in the primary's proxy, and nothing else:
        the sentinels talk to the primary through that proxy too, and a partition
        (``Cluster.partition``) reads /proc for every connection it holds, with the
        proxy's traffic paused meanwhile (on a loaded machine long enough for the
        sentinels to see the primary down). The link is the replica's connection whose
        flags are M (its master) in its CLIENT LIST; its local port is the proxy's client
        port."""
        clients = self.pair.replica.client().execute_command("CLIENT", "LIST")
        text = clients if isinstance(clients, str) else "\n".join(map(str, clients))
        link = next(line for line in text.splitlines() if " flags=M " in f" {line} ")
        fields = dict(part.split("=", 1) for part in link.split() if "=" in part)
        port = int(fields["laddr"].rpartition(":")[2])
        self.pair.cluster.proxies(0)["client"].hold(lambda client_port: client_port == port)

    def kill_primary(self) -> None:
        self.sentinels.block()
        self.pair.kill_primary()

    def promote(self) -> None:
        """Sentinel does it: wait until every sentinel names the replica."""
        self.sentinels.wait_primary(self.pair.replica.port)

    def move_clients(self) -> None:
        self.sentinels.unblock()
