"""One connection to an etcd cluster's v3 JSON gateway, over the standard library's
``http.client``.

etcd 3.4 and later answer gRPC's key-value, lease and auth calls as JSON over plain HTTP
(``POST /v3/kv/txn``…): a small, documented API, so no client library is needed. (The
lease used etcd3gw over ``requests`` before, which cost about 1.1 ms of CPU a request
against 0.3 ms here: a thousand claimants at once are CPU-bound.)

``Gateway`` posts a request to one member of the cluster, on a kept-alive connection per
member, and turns every failure into a snowid error naming the store (redacted): a member
that refuses the connection, does not accept it in time, or drops it, is skipped for the
next one in the same request; any other failure (no answer in time, no leader, no quorum)
is StoreUnreachableError and the next request starts at the next member; a refusal by
etcd (permissions, a bad request) is StoreRefusedError; wrong or missing credentials say
what to set.

etcd has no clock to read. Every answer of its gateway carries an HTTP ``Date`` (whole
seconds), which is what the lease uses as the store's clock, half a second
(``CLOCK_STEP_MS``/2) either way.
"""

from __future__ import annotations

import calendar
import contextlib
import email.utils
import http.client
import json
import time
from typing import Any

from snowid._exceptions import StoreRefusedError, StoreUnreachableError, detached
from snowid.lease._poll import poll_select
from snowid.lease._redact import driver_detail, scrub
from snowid.lease._storeops import first_line

__all__ = ["CLOCK_STEP_MS", "Gateway"]

CLOCK_STEP_MS = 1000
"""The resolution of the store's clock as the lease reads it (HTTP ``Date``)."""

_API = "/v3/"
_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}
_TRANSIENT = (
    "no leader",
    "leader changed",
    "too many requests",
    "request timed out",
    "server stopped",
    "not capable",
)
"""etcd's answers that say it cannot serve now (an election, an overload): the store is
unreachable for the moment, not refusing the request."""
_AUTH_LOST = ("invalid auth token", "auth token is not found")
_AUTH_NEEDED = ("user name is empty", "user name not found", "permission denied")
_TIMED_OUT = frozenset({408, 504})
"""HTTP statuses of an answer that came too late (gRPC's deadline exceeded)."""
_UNAVAILABLE = frozenset({500, 503})
"""HTTP statuses of a member that cannot serve (gRPC's internal and unavailable)."""


