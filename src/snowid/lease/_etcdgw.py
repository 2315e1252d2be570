"""One connection to an etcd cluster's v3 JSON gateway, through etcd3gw (imported lazily).

``Gateway`` posts a request to one member of the cluster and turns every failure into a
snowid error naming the store (redacted): a member that refuses the connection or does not
accept it in time is skipped for the next one in the same request (nothing reached it);
any other failure (no answer in time, no leader, no quorum) is StoreUnreachableError and
the next request starts at the next member; a refusal by etcd (permissions, a bad
request) is StoreRefusedError; wrong or missing credentials say what to set.

etcd has no clock to read. Every answer of its gateway carries an HTTP ``Date`` (whole
seconds), which is what the lease uses as the store's clock, half a second
(``CLOCK_STEP_MS``/2) either way.
"""

from __future__ import annotations

import contextlib
import email.utils
import time
from typing import Any

from snowid._exceptions import (
    ExtraMissingError,
    StoreRefusedError,
    StoreUnreachableError,
    detached,
)
from snowid.lease._redact import driver_detail, scrub
from snowid.lease._storeops import first_line

__all__ = ["CLOCK_STEP_MS", "Gateway"]

CLOCK_STEP_MS = 1000
"""The resolution of the store's clock as the lease reads it (HTTP ``Date``)."""

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
        try:
            import etcd3gw
            import requests
        except ImportError:
            raise ExtraMissingError(
                feature="etcd:// leases", package="etcd3gw", extra="etcd"
            ) from None
        self.store = store
        self._user, self._password = user, password
        self._session = requests.Session()
        # The members are reached directly: no HTTP(S)_PROXY, no ~/.netrc. (Reading them
        # costs every request a scan of the environment, a third of a claim's CPU.)
        self._session.trust_env = False
        self._session.hooks["response"].append(self._saw)
        self._clients = [
            etcd3gw.Etcd3Client(
                host, port, timeout=(connect_timeout, timeout), api_path="/v3/",  # type: ignore[arg-type]
                session=self._session,
            )
            for host, port in endpoints
        ]  # fmt: skip
        self._endpoints = endpoints
        self._current = 0
        self._date: tuple[int, int] | None = None  # (Date in ms, monotonic ns when seen)
        self._authed = False

    # --- the store's clock ----------------------------------------------------------------

    def _saw(self, response: Any, *args: Any, **kwargs: Any) -> None:
        del args, kwargs
        with contextlib.suppress(TypeError, ValueError, IndexError):
            seen = email.utils.parsedate_to_datetime(response.headers.get("Date", ""))
            self._date = (round(seen.timestamp() * 1000), time.monotonic_ns())

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
        self._session.headers.pop("Authorization", None)
        answer = self._post("auth/authenticate", {"name": self._user, "password": self._password})
        self._session.headers["Authorization"] = str(answer.get("token", ""))
        self._authed = True

    @detached()
    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        from etcd3gw import exceptions
        from requests.exceptions import ConnectionError as Refused
        from requests.exceptions import ConnectTimeout

        tried = 0
        while True:
            client = self._clients[self._current]
            try:
                answer = client.post(client.get_url(path), json=body)
            except exceptions.Etcd3Exception as error:
                cause = error.__context__
                self._current = (self._current + 1) % len(self._clients)
                tried += 1
                unsent = isinstance(cause, ConnectTimeout) or (
                    isinstance(cause, Refused)
                    and not isinstance(error, exceptions.ConnectionTimeoutError)
                )
                if unsent and tried < len(self._clients):
                    continue  # nothing reached that member: ask the next one
                raise self._failure(error, client) from None
            except ValueError as error:  # not JSON: not an etcd gateway
                self._current = (self._current + 1) % len(self._clients)
                raise StoreRefusedError(
                    store=self.store,
                    reason=f"{client.host}:{client.port} does not answer as the v3 JSON gateway"
                    " of etcd 3.4 or later",
                    **driver_detail(error, self.store, self._secrets),
                ) from None
            if not isinstance(answer, dict):
                raise StoreRefusedError(
                    store=self.store, reason=f"{client.host}:{client.port} gave no JSON object"
                )
            return answer

    @property
    def _secrets(self) -> list[str]:
        return [self._password] if self._password else []

    def _failure(self, error: BaseException, client: Any) -> Exception:
        from etcd3gw import exceptions

        where = f"{client.host}:{client.port}"
        message = _etcd_message(error)
        detail = driver_detail(error, self.store, self._secrets, message)
        if isinstance(error, exceptions.ConnectionTimeoutError):
            return StoreUnreachableError(
                store=self.store,
                reason=f"no answer from {where} in time (a cluster without a quorum, or a member"
                " cut off, does not answer)",
                **detail,
            )
        if isinstance(error, exceptions.ConnectionFailedError):
            return StoreUnreachableError(
                store=self.store,
                reason=f"{where}: {scrub(message, self.store, self._secrets)} (is etcd running"
                " there and is the port its client port?)",
                **detail,
            )
        refused = self._auth_failure(message, detail)
        if refused is not None:
            return refused
        if isinstance(error, exceptions.InternalServerError) or any(
            text in message for text in _TRANSIENT
        ):
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
        with contextlib.suppress(Exception):
            self._session.close()


class _TokenExpiredError(Exception):
    """The token expired (etcd's simple tokens do after 5 idle minutes): log in again."""


def _etcd_message(error: BaseException) -> str:
    """etcd's own message in a failed answer (``{"error": …, "message": …}``), else the
    first line of the error."""
    import json

    for arg in getattr(error, "args", ()):
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            data = json.loads(arg)
            text = data.get("message") or data.get("error")
            if text:
                return str(text)
    return first_line(error)
