"""Redis leases for fleets (``redis://``, ``rediss://`` for TLS), through redis-py (lazily).

The protocol is the PostgreSQL backend's (see ``_store.StoreLease``), each operation one
Lua script (``_redis_lua``), the store's ``TIME`` the clock. What Redis adds:

- **Strict mode** (the default): every new connection first checks that the server keeps
  acknowledged writes - ``appendonly yes``, ``appendfsync`` ``always`` or ``everysec``,
  no ``allkeys-*`` eviction, not a read-only replica - before any script runs, so a
  misconfigured server is refused before it is set up or quarantined. With replicas,
  every write is confirmed by ``WAIT`` on all of them. A server that hides its settings
  (``CONFIG GET`` refused) is refused too. ``durability=best_effort`` skips all this,
  with one loud warning per process and store.
- **Restarts**: each connection records the server's ``run_id``. When a reconnect finds
  another one, the server restarted: the holder stops issuing, puts back the ceiling it
  had acknowledged (a restart may have lost the last writes), gives the lease up, and
  the next id claims anew. A restarted-empty or wiped store has no incarnation: holders
  fail closed for good and the first new claim sets the store up with every ceiling
  quarantined.
- **Failover**: the claim and renewal scripts read the server's replication id
  (``master_replid``) and compare it with the one the store and the holder recorded
  (docs/leases.md, "A store that failed over"): a promoted replica, or a restart, makes the
  first claim quarantine the store once; a holder that meets a replica promoted from its
  primary (its ``master_replid2``) stops with StoreFailedOverError.
- **Sentinel** (``redis+sentinel://[user@]HOST:PORT[,HOST:PORT…]/SERVICE[/DB]?…``,
  ``SentinelLease``): the URL names the sentinels, as Redis clients in an HA set-up connect;
  every new connection asks them for SERVICE's primary (redis-py's
  ``Sentinel(...).master_for(SERVICE)``), so after a failover the next reconnect reaches
  the promoted replica by itself, and everything above holds unchanged (the failover is
  seen inside the claim and renewal scripts). Refused: no sentinel answers
  (SentinelUnreachableError), none monitors SERVICE (SentinelServiceUnknownError); they
  know it but see no usable primary now (down, a failover under way): StoreUnreachableError,
  as for any store that does not answer. The sentinels' own password comes only from
  ``sentinel_password_file=`` (with ``sentinel_user=`` for an ACL user).
"""

from __future__ import annotations

import re
import uuid
from typing import Any, Unpack
from urllib.parse import unquote

from snowid._exceptions import (
    LeaseError,
    SentinelServiceUnknownError,
    SentinelUnreachableError,
    StoreConfigHiddenError,
    StoreRefusedError,
    StoreReplicationError,
    StoreUnreachableError,
    detached,
)
from snowid.ids import Clock
from snowid.lease._base import IdentityStatus
from snowid.lease._failover import HistoryChanged, Quarantine
from snowid.lease._redact import driver_detail, scrub
from snowid.lease._redis_lua import (
    CLAIM,
    INIT,
    QUARANTINE,
    RELEASE,
    RELEASE_MARK,
    RENEW,
    REPAIR,
    VOID_MARKS,
    Keys,
)
from snowid.lease._store import (
    Claimed,
    Initialised,
    Renewed,
    StoreLease,
    StoreMissing,
    StoreOptions,
    StoreOutdated,
    close_quietly,
)
from snowid.lease._storeops import (
    DURABILITY,
    REPLICATION,
    STORE_FORMAT,
    check_durability,
    first_line,
)
from snowid.lease._url import LeaseUrl, given, read_password_file

__all__ = ["OPTIONS", "SENTINEL_OPTIONS", "RedisLease", "SentinelLease"]

_FSYNC_OK = ("always", "everysec")
_MIN_VERSION = (5, 0)  # scripts that read TIME and then write (effects replication)
OPTIONS = (
    "range", "datacenter", "key", "ttl", "renew", "span", "max_skew", "timeout", "claim_wait",
    "connect_timeout", "durability", "password_file", "replication",
)  # fmt: skip
_TLS_FILES = ("ssl_ca_certs", "ssl_certfile", "ssl_keyfile")
_CERT_REQS = ("none", "optional", "required")  # redis-py's names of ssl.CERT_*
_MAX_DB = 65535