class EtcdAnswerError(Exception):
    """An answer of the gateway other than 200: its status and etcd's own message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status, self.message = status, message


class _LostError(Exception):
    """No connection to the member (refused, no such host, not accepted in time), or it
    was closed before an answer came (a member stopping): the next member is asked."""


class _NoAnswerError(Exception):
    """The request was sent; its answer did not come in time."""


class Gateway:
    """Requests to ``endpoints`` ((host, port) pairs), one at a time; see the module."""

    def __init__(
        self,
        endpoints: list[tuple[str, int]],
        *,
        timeout: float,
        connect_timeout: float,
        store: str,
        user: str | None = None,
        password: str | None = None,
    ) -> None:
        self.store = store
        self._user, self._password = user, password
        self._endpoints = endpoints
        self._timeout, self._connect_timeout = timeout, connect_timeout
        self._conns: dict[int, http.client.HTTPConnection] = {}
        self._headers = dict(_HEADERS)
        self._current = 0
        self._date: tuple[int, int] | None = None  # (Date in ms, monotonic ns when seen)
        self._authed = False

    # --- the store's clock ----------------------------------------------------------------

    def _saw(self, date: str | None) -> None:
        parsed = email.utils.parsedate_tz(date) if date else None
        if parsed is not None:
            seconds = calendar.timegm(parsed[:6]) - (parsed[9] or 0)
            self._date = (seconds * 1000, time.monotonic_ns())

    def now_ms(self) -> int | None:
        """The store's clock (the middle of the last ``Date`` second seen, plus the time
        since), or None before any answer."""
        if self._date is None:
            return None
        date_ms, seen_ns = self._date
        return date_ms + CLOCK_STEP_MS // 2 + (time.monotonic_ns() - seen_ns) // 1_000_000

    # --- requests -------------------------------------------------------------------------

    def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """One request (``kv/txn``, ``lease/grant``…): the answer's JSON object."""
        if self._user is not None and not self._authed:
            self._authenticate()
        try:
            return self._post(path, body)
        except _TokenExpiredError:
            self._authed = False
            self._authenticate()
            return self._post(path, body)

    def _authenticate(self) -> None:
        self._headers.pop("Authorization", None)
        answer = self._post("auth/authenticate", {"name": self._user, "password": self._password})
        self._headers["Authorization"] = str(answer.get("token", ""))
        self._authed = True

    @detached()
    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(body, separators=(",", ":")).encode()
        tried = 0
        while True:
            index = self._current
            host, port = self._endpoints[index]
            where = f"{host}:{port}"
            try:
                status, raw = self._exchange(index, _API + path, data)
            except _LostError as lost:
                self._current = (index + 1) % len(self._endpoints)
                tried += 1
                if tried < len(self._endpoints):
                    continue  # that member is down or stopping: the next one
                raise self._failure(lost.__cause__ or lost, where) from None
            except _NoAnswerError as late:
                self._current = (index + 1) % len(self._endpoints)
                raise self._failure(late, where) from None
            try:
                answer = json.loads(raw)
            except ValueError as error:  # not JSON: not an etcd gateway
                self._current = (index + 1) % len(self._endpoints)
                raise StoreRefusedError(
                    store=self.store,
                    reason=f"{where} does not answer as the v3 JSON gateway of etcd 3.4 or later",
                    **driver_detail(error, self.store, self._secrets),
                ) from None
            if status != 200:
                self._current = (index + 1) % len(self._endpoints)
                raise self._failure(EtcdAnswerError(status, _etcd_message(answer)), where)
            if not isinstance(answer, dict):
                raise StoreRefusedError(store=self.store, reason=f"{where} gave no JSON object")
            return answer

    def _exchange(self, index: int, path: str, data: bytes) -> tuple[int, bytes]:
        """POST ``data`` to member ``index``: the answer's status and body."""
        conn = self._connection(index)
        try:
            conn.request("POST", path, body=data, headers=self._headers)
            response = conn.getresponse()
            raw = response.read()
        except TimeoutError as error:
            self._drop(index)
            raise _NoAnswerError(first_line(error)) from error
        except (OSError, http.client.HTTPException) as error:
            # Reset, closed or answered garbage: as the member being down (the next one).
            self._drop(index)
            raise _LostError() from error
        self._saw(response.getheader("Date"))
        if response.will_close:
            self._drop(index)
        return response.status, raw

    def _connection(self, index: int) -> http.client.HTTPConnection:
        """The kept-alive connection to member ``index``, or a new one; _LostError if none."""
        conn = self._conns.get(index)
        if conn is not None:
            if conn.sock is not None and not _dropped(conn.sock):
                return conn
            self._drop(index)
        host, port = self._endpoints[index]
        conn = http.client.HTTPConnection(host, port, timeout=self._connect_timeout)
        try:
            conn.connect()  # refused, no such host, not accepted in time: nothing sent
        except OSError as error:
            conn.close()
            raise _LostError() from error
        assert conn.sock is not None
        conn.sock.settimeout(self._timeout)
        self._conns[index] = conn
        return conn

    def _drop(self, index: int) -> None:
        conn = self._conns.pop(index, None)
        if conn is not None:
            conn.close()

    @property
    def _secrets(self) -> list[str]:
        return [self._password] if self._password else []

    def _failure(self, error: BaseException, where: str) -> Exception:
        if isinstance(error, EtcdAnswerError):
            message, status = error.message, error.status
        else:
            message, status = first_line(error), 0
        detail = driver_detail(error, self.store, self._secrets, message)
        if isinstance(error, _NoAnswerError) or status in _TIMED_OUT:
            return StoreUnreachableError(
                store=self.store,
                reason=f"no answer from {where} in time (a cluster without a quorum, or a member"
                " cut off, does not answer)",
                **detail,
            )
        if not isinstance(error, EtcdAnswerError):  # no connection to any member
            return StoreUnreachableError(
                store=self.store,
                reason=f"{where}: {scrub(message, self.store, self._secrets)} (is etcd running"
                " there and is the port its client port?)",
                **detail,
            )
        refused = self._auth_failure(message, detail)
        if refused is not None:
            return refused
        if status in _UNAVAILABLE or any(text in message for text in _TRANSIENT):
            return StoreUnreachableError(
                store=self.store, reason=f"{where}: {scrub(message, self.store, self._secrets)}",
                **detail,
            )  # fmt: skip
        return StoreRefusedError(
            store=self.store, reason=scrub(message, self.store, self._secrets), **detail
        )

    def _auth_failure(self, message: str, detail: dict[str, str]) -> Exception | None:
        """The error of an answer about credentials (None: it is not one)."""
        if any(text in message for text in _AUTH_LOST) and self._authed:
            return _TokenExpiredError()
        if "authentication failed" in message:
            return StoreRefusedError(
                store=self.store,
                reason="etcd refused the user and password: check the user in the URL and the"
                " password in password_file= or ETCDCTL_PASSWORD",
                **detail,
            )
        if any(text in message for text in _AUTH_NEEDED):
            return StoreRefusedError(
                store=self.store,
                reason=f"{scrub(message, self.store, self._secrets)}: the cluster has"
                " authentication on; give a user with read and write access to the prefix"
                " (etcd://USER@HOST:PORT/PREFIX with password_file=)",
                **detail,
            )
        return None

    def close(self) -> None:
        for index in list(self._conns):
            with contextlib.suppress(Exception):
                self._drop(index)


class _TokenExpiredError(Exception):
    """The token expired (etcd's simple tokens do after 5 idle minutes): log in again."""


def _dropped(sock: Any) -> bool:
    """Whether a kept-alive connection was closed (or written to) by the member while
    idle: readable before a request is sent means end of file, or an answer to nothing."""
    try:
        return bool(poll_select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def _etcd_message(answer: object) -> str:
    """etcd's own message in a failed answer (``{"error": …, "message": …}``)."""
    if isinstance(answer, dict):
        text = answer.get("message") or answer.get("error")
        if text:
            return str(text)
    return json.dumps(answer)[:200]
