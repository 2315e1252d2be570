"""What one server needs to know: the only copy of the service's defaults.

Every setting has a field here, a ``SNOWID_*`` environment variable (``ENVIRONMENT``)
and a ``snowid serve`` flag of the same name (``--max-count`` for ``max_count``).
``Settings.load(flags, environ)`` takes each from its flag, else its variable, else the
default below. ``environment()`` writes them back as variables: uvicorn builds the app
anew in every worker process, which reads them with ``Settings.from_env()``.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import ClassVar

from snowid._exceptions import EmptyValueError, InvalidLeaseUrlError, OutOfRangeError
from snowid.generate import DEFAULT_CLOCK_BACK, ClockBack
from snowid.ids import to_int
from snowid.lease import redact
from snowid.web._exceptions import (
    AuthTokenFileMissingError,
    ForwardedIpsError,
    NotABooleanError,
    NotSecondsError,
)

__all__ = ["DEFAULT_MAX_COUNT", "Settings", "preflight"]

DEFAULT_MAX_COUNT = 4096
"""One millisecond's worth of ids for one identity: the most one request may ask for."""

_MAX_COUNT_LIMIT = 1_000_000
_MAX_WORKERS = 1024  # one identity each at most: 32 datacenters x 32 machines
_MAX_DRAIN_SECONDS = 600  # a load balancer notices in seconds; longer is a typo
_DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)", re.ASCII)  # a sign: out of range
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def _text(field: str, raw: object) -> str:
    text = str(raw).strip()
    if not text:
        raise EmptyValueError(field=field, value=str(raw))
    return text


