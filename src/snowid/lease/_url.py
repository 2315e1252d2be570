"""Parsing lease URLs into a scheme, a location and typed options.

Every option comes from the URL query or from keyword arguments (which win); each
value is checked here, once, so the backends receive clean numbers. Unknown options
are an error: a typo such as ``rnage=0-7`` must not silently fall back to a default;
so is an option given twice in the query (which one was meant?).

Every refusal is an :class:`InvalidLeaseUrlError` whose ``reason`` picks its
catalog message (en/vi), naming the field (``lease``), the URL without its password
and what is allowed. Numbers follow the core's rules (``snowid._parse.to_int``):
ASCII digits only.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from snowid._layout import TWITTER
from snowid._parse import to_int
from snowid._redact import hide, hides_raw_password, redact
from snowid.errors import (
    InvalidLeaseUrlError,
    InvalidValueError,
    LeaseUrlReason,
    NumberTooLongError,
    OutOfRangeError,
)

__all__ = [
    "LeaseUrl",
    "check_identifier",
    "parse_lease_url",
    "redact",
]

_SCHEMES = {"static": "static", "file": "file", "postgresql": "postgres", "postgres": "postgres"}
_SCHEMES.update(redis="redis", rediss="redis")
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,50}$")
_DECIMAL = re.compile(r"^\s*[+]?(\d+(\.\d*)?|\.\d+)\s*$", re.ASCII)
_MAX_PORT = 65535


# --- parsing -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LeaseUrl:
    """A parsed lease URL: which backend, where, and the raw options (strings)."""

    raw: str = field(repr=False)  # may hold a password: never in a repr
    backend: str
    netloc: str = field(repr=False)
    path: str
    options: dict[str, str] = field(default_factory=dict, repr=False)

    def fail(self, reason: LeaseUrlReason, **data: Any) -> InvalidLeaseUrlError:
        return _error(reason, self.raw, **data)

    def check_known(self, known: Iterable[str]) -> None:
        allowed = sorted(set(known))
        unknown = sorted(set(self.options) - set(allowed))
        if unknown:
            raise self.fail(
                "unknown_option", options=", ".join(unknown), allowed=", ".join(allowed)
            )

    def get_int(self, name: str, default: int, minimum: int = 0, maximum: int | None = None) -> int:
        text = self.options.get(name)
        if text is None:
            return default
        return self.to_int(name, text, minimum, maximum)

    def to_int(self, name: str, text: str, minimum: int = 0, maximum: int | None = None) -> int:
        """``text`` as a whole number in ``minimum..maximum`` (the core's rules: ASCII digits)."""
        upper = "" if maximum is None else maximum
        try:
            value = to_int(name, text)
        except (OutOfRangeError, NumberTooLongError):  # too many digits for any option
            raise self.fail("range", option=name, text=text, min=minimum, max=upper) from None
        except InvalidValueError:
            raise self.fail("integer", option=name, text=text, min=minimum, max=upper) from None
        if value < minimum or (maximum is not None and value > maximum):
            raise self.fail("range", option=name, text=text, min=minimum, max=upper)
        return value

    def get_seconds(
        self, name: str, default: float, minimum: float = 0.0, maximum: float | None = None
    ) -> float:
        text = self.options.get(name)
        if text is None:
            return default
        value = float(text) if _DECIMAL.match(text) else math.nan
        if not minimum <= value < math.inf:
            raise self.fail("seconds", option=name, text=text, min=f"{minimum:g}")
        if maximum is not None and value > maximum:
            raise self.fail("range", option=name, text=text, min=f"{minimum:g}", max=f"{maximum:g}")
        return value

    def get_bool(self, name: str, default: bool) -> bool:
        text = self.options.get(name)
        if text is None:
            return default
        lowered = text.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise self.fail("bool", option=name, text=text)

    def get_identifier(self, name: str, default: str) -> str:
        text = self.options.get(name, default)
        if not _IDENT.match(text):
            raise self.fail("identifier", option=name, text=text)
        return text

    def get_range(self) -> tuple[int, int] | None:
        """``range=A-B`` (worker numbers) or ``datacenter=N`` (its 32 machines); None if neither."""
        text = self.options.get("range")
        if text is not None:
            first_text, sep, last_text = text.partition("-")
            if not sep:
                first_text = last_text = text
            try:
                first, last = to_int("range", first_text), to_int("range", last_text)
            except InvalidValueError:
                first, last = -1, -1
            if not 0 <= first <= last <= TWITTER.max_worker:
                raise self.fail("worker_range", text=text, max=TWITTER.max_worker)
            return first, last
        if "datacenter" in self.options:
            dc = self.get_int("datacenter", 0, 0, TWITTER.max_datacenter)
            first = dc << TWITTER.machine_bits
            return first, first + TWITTER.max_machine
        return None


def parse_lease_url(url: str, options: Mapping[str, object] | None = None) -> LeaseUrl:
    """Split ``url`` and merge keyword ``options`` (stringified) over its query."""
    text = url.strip()
    try:
        parts = urlsplit(text)
    except ValueError:
        raise _error("syntax", text) from None
    backend = _SCHEMES.get(parts.scheme.lower())
    if backend is None:
        raise _error("unknown_scheme", text, scheme=f"{parts.scheme}:" if parts.scheme else "-")
    if hides_raw_password(text):
        # "u:pa/ss@h": libpq and urllib split it differently, and what looks like a
        # host or port may be part of the password; refused, naming nothing after "//".
        raise _error("syntax", text)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    counts = Counter(key for key, _ in pairs)
    repeated = sorted(key for key, count in counts.items() if count > 1)
    if repeated:
        raise _error("duplicate_option", text, option=repeated[0], count=counts[repeated[0]])
    merged = dict(pairs)
    for key, option in (options or {}).items():
        if option is not None:
            merged[key] = _option_text(option)
    if backend in ("postgres", "redis"):
        _check_ports(parts.netloc, text)
    return LeaseUrl(
        raw=text,
        backend=backend,
        netloc=parts.netloc,
        path=unquote(parts.path),
        options=merged,
    )


def _check_ports(netloc: str, url: str) -> None:
    """Every ``host:port`` of the (possibly multi-host) authority has a port in 1..65535."""
    hosts = netloc.rpartition("@")[2]
    for host in hosts.split(","):
        if host.startswith("["):
            port = host.partition("]")[2]
            if port and not port.startswith(":"):
                raise _error("syntax", url)
            port = port[1:]
        else:
            port = host.rpartition(":")[2] if ":" in host else ""
        if not port:
            continue  # no port: libpq's default
        if not (port.isascii() and port.isdigit()) or not 1 <= int(port) <= _MAX_PORT:
            raise _error("port", url, port=port)


def _error(reason: LeaseUrlReason, url: str, **data: Any) -> InvalidLeaseUrlError:
    """The refusal of ``url``, which it names as ``redact`` shows it; a piece of text
    taken from the URL is dropped if a secret is in it (the error's message shortens
    the rest and makes control characters visible)."""
    shown: dict[str, Any] = {
        key: hide(value, url) if isinstance(value, str) and key != "allowed" else value
        for key, value in data.items()
    }
    return InvalidLeaseUrlError(value=redact(url), reason=reason, **shown)


def _option_text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, tuple) and len(value) == 2:
        return f"{value[0]}-{value[1]}"
    return str(value)


def check_identifier(name: str, value: str) -> str:
    """``value`` if it is a plain SQL name (``[a-z_][a-z0-9_]*``, at most 51 characters)."""
    if not _IDENT.match(value):
        raise _error("identifier", value, option=name, text=value)
    return value
