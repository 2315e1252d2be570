"""The web service's own errors: a query parameter given twice or one a route does not
read, a time zone or a bare number the range page cannot read as a date, and the service's
settings.

Raised by ``_forms``, ``_settings`` and ``_auth``; shown by ``_errors`` (the one error
shape of the service). Users import them from ``snowid.errors``.
"""

from __future__ import annotations

from typing import ClassVar

from snowid._exceptions import (
    DriverDetail,
    InvalidDateTimeError,
    InvalidValueError,
    error_data,
    name_errors_module,
)

__all__ = [
    "AuthTokenFileEmptyError",
    "AuthTokenFileError",
    "AuthTokenFileMissingError",
    "DuplicateParameterError",
    "ForwardedIpsError",
    "InvalidTimeZoneError",
    "MetricsDirError",
    "NotABooleanError",
    "NumberNotADateError",
    "UnknownParameterError",
]


@error_data
class DuplicateParameterError(InvalidValueError):
    """A query parameter of the HTTP API given ``count`` times (``?machine=1&machine=2``):
    which value counts would be a guess. ``parameter`` is its name as sent (also ``field``),
    ``value`` the values given.
    """

    code = "duplicate_parameter"
    _shown = frozenset({"value", "parameter"})  # the client's text, shortened and made visible
    parameter: str
    count: int


@error_data
class UnknownParameterError(InvalidValueError):
    """A parameter the JSON API route does not read (``?COUNT=5``, a form field): answering
    as if it were absent would give what was not asked for. ``parameter`` is its name as
    sent (also ``field``), ``value`` its value, ``allowed`` the route's own parameters and
    ``where`` ``query``, ``form`` (a form body's field) or ``body`` (a JSON object body's
    member)."""

    code = "unknown_parameter"
    _shown = frozenset({"value", "parameter"})  # the client's text, shortened and made visible
    parameter: str
    allowed: str
    where: str = "query"

    def _catalog_key(self) -> str:
        return self.code if self.where == "query" else f"{self.code}.{self.where}"


class NotABooleanError(InvalidValueError):
    """A yes/no setting (``field``, a SNOWID_* variable) whose ``value`` is neither."""

    code = "not_a_boolean"


class NotSecondsError(InvalidValueError):
    """A setting counted in seconds (``field``: its name, or its SNOWID_* variable) whose
    ``value`` is not a decimal number (``5``, ``2.5``)."""

    code = "not_seconds"


@error_data
class AuthTokenFileError(InvalidValueError, DriverDetail):
    """The bearer-token file ``value`` of ``snowid serve`` cannot be read (``reason``)."""

    code = "auth_token_file_unreadable"
    # The operator's own path: shown whole, not shortened.
    _shown: ClassVar[frozenset[str]] = frozenset()
    field: str = "auth_token_file"
    reason: str = ""


class AuthTokenFileEmptyError(AuthTokenFileError):
    """The bearer-token file ``value`` holds no token."""

    code = "auth_token_file_empty"


class AuthTokenFileMissingError(AuthTokenFileError):
    """Token authentication for /metrics (``field``) is on without a token file."""

    code = "auth_token_file_missing"


@error_data
class MetricsDirError(InvalidValueError):
    """The directory ``value`` where ``snowid serve``'s worker processes share their metrics
    cannot be created or written (it is a file, under /proc, read-only, ...): ``reason``."""

    code = "metrics_dir_unusable"
    _shown: ClassVar[frozenset[str]] = frozenset()  # the operator's own path, shown whole
    field: str = "metrics_dir"
    reason: str = ""


class ForwardedIpsError(InvalidValueError):
    """``forwarded_allow_ips`` (``field``) is ``value``: neither ``*`` nor a list of IP
    addresses and networks separated by commas."""

    code = "forwarded_allow_ips"


class InvalidTimeZoneError(InvalidValueError):
    """The time zone (``field``) the range page reads its dates in is ``value``: neither
    UTC nor an IANA zone name this host knows (such as ``Asia/Ho_Chi_Minh``)."""

    code = "invalid_time_zone"


class NumberNotADateError(InvalidDateTimeError):
    """A date field of the range page (``field``) holds a bare number of ten digits or
    fewer (``value``): as Unix milliseconds that is a moment of 1970's first four months,
    never what a visitor meant by ``2022`` or ``26102022``. Nine or ten digits look like
    Unix seconds: the message gives the same instant in milliseconds (``as_milliseconds``)."""

    code = "number_not_a_date"

    @property
    def as_milliseconds(self) -> int | None:
        """``value`` × 1000 when it has nine or ten digits (Unix seconds); else None."""
        text = str(self.value).strip()
        return int(text) * 1000 if 9 <= len(text) <= 10 and text.isdigit() else None

    def _catalog_key(self) -> str:
        return f"{self.code}.seconds" if self.as_milliseconds is not None else self.code

    def _derived(self) -> dict[str, object]:
        milliseconds = self.as_milliseconds
        return {} if milliseconds is None else {"milliseconds": milliseconds}


name_errors_module(globals())  # reprs and pickles say snowid.errors.X
