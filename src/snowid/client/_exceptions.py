"""The client's errors: a service URL or token it cannot use, and what went wrong on the wire.

Raised by ``_wire``, ``_sync`` and ``_async``; users import them from ``snowid.errors``.
The service's own refusals (``{"error": {"code", "message"}}``) keep its code and message.
"""

from __future__ import annotations

from typing import ClassVar, Literal, get_args

from snowid._exceptions import (
    InvalidValueError,
    SnowIdError,
    error_data,
    name_errors_module,
)

__all__ = [
    "ANSWER_REASONS",
    "SERVICE_URL_REASONS",
    "AnswerReason",
    "ClientClosedError",
    "InvalidServiceUrlError",
    "InvalidTokenError",
    "ServiceAnswerError",
    "ServiceAuthError",
    "ServiceError",
    "ServiceRefusedError",
    "ServiceTimeoutError",
    "ServiceUnavailableError",
    "ServiceUnreachableError",
    "ServiceUrlReason",
]

ServiceUrlReason = Literal["scheme", "host", "port", "userinfo", "extra"]
SERVICE_URL_REASONS: tuple[str, ...] = get_args(ServiceUrlReason)

AnswerReason = Literal["status", "headers", "json", "count", "id"]
ANSWER_REASONS: tuple[str, ...] = get_args(AnswerReason)


@error_data
class InvalidServiceUrlError(InvalidValueError):
    """The service URL ``value`` cannot be used; ``reason`` (SERVICE_URL_REASONS) says why."""

    code = "invalid_service_url"
    field: str = "url"
    reason: ServiceUrlReason

    def _catalog_key(self) -> str:
        return f"{self.code}.{self.reason}"


@error_data
class InvalidTokenError(InvalidValueError):
    """A bearer token that cannot go into an HTTP header (empty, spaces, control or
    non-ASCII characters). ``value`` is always empty: a token is never shown."""

    code = "invalid_token"
    field: str = "token"
    value: object = ""


@error_data
class ServiceError(SnowIdError, RuntimeError):
    """The id service at ``url`` gave no usable batch of ids."""

    code = "service_error"
    _shown: ClassVar[frozenset[str]] = frozenset()  # the caller's own URL, shown whole
    url: str


@error_data
class ServiceUnreachableError(ServiceError, ConnectionError):
    """No answer from ``url`` after ``attempts`` tries: the connection failed (``reason``)."""

    code = "service_unreachable"
    reason: str
    attempts: int


@error_data
class ServiceTimeoutError(ServiceError, TimeoutError):
    """``url`` did not connect or answer within ``timeout`` seconds (not retried)."""

    code = "service_timeout"
    timeout: float


@error_data
class ServiceRefusedError(ServiceError):
    """``url`` answered HTTP ``status`` with the service's error ``service_code`` and
    ``service_message`` (both empty when the answer was not the service's error JSON)."""

    code = "service_refused"
    _shown: ClassVar[frozenset[str]] = frozenset({"service_code"})
    # The service's own sentence, often the fix ("send the header Authorization: Bearer
    # <token>"): shown whole, not cut at a value's 40 characters.
    _whole: ClassVar[frozenset[str]] = frozenset({"service_message"})
    status: int
    service_code: str = ""
    service_message: str = ""


class ServiceAuthError(ServiceRefusedError):
    """HTTP 401: the service wants a bearer token and the client sent none or a wrong one."""

    code = "service_auth"


@error_data
class ServiceUnavailableError(ServiceRefusedError):
    """HTTP 502, 503 or 504 on each of ``attempts`` tries: no identity held, a lease store
    down or a proxy without its upstream."""

    code = "service_unavailable"
    attempts: int = 1


@error_data
class ServiceAnswerError(ServiceError):
    """An answer from ``url`` that is not a batch of ids; ``reason`` (ANSWER_REASONS) says
    what is wrong and ``detail`` shows the part that is (shortened)."""

    code = "service_answer"
    _shown: ClassVar[frozenset[str]] = frozenset({"detail"})
    reason: AnswerReason
    detail: str = ""
    count: int = 0

    def _catalog_key(self) -> str:
        return f"{self.code}.{self.reason}"


class ClientClosedError(ServiceError):
    """``close()`` was called on the client for ``url``: it hands out no more ids."""

    code = "client_closed"


name_errors_module(globals())  # reprs and pickles say snowid.errors.X