def _flag(field: str, raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise NotABooleanError(field=field, value=str(raw))


def _drain_seconds(field: str, raw: object) -> float:
    """A decimal number of seconds (``5``, ``3.0``, ``2.5``) in 0..600: NotSecondsError or
    OutOfRangeError naming ``field`` (the setting, or the variable) otherwise."""
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        seconds = float(raw)
    else:
        text = str(raw).strip()
        if not text:
            raise EmptyValueError(field=field, value=str(raw))
        if not _DECIMAL.fullmatch(text):
            raise NotSecondsError(field=field, value=str(raw))
        seconds = float(text)
    if not 0 <= seconds <= _MAX_DRAIN_SECONDS:  # NaN fails this too
        raise OutOfRangeError(field=field, value=raw, min=0, max=_MAX_DRAIN_SECONDS)
    return seconds


def _clock_back(field: str, raw: object) -> str:
    """A clock-back policy, in its one spelling (``wait:200``); ClockPolicyError names
    ``field`` (the flag's setting or the variable) otherwise."""
    return str(ClockBack.parse(raw, field))


def _check_proxies(field: str, text: str) -> str:
    """``*`` or IP addresses and networks separated by commas, else ForwardedIpsError
    (uvicorn would take a typo for a host name that never matches, silently)."""
    if text.strip() == "*":
        return text
    items = [item.strip() for item in text.split(",")]
    try:
        for item in items:
            ipaddress.ip_network(item, strict=False)  # an address is a network of one
    except ValueError:
        raise ForwardedIpsError(field=field, value=text) from None
    return text


_READERS: dict[str, Callable[[str, object], object]] = {
    "host": _text,
    "port": to_int,
    "workers": to_int,
    "lease_url": _text,
    "max_count": to_int,
    "access_log": _flag,
    "auth_token_file": _text,
    "auth_metrics": _flag,
    "metrics_dir": _text,
    "forwarded_allow_ips": lambda field, raw: _check_proxies(field, _text(field, raw)),
    "clock_back": _clock_back,
    "drain_seconds": _drain_seconds,
}


@dataclass(frozen=True, slots=True)
class Settings:
    """One server's settings; build it with ``load``/``from_env`` or directly.

    ``lease_url`` None means ``open_lease``'s default (file slots on this host).
    ``auth_token_file`` names a file of bearer tokens that ``POST /api/ids`` (and
    ``/metrics`` with ``auth_metrics``) then requires; None leaves them open.
    ``metrics_dir`` is a directory the worker processes of one server share, so that
    /metrics answers for all of them (``snowid serve --workers N`` makes one).
    ``forwarded_allow_ips`` names the proxies (``*``, or IP addresses and networks separated
    by commas) whose X-Forwarded-For and X-Forwarded-Proto headers are believed; None
    believes nobody's.
    ``clock_back`` is the generator's clock-back policy (``snowid.ClockBack``): ``raise``,
    ``ride:N`` (the default, ``ride:5``), ``wait:N`` or ``logical:N``.
    ``drain_seconds`` is how long a process keeps its socket open after the first
    SIGTERM/SIGINT, answering ``/readyz`` with 503 meanwhile (``snowid.web._drain``): a
    decimal number of seconds, 0..600.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    lease_url: str | None = None
    max_count: int = DEFAULT_MAX_COUNT
    access_log: bool = False
    auth_token_file: str | None = None
    auth_metrics: bool = False
    metrics_dir: str | None = None
    forwarded_allow_ips: str | None = None
    clock_back: str = str(DEFAULT_CLOCK_BACK)
    drain_seconds: float = 5

    ENVIRONMENT: ClassVar[Mapping[str, str]] = {
        "host": "SNOWID_HOST",
        "port": "SNOWID_PORT",
        "workers": "SNOWID_WORKERS",
        "lease_url": "SNOWID_LEASE",
        "max_count": "SNOWID_MAX_COUNT",
        "access_log": "SNOWID_ACCESS_LOG",
        "auth_token_file": "SNOWID_AUTH_TOKEN_FILE",
        "auth_metrics": "SNOWID_AUTH_METRICS",
        "metrics_dir": "SNOWID_METRICS_DIR",
        "forwarded_allow_ips": "SNOWID_FORWARDED_ALLOW_IPS",
        "clock_back": "SNOWID_CLOCK_BACK",
        "drain_seconds": "SNOWID_DRAIN_SECONDS",
    }
    """The environment variable of each field."""

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise OutOfRangeError(field="port", value=self.port, min=0, max=65535)
        if not 1 <= self.workers <= _MAX_WORKERS:
            raise OutOfRangeError(field="workers", value=self.workers, min=1, max=_MAX_WORKERS)
        if not 1 <= self.max_count <= _MAX_COUNT_LIMIT:
            raise OutOfRangeError(
                field="max_count", value=self.max_count, min=1, max=_MAX_COUNT_LIMIT
            )
        _drain_seconds("drain_seconds", self.drain_seconds)
        if self.auth_metrics and not self.auth_token_file:
            raise AuthTokenFileMissingError(field="auth_metrics", value=self.auth_metrics)
        if self.forwarded_allow_ips is not None:
            _check_proxies("forwarded_allow_ips", self.forwarded_allow_ips)
        ClockBack.parse(self.clock_back)

    def __repr__(self) -> str:
        # A lease URL may carry a password: a logged or printed Settings never shows it.
        shown = {f.name: getattr(self, f.name) for f in fields(self)}
        if self.lease_url is not None:
            shown["lease_url"] = redact(self.lease_url)
        return f"Settings({', '.join(f'{k}={v!r}' for k, v in shown.items())})"

    @classmethod
    def load(
        cls, flags: Mapping[str, object] | None = None, environ: Mapping[str, str] | None = None
    ) -> Settings:
        """Each field from ``flags`` (a value of None means not given), else from its
        SNOWID_* variable in ``environ`` (default ``os.environ``; blank means unset),
        else the default. Names in ``flags`` that are not fields are refused. A bad
        value raises an InvalidValueError naming the flag's field or the variable."""
        given = dict(flags or {})
        unknown = set(given) - set(cls.ENVIRONMENT)
        if unknown:
            raise TypeError(f"not a setting: {', '.join(sorted(unknown))}")
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for name, variable in cls.ENVIRONMENT.items():
            raw, source = given.get(name), name
            if raw is None:  # an error then names the variable the operator set
                raw, source = env.get(variable, "").strip() or None, variable
            if raw is not None:
                values[name] = _READERS[name](source, raw)
        return cls(**values)  # type: ignore[arg-type]

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """From the SNOWID_* variables alone (how each worker process reads them)."""
        return cls.load(None, environ)

    def environment(self) -> dict[str, str]:
        """These settings as SNOWID_* variables (unset optional ones are left out)."""
        out: dict[str, str] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            if value is None:
                continue
            if isinstance(value, bool):
                value = "1" if value else "0"
            elif isinstance(value, float):  # 5.0 as 5, 2.5 as 2.5, never 1e-05
                value = f"{value:.6f}".rstrip("0").rstrip(".")
            out[self.ENVIRONMENT[item.name]] = str(value)
        return out


def preflight(settings: Settings) -> None:
    """What can be found wrong before serving, checked once rather than in every worker.

    The lease URL parses and its state directory is usable (created as a worker would);
    a static identity is not shared by several workers; a logical clock-back policy fits
    the lease (a high-water mark, N within its max_skew); the metrics directory can be
    written; the token file has a token.
    Raises the specific SnowIdError.
    """
    from snowid.lease import open_lease, url_kind

    lease = open_lease(settings.lease_url)
    try:
        if settings.workers > 1 and url_kind(lease.url) == "static":
            raise InvalidLeaseUrlError(
                value=lease.url, reason="static_workers", workers=settings.workers
            )
        ClockBack.parse(settings.clock_back).check_lead(fixed=False, fence=lease)
        lease.check()  # e.g. a state directory: created (as a worker would) and checked
    finally:
        lease.close()
    if settings.metrics_dir:
        from snowid.web._share import MetricsShare

        MetricsShare(settings.metrics_dir).prepare()
    if settings.auth_token_file:
        from snowid.web._auth import read_tokens

        read_tokens(settings.auth_token_file)
