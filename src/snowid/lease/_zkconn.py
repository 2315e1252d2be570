"""One session with a ZooKeeper ensemble, through kazoo (imported lazily).

``Session`` opens a kazoo client on the URL's servers (kazoo tries them in random order and
moves to the next when one fails), logs in with ZooKeeper's ``digest`` scheme when a user
is given, and runs every request with a time limit of the lease's ``timeout``: a request
kazoo cannot send (no server reachable, an ensemble without a quorum, whose servers turn
clients away) never waits for the session to expire, it fails with StoreUnreachableError
when its time is up. Failures are snowid errors naming the store (redacted): a server that
cannot be reached or refuses the connection says so (which servers, refused or silent);
a node that needs credentials names ``password_file=``; any other refusal of ZooKeeper's
is StoreRefusedError.

ZooKeeper's clock is read from the nodes the lease writes: ``mtime`` is the leader's clock
when it applied the write (ms). ``now_ms`` is the last one seen plus the time since.

Where the platform has ``poll()``, kazoo's client runs with a handler whose ``select`` is
``_poll.poll_select``: kazoo's own makes and closes an epoll selector at each call (several
calls a request), about a quarter of the client's CPU a request on this path; the rest of
the handler (its threads, queues and timeouts) is kazoo's.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import socket
import time
from typing import Any

from snowid._exceptions import (
    ExtraMissingError,
    StoreRefusedError,
    StoreUnreachableError,
    detached,
)
from snowid.lease._poll import HAVE_POLL, poll_select
from snowid.lease._redact import driver_detail, scrub
from snowid.lease._storeops import first_line

__all__ = ["Session"]

_LOG = logging.getLogger("snowid.lease.kazoo")
_LOG.addHandler(logging.NullHandler())  # kazoo's reconnection notes: for whoever logs them


class Session:
    """A kazoo client of ``endpoints`` ((host, port) pairs); see the module."""

    def __init__(
        self,
        endpoints: list[tuple[str, int]],
        *,
        session_s: float,
        timeout: float,
        connect_timeout: float,
        store: str,
        user: str | None = None,
        password: str | None = None,
    ) -> None:
        try:
            from kazoo.client import KazooClient
            from kazoo.retry import KazooRetry
            from kazoo.security import OPEN_ACL_UNSAFE, make_digest_acl
        except ImportError:
            raise ExtraMissingError(
                feature="zookeeper:// leases", package="kazoo", extra="zookeeper"
            ) from None
        self.store = store
        self.timeout = timeout
        self._endpoints = endpoints
        self._password = password
        self._user = user
        hosts = ",".join(f"[{h}]:{p}" if ":" in h else f"{h}:{p}" for h, p in endpoints)
        auth = [("digest", f"{user}:{password or ''}")] if user is not None else None
        self.acl = (
            [make_digest_acl(user, password or "", all=True)]
            if user is not None
            else list(OPEN_ACL_UNSAFE)
        )
        self._client = KazooClient(
            hosts=hosts, timeout=session_s, auth_data=auth, default_acl=self.acl, logger=_LOG,
            connection_retry=KazooRetry(max_tries=-1, delay=0.05, max_delay=1.0),
            handler=_handler(),
        )  # fmt: skip
        self._connect_timeout = connect_timeout
        self._started = False
        self._seen: tuple[int, int] | None = None  # (mtime ms, monotonic ns when read)

    # --- the store's clock ----------------------------------------------------------------

    def saw(self, stat: Any) -> None:
        """Keep the leader's clock of a write's ``ZnodeStat`` (its ``mtime``)."""
        mtime = getattr(stat, "mtime", None)
        if isinstance(mtime, int) and mtime > 0:
            self._seen = (mtime, time.monotonic_ns())

    def now_ms(self) -> int | None:
        """The store's clock (the last write's ``mtime`` plus the time since), or None."""
        if self._seen is None:
            return None
        mtime, seen_ns = self._seen
        return mtime + (time.monotonic_ns() - seen_ns) // 1_000_000

    # --- requests -------------------------------------------------------------------------

    @property
    def client(self) -> Any:
        if not self._started:
            self._start()
        return self._client

    @property
    def session_id(self) -> int:
        return int(self.client.client_id[0]) if self.client.client_id else 0

    @detached()
    def _start(self) -> None:
        from kazoo.handlers.threading import KazooTimeoutError

        try:
            self._client.start(timeout=self._connect_timeout)
        except KazooTimeoutError:
            with contextlib.suppress(Exception):
                self._client.stop()
            raise StoreUnreachableError(
                store=self.store, reason=self._why_not_connected()
            ) from None
        self._started = True

    def _why_not_connected(self) -> str:
        """Which servers turned the connection away, or did not answer (TCP alone)."""
        refused, silent, unknown = [], [], []
        for host, port in self._endpoints:
            where = f"{host}:{port}"
            try:
                with socket.create_connection((host, port), timeout=min(1.0, self.timeout)):
                    silent.append(where)
            except ConnectionRefusedError:
                refused.append(where)
            except socket.gaierror:
                unknown.append(where)
            except OSError:
                silent.append(where)
        parts = []
        if unknown:
            parts.append(f"{', '.join(unknown)}: no such host (check the host names in the URL)")
        if refused:
            parts.append(
                f"{', '.join(refused)} refused the connection (is ZooKeeper running there and"
                " is the port its clientPort?)"
            )
        if silent:
            parts.append(
                f"{', '.join(silent)} gave no ZooKeeper session (a server cut off, out of its"
                " ensemble's quorum, or at its maxClientCnxns limit turns clients away)"
            )
        return f"no ZooKeeper session within {self._connect_timeout:g} s: " + "; ".join(parts)

    def wait(self, result: Any) -> Any:
        """The value of a kazoo async ``result`` within the time limit; snowid errors, but
        for kazoo's NoNodeError and NodeExistsError, which the caller reads."""
        from kazoo.exceptions import NodeExistsError, NoNodeError, ZookeeperError
        from kazoo.handlers.threading import KazooTimeoutError

        try:
            return result.get(timeout=self.timeout)
        except (NoNodeError, NodeExistsError):
            raise
        except KazooTimeoutError:
            raise StoreUnreachableError(
                store=self.store,
                reason=f"no answer within {self.timeout:g} s (a server cut off, or an"
                " ensemble without a quorum, does not answer)",
            ) from None
        except ZookeeperError as error:
            raise self.failure(error) from None

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """``client.NAME_async(*args, **kwargs)`` waited for (see ``wait``)."""
        return self.wait(getattr(self.client, f"{name}_async")(*args, **kwargs))

    def commit(self, ops: list[tuple[str, tuple[Any, ...], dict[str, Any]]]) -> list[Any]:
        """One multi-op transaction (``check``, ``create``, ``set_data``, ``delete``): its
        results, each a value or the exception of the op that failed (then nothing was
        written)."""
        transaction = self.client.transaction()
        for name, args, kwargs in ops:
            getattr(transaction, name)(*args, **kwargs)
        results: list[Any] = self.wait(transaction.commit_async())
        for item in results:
            if _unusable(item):
                raise self.failure(item)
        return results

    def failure(self, error: BaseException) -> Exception:
        from kazoo.exceptions import (
            AuthFailedError,
            ConnectionClosedError,
            ConnectionLoss,
            NoAuthError,
            OperationTimeoutError,
            SessionExpiredError,
        )

        detail = driver_detail(error, self.store, self._secrets)
        message = scrub(first_line(error), self.store, self._secrets)
        if isinstance(error, NoAuthError | AuthFailedError):
            return StoreRefusedError(
                store=self.store,
                reason="ZooKeeper refused access to the lease's nodes (their ACL names other"
                " credentials): give the user in the URL (zookeeper://USER@HOST:PORT/PATH)"
                " and its digest password in password_file=",
                **detail,
            )
        lost = ConnectionLoss | SessionExpiredError | ConnectionClosedError | OperationTimeoutError
        if isinstance(error, lost):
            return StoreUnreachableError(
                store=self.store,
                reason=f"the ZooKeeper session was interrupted ({type(error).__name__}): a server"
                " went away or the ensemble lost its quorum",
                **detail,
            )
        return StoreRefusedError(
            store=self.store, reason=f"ZooKeeper refused a request: {message}", **detail
        )

    @property
    def _secrets(self) -> list[str]:
        return [self._password] if self._password else []

    def close(self) -> None:
        """End the session: ZooKeeper deletes its ephemeral nodes at once."""
        with contextlib.suppress(Exception):
            if self._started:
                self._client.stop()
            self._client.close()


def _unusable(item: Any) -> bool:
    """A transaction's result that is a failure of the connection or of permissions (not of
    a compare: those the caller reads)."""
    from kazoo.exceptions import (
        AuthFailedError,
        ConnectionLoss,
        NoAuthError,
        SessionExpiredError,
    )

    return isinstance(item, NoAuthError | AuthFailedError | ConnectionLoss | SessionExpiredError)


def _handler() -> Any:
    """A new kazoo threading handler, with ``poll_select`` where there is ``poll()``."""
    from kazoo.handlers.threading import SequentialThreadingHandler

    return (_poll_handler() if HAVE_POLL else SequentialThreadingHandler)()


@functools.cache
def _poll_handler() -> type[Any]:
    from kazoo.handlers.threading import SequentialThreadingHandler

    class PollHandler(SequentialThreadingHandler):  # type: ignore[misc]
        def select(self, *args: Any, **kwargs: Any) -> Any:
            return poll_select(*args, **kwargs)

    return PollHandler