class RedisLease(StoreLease):
    """A worker identity in ``[first, last]`` leased from Redis keys under ``{prefix}``."""

    def __init__(
        self,
        connection: dict[str, Any],
        *,
        prefix: str = "snowid",
        connect_timeout: float = 2.0,
        durability: str = "strict",
        url: str = "redis://",
        clock: Clock | None = None,
        **options: Unpack[StoreOptions],
    ) -> None:
        super().__init__(url=url, clock=clock, **options)
        self.connection = dict(connection)  # host, port, db, username, password, ssl, ssl_*
        self.keys = Keys(prefix)
        self.connect_timeout = connect_timeout
        self.strict = durability == "strict"
        self.run_id: str | None = None
        self.replicas = 0
        self._restarted = False
        self._scripts: dict[str, Any] = {}

    @classmethod
    def from_url(cls, url: LeaseUrl, *, clock: Clock | None = None) -> RedisLease:
        """``redis://[[user]:password@]host[:port][/db]?range=…&ttl=…`` (``rediss://``: TLS;
        ``redis+sentinel://``: the primary found through Redis Sentinel, SentinelLease)."""
        if url.scheme == "redis+sentinel":
            return SentinelLease.from_sentinel_url(url, clock=clock)
        url.check_ports()
        tls = url.scheme == "rediss"  # TLS options on redis:// would be ignored: unknown there
        url.check_known((*OPTIONS, "ssl_cert_reqs", *_TLS_FILES) if tls else OPTIONS)
        host, port, user = url.endpoint()[:3]
        connection: dict[str, Any] = {"host": host or "127.0.0.1", "port": port or 6379}
        db_text = url.path.strip("/")
        connection["db"] = url.to_int("db", db_text, 0, _MAX_DB) if db_text else 0
        if user:
            connection["username"] = user
        if tls:
            connection["ssl"] = True
            reqs = url.choice("ssl_cert_reqs", _CERT_REQS)
            if reqs is not None:
                connection["ssl_cert_reqs"] = reqs
            for name in _TLS_FILES:
                if name in url.options:
                    connection[name] = url.local_path(url.options[name])
        own = cls._own_options(url)
        options = cls.read_options(url)
        # Read last (from the URL or password_file=): no refusal above runs with the
        # password among its frame's variables.
        password = url.password()
        if password is not None:
            connection["password"] = password
        return cls(connection, url=url.shown, clock=clock, **own, **options)

    @staticmethod
    def _own_options(url: LeaseUrl) -> dict[str, Any]:
        """``key``, ``connect_timeout`` and ``durability``, checked; ``replication=sync``
        refused (WAIT confirms, best effort)."""
        if url.choice("replication", REPLICATION) == "sync":
            raise url.fail("replication_sync", scheme=f"{url.scheme}:")
        return given(
            prefix=url.identifier("key"),
            connect_timeout=url.seconds("connect_timeout", 0.01),
            durability=url.choice("durability", DURABILITY),
        )

    # --- connection ---------------------------------------------------------------------

    def _new_client(self) -> Any:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        return redis.Redis(
            **self.connection,
            socket_timeout=self.timeout_s,
            socket_connect_timeout=self.connect_timeout,
            retry=Retry(NoBackoff(), 0),  # we retry (or fail closed) ourselves
            single_connection_client=True,
            health_check_interval=0,
            client_name="snowid-lease",
        )

    def _client(self) -> Any:
        """The connection, opened and checked (strict mode) on first use after a drop."""
        if self._conn is not None:
            return self._conn
        client = self._call(self._new_client)  # connects at once (single connection)
        try:
            self._handshake(client)
        except BaseException:
            close_quietly(client)
            raise
        self._conn = client
        self._scripts = {
            name: client.register_script(text)
            for name, text in (
                ("init", INIT), ("claim", CLAIM), ("renew", RENEW), ("release", RELEASE),
                ("repair", REPAIR), ("quarantine", QUARANTINE),
                ("release_mark", RELEASE_MARK), ("void_marks", VOID_MARKS),
            )
        }  # fmt: skip
        return client

    def _handshake(self, client: Any) -> None:
        """Before anything else on a new connection: version, role, durability, run_id."""
        info = self._call(client.info)
        version = tuple(int(p) for p in str(info.get("redis_version", "0")).split(".")[:2])
        if version < _MIN_VERSION:
            raise StoreRefusedError(
                store=self.url,
                reason=f"Redis {info.get('redis_version')} is too old (5.0 or later)",
            )
        if info.get("role") != "master":
            raise StoreRefusedError(store=self.url, reason="the server is a read-only replica")
        self.replicas = int(info.get("connected_slaves", 0))
        try:
            weak = self._weak_settings(client)
        except StoreConfigHiddenError:
            if self.strict:
                raise
            weak = [("config", "hidden (CONFIG GET refused)", "")]
        risk = "a restart, failover or eviction that loses acknowledged writes"
        check_durability(self.url, "Redis", self.strict, weak, risk)
        run_id = str(info.get("run_id", ""))
        if self.run_id is not None and run_id != self.run_id:
            self._restarted = True
        self.run_id = run_id

    @detached()
    def _settings(self, client: Any) -> dict[str, str]:
        pipe = client.pipeline(transaction=False)
        for name in ("appendonly", "appendfsync", "maxmemory-policy"):
            pipe.config_get(name)
        try:
            replies = self._call(pipe.execute)
        except StoreRefusedError as error:
            raise StoreConfigHiddenError(
                store=self.url,
                reason=error.reason,
                driver_class=error.driver_class,
                driver_message=error.driver_message,
            ) from None
        found: dict[str, str] = {}
        for reply in replies:
            found.update({_text(k): _text(v) for k, v in reply.items()})
        return found

    def _weak_settings(self, client: Any) -> list[tuple[str, str, str]]:
        """(setting, found, required) for each setting that can lose acknowledged writes."""
        found = self._settings(client)
        weak = []
        if found.get("appendonly") != "yes":
            weak.append(("appendonly", found.get("appendonly", "?"), "yes"))
        elif found.get("appendfsync") not in _FSYNC_OK:
            weak.append(("appendfsync", found.get("appendfsync", "?"), "always or everysec"))
        policy = found.get("maxmemory-policy", "?")
        if policy.startswith("allkeys-"):
            weak.append(("maxmemory-policy", policy, "noeviction or volatile-*"))
        return weak

    @detached()
    def _call(self, func: Any, *args: Any, **kwargs: Any) -> Any:
        """One round trip; redis-py's errors become snowid's (the connection is dropped)."""
        import redis

        try:
            return func(*args, **kwargs)
        except redis.TimeoutError:
            self._drop_connection()
            raise self._timed_out() from None
        except redis.ConnectionError as error:
            self._drop_connection()
            raise StoreUnreachableError(**self._detail(error)) from None
        except redis.ResponseError as error:
            self._drop_connection()
            raise StoreRefusedError(**self._detail(error)) from None
        except redis.RedisError as error:
            self._drop_connection()
            raise StoreUnreachableError(**self._detail(error)) from None

    def _detail(self, error: BaseException) -> dict[str, str]:
        """The store, the first line of redis-py's message and the driver's detail, without
        the password."""
        secrets = self._secrets()
        return {
            "store": self.url,
            "reason": scrub(first_line(error), self.url, secrets),
            **driver_detail(error, self.url, secrets),
        }

    def _secrets(self) -> list[str]:
        """The passwords a driver's message must never show."""
        password = self.connection.get("password")
        return [password] if password else []

    def _script(self, name: str, *args: object) -> Any:
        client = self._client()
        reply = self._call(self._scripts[name], keys=self.keys.scripts, args=list(args))
        if self.replicas:
            acked = int(self._call(client.execute_command, "WAIT", self.replicas, self._wait_ms))
            if acked < self.replicas:
                raise StoreReplicationError(
                    store=self.url, acked=acked, replicas=self.replicas, timeout_ms=self._wait_ms
                )
        return reply

    @property
    def _wait_ms(self) -> int:
        # Half the operation timeout: WAIT must answer before the socket gives up on it.
        return max(1, round(self.timeout_s * 500))

    # --- the store operations -----------------------------------------------------------

    def _store_now_ms(self) -> int:
        seconds, micros = self._call(self._client().time)
        return int(seconds) * 1000 + int(micros) // 1000

    def _store_claim(self, owner: str, caller_ms: int, holder: str) -> Claimed | None:
        self._restarted = False  # nothing held: a restart seen now needs no repair
        reply = self._script(
            "claim", self.first, self.last, owner, self.ttl_ms, caller_ms, self.max_skew_ms,
            self.span_ms, holder, self.quarantine_ms,
        )  # fmt: skip
        status = _text(reply[0])
        if status == "missing":
            raise StoreMissing
        if status == "outdated":
            raise StoreOutdated
        if status == "full":
            return None
        if status == "history":
            raise HistoryChanged(_text(reply[1]), _text(reply[2]))
        _, worker, old, ceiling, epoch, incarnation, history, until, *repaired = reply
        return Claimed(
            int(worker), int(old), int(ceiling), int(epoch), _text(incarnation),
            tuple(int(w) for w in repaired), _text(history),
            int(until) if _text(until) else None,
        )  # fmt: skip

    def _store_renew(
        self, worker: int, owner: str, epoch: int, caller_ms: int, acked_ms: int
    ) -> Renewed:
        self._client()  # a reconnect checks the run_id first
        if self._restarted:
            answer = self._repair(worker, owner, epoch, acked_ms)
            if answer.status == "restarted" and self._promoted_from(self.history):
                return Renewed("lost")  # the protocol finds the history changed: failed over
            return answer
        reply = self._script(
            "renew", worker, owner, epoch, self.ttl_ms, caller_ms, self.span_ms,
            self.max_skew_ms, self.incarnation or "", acked_ms, self.quarantine_ms,
            self.history or "",
        )  # fmt: skip
        status = _text(reply[0])
        if status == "missing":
            raise StoreMissing
        if status == "outdated":
            raise StoreOutdated
        if status == "removed":
            return Renewed("removed")
        if status == "modified":
            return Renewed("modified")
        if status == "lost":
            return Renewed("lost")
        return Renewed("ok", int(reply[1]), int(reply[2]), store_ms=int(reply[3]))

    def _repair(self, worker: int, owner: str, epoch: int, acked_ms: int) -> Renewed:
        reply = self._script("repair", worker, owner, epoch, acked_ms, self.incarnation or "")
        self._restarted = False
        if _text(reply[0]) == "lost":
            return Renewed("lost")
        return Renewed(
            "restarted",
            int(reply[1]),
            acked_ms,
            reason="the store restarted (its run_id changed): claiming anew",
        )

    # --- failover (docs/leases.md, "A store that failed over") ---------------------------

    def _replication(self) -> dict[str, Any]:
        info: dict[str, Any] = self._call(self._client().info, "replication")
        return info

    def _store_history(self) -> str | None:
        return str(self._replication().get("master_replid", "")) or None

    def _promoted_from(self, history: str | None) -> bool:
        """Whether the server is a replica promoted from the primary of ``history`` (it
        keeps that replication id as master_replid2), rather than a restarted server."""
        found = self._replication()
        return history is not None and str(found.get("master_replid2", "")) == history

    def _store_quarantine(self, seen: str, found: str) -> Quarantine:
        del seen, found
        reply = self._script("quarantine", self.failover_quarantine_ms, self.ttl_ms)
        before, after, at_ms, until_ms, done = (_text(part) for part in reply)
        return Quarantine(before, after, int(at_ms), int(until_ms), done == "1")

    def _store_last_quarantine(self) -> Quarantine | None:
        client = self._call(self._new_client)
        try:
            fields = ("quarantine_seen", "history", "quarantine_at_ms", "quarantine_until_ms")
            values = self._call(client.hmget, self.keys.all[0], fields)
        finally:
            close_quietly(client)
        if values[3] is None:
            return None
        seen, found, at_ms, until_ms = (_text(v) for v in values)
        return Quarantine(seen, found, int(at_ms), int(until_ms))

    def _store_release(self, worker: int, owner: str, epoch: int) -> None:
        self._script("release", worker, owner, epoch)

    def _store_release_mark(self, worker: int, owner: str, epoch: int, mark_ms: int) -> bool:
        return bool(int(self._script("release_mark", worker, owner, epoch, mark_ms)))

    def _store_void_marks(self) -> int:
        return int(self._script("void_marks"))

    def _store_incarnation(self) -> str | None:
        value = self._call(self._client().hget, self.keys.all[0], "incarnation")
        return None if value is None else _text(value)

    # --- set-up and status --------------------------------------------------------------

    def _store_init(self, quarantine_ms: int | None) -> Initialised:
        quarantine = -1 if quarantine_ms is None else quarantine_ms
        reply = self._script("init", quarantine, str(uuid.uuid4()), "twitter", self.quarantine_ms)
        incarnation, created, upgraded, *repaired = reply
        return Initialised(
            _text(incarnation), bool(int(created)), bool(int(upgraded)),
            tuple(int(w) for w in repaired),
        )  # fmt: skip

    def _store_where(self) -> dict[str, object]:
        return {"keys": self.keys.all}

    def _store_missing(self) -> list[int]:
        """Read only, without the strict check (as ``status``); a store of the older
        format cannot tell a deleted worker from an unused one: none."""
        meta, lease, ceiling, epoch, _info = self.keys.all
        client = self._call(self._new_client)
        try:
            pipe = client.pipeline(transaction=True)
            pipe.hget(meta, "format")
            for key in (lease, ceiling, epoch):
                pipe.hkeys(key)
            found, *fields = self._call(pipe.execute)
        finally:
            close_quietly(client)
        if found is None or int(found) < STORE_FORMAT:
            return []
        whole = set.intersection(*({int(w) for w in names} for names in fields))
        return sorted(set(range(self.first, self.last + 1)) - whole)

    def status(self) -> list[IdentityStatus]:
        """Every identity ever claimed: holder, epoch, ceiling (read only, no strict check)."""
        meta, lease, ceiling, epoch, info = self.keys.all
        client = self._call(self._new_client)
        try:
            pipe = client.pipeline(transaction=True)
            pipe.time()
            for key in (lease, ceiling, epoch, info):
                pipe.hgetall(key)
            (seconds, micros), leases, ceilings, epochs, infos = self._call(pipe.execute)
        finally:
            close_quietly(client)
        del meta
        now = int(seconds) * 1000 + int(micros) // 1000
        rows = []
        for field, count in sorted(epochs.items(), key=lambda kv: int(kv[0])):
            if int(count) <= 0:
                continue
            expires = int(_text(leases.get(field, b"0:0")).rpartition(":")[2] or 0)
            since, _, holder = _text(infos.get(field, b"")).partition(" ")
            ceiling = ceilings.get(field, 0)
            rows.append((field, expires >= now, holder, count, ceiling, since or None, expires))
        return self._status_rows(rows)


# --- redis+sentinel:// ----------------------------------------------------------------

SENTINEL_OPTIONS = (*OPTIONS, "sentinel_user", "sentinel_password_file")
_DEFAULT_PORT = 26379
_SERVICE = re.compile(r"^[A-Za-z0-9_.\-]{1,100}$")


class SentinelLease(RedisLease):
    """A Redis lease on the primary that the ``sentinels`` name for ``service``."""

    def __init__(
        self,
        sentinels: list[tuple[str, int]],
        service: str,
        connection: dict[str, Any],
        *,
        sentinel_auth: dict[str, str] | None = None,
        **options: Any,  # RedisLease's
    ) -> None:
        super().__init__(connection, **options)
        self.sentinels = list(sentinels)
        self.service = service
        self._sentinel_auth = dict(sentinel_auth or {})  # username, password

    @classmethod
    def from_sentinel_url(cls, url: LeaseUrl, *, clock: Clock | None = None) -> SentinelLease:
        """``redis+sentinel://[user@]HOST:PORT[,HOST:PORT…]/SERVICE[/DB]?…`` (see above)."""
        url.check_known(SENTINEL_OPTIONS)
        sentinels = [(host or "127.0.0.1", port or _DEFAULT_PORT) for host, port in url.hosts()]
        service, db = _service_and_db(url)
        connection: dict[str, Any] = {"db": db}
        user = url.parts.user
        if user:
            connection["username"] = unquote(user)
        own = cls._own_options(url)
        options = cls.read_options(url)
        auth: dict[str, str] = {}
        sentinel_user = url.options.get("sentinel_user")
        if sentinel_user:
            auth["username"] = sentinel_user
        # Passwords last (see RedisLease.from_url): no refusal runs with one in its frame.
        path = url.options.get("sentinel_password_file")
        if path is not None:
            auth["password"] = read_password_file(url.local_path(path), url.shown)
        password = url.password()
        if password is not None:
            connection["password"] = password
        return cls(
            sentinels or [("127.0.0.1", _DEFAULT_PORT)], service, connection,
            sentinel_auth=auth, url=url.shown, clock=clock, **own, **options,
        )  # fmt: skip

    # --- connection ---------------------------------------------------------------------

    def _secrets(self) -> list[str]:
        found = super()._secrets()
        password = self._sentinel_auth.get("password")
        return [*found, password] if password else found

    @property
    def _sentinel_list(self) -> str:
        return ", ".join(f"{host}:{port}" for host, port in self.sentinels)

    def _new_client(self) -> Any:
        """A client of the primary the sentinels name now, on one connection (opened here:
        the strict checks then run on it before anything else, as for ``redis://``)."""
        from redis.backoff import NoBackoff
        from redis.retry import Retry
        from redis.sentinel import MasterNotFoundError, Sentinel

        timeouts: dict[str, Any] = {
            "socket_timeout": self.timeout_s,
            "socket_connect_timeout": self.connect_timeout,
            "retry": Retry(NoBackoff(), 0),  # we retry (or fail closed) ourselves
        }
        sentinel = Sentinel(
            self.sentinels,
            sentinel_kwargs={**timeouts, **self._sentinel_auth, "client_name": "snowid-lease"},
        )
        try:
            return sentinel.master_for(
                self.service, redis_class=_one_connection_class(), **self.connection,
                **timeouts, health_check_interval=0, client_name="snowid-lease",
            )  # fmt: skip
        except MasterNotFoundError:
            raise self._no_primary(sentinel) from None
        finally:
            # The sentinels are asked again at the next connection (a new client).
            sentinel.close()

    def _no_primary(self, sentinel: Any) -> LeaseError:
        """Why the sentinels named no primary: none answered, none knows the service, or
        they see its primary down (asked again, each; never raises)."""
        import redis

        known: set[str] = set()
        failures: list[str] = []
        state: dict[str, Any] | None = None
        for (host, port), client in zip(self.sentinels, sentinel.sentinels, strict=True):
            try:
                masters = client.sentinel_masters()
            except redis.RedisError as error:
                failures.append(f"{host}:{port}: {first_line(error)}")
                continue
            known.update(str(name) for name in masters)
            state = masters.get(self.service, state)
        if len(failures) == len(self.sentinels):
            return SentinelUnreachableError(
                store=self.url,
                sentinels=self._sentinel_list,
                reason=scrub("; ".join(failures), self.url, self._secrets()),
            )
        if state is None:
            return SentinelServiceUnknownError(
                store=self.url, service=self.service, known=", ".join(sorted(known)) or "none"
            )
        flags = str(state.get("flags", "")) or "?"
        return StoreUnreachableError(
            store=self.url,
            reason=f"its sentinels see no usable primary for {self.service} (flags: {flags});"
            " a failover may be under way",
        )


def _service_and_db(url: LeaseUrl) -> tuple[str, int]:
    """The path's ``/SERVICE[/DB]`` (DB 0 when left out)."""
    parts = url.path.strip("/").split("/")
    if not 1 <= len(parts) <= 2 or not _SERVICE.match(parts[0]):
        raise url.fail("sentinel_service", text=url.path or "/")
    db = url.to_int("db", parts[1], 0, _MAX_DB) if len(parts) == 2 else 0
    return parts[0], db


_ONE_CONNECTION: list[type[Any]] = []


def _one_connection_class() -> type[Any]:
    """``redis.Redis`` on a single connection, for ``master_for(redis_class=…)`` (which
    takes no ``single_connection_client``), whose ``close`` also ends its pool's
    connections (so nothing outlives a dropped connection)."""
    if not _ONE_CONNECTION:
        import redis

        class OneConnection(redis.Redis):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                kwargs["single_connection_client"] = True
                super().__init__(*args, **kwargs)

            def close(self) -> None:
                try:
                    super().close()
                finally:
                    self.connection_pool.disconnect()

        _ONE_CONNECTION.append(OneConnection)
    return _ONE_CONNECTION[0]


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
