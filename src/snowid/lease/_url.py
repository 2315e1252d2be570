"""Parsing lease URLs into a scheme, a location and typed options.

Every option comes from the URL query or from keyword arguments (which win); each
value is checked here, once, so the backends receive clean numbers. Unknown options
are an error: a typo such as ``rnage=0-7`` must not silently fall back to a default.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, unquote, urlsplit, urlunsplit

from snowid._layout import TWITTER
from snowid.errors import InvalidLeaseUrlError

__all__ = ["LeaseUrl", "parse_lease_url", "redact"]

_SCHEMES = {"static": "static", "file": "file", "postgresql": "postgres", "postgres": "postgres"}


@dataclass(frozen=True, slots=True)
class LeaseUrl:
    """A parsed lease URL: which backend, where, and the raw options (strings)."""

    raw: str
    backend: str
    netloc: str
    path: str
    options: dict[str, str] = field(default_factory=dict)

    def fail(self, reason: str) -> InvalidLeaseUrlError:
        return InvalidLeaseUrlError(field="lease", value=redact(self.raw), reason=reason)

    def check_known(self, known: Iterable[str]) -> None:
        unknown = sorted(set(self.options) - set(known))
        if unknown:
            raise self.fail("unknown option " + ", ".join(unknown))

    def get_int(self, name: str, default: int, minimum: int = 0, maximum: int | None = None) -> int:
        text = self.options.get(name)
        if text is None:
            return default
        try:
            value = int(text)
        except ValueError:
            raise self.fail(f"{name}={text} is not a whole number") from None
        if value < minimum or (maximum is not None and value > maximum):
            upper = "" if maximum is None else str(maximum)
            raise self.fail(f"{name}={text} is out of range {minimum}..{upper}")
        return value

    def get_seconds(self, name: str, default: float, minimum: float = 0.0) -> float:
        text = self.options.get(name)
        if text is None:
            return default
        try:
            value = float(text)
        except ValueError:
            raise self.fail(f"{name}={text} is not a number of seconds") from None
        if not minimum <= value < float("inf"):
            raise self.fail(f"{name}={text} must be at least {minimum}")
        return value

    def get_bool(self, name: str, default: bool) -> bool:
        text = self.options.get(name)
        if text is None:
            return default
        lowered = text.lower()
        if lowered in {"1", "true", "yes", "on"}:
            return True
        if lowered in {"0", "false", "no", "off"}:
            return False
        raise self.fail(f"{name}={text} is not a yes/no value")

    def get_range(self) -> tuple[int, int] | None:
        """``range=A-B`` (worker numbers) or ``datacenter=N`` (its 32 machines); None if neither."""
        text = self.options.get("range")
        if text is not None:
            first_text, sep, last_text = text.partition("-")
            if not sep:
                first_text = last_text = text
            try:
                first, last = int(first_text), int(last_text)
            except ValueError:
                raise self.fail(f"range={text} is not A-B with whole numbers") from None
            if not 0 <= first <= last <= TWITTER.max_worker:
                raise self.fail(f"range={text} must lie in 0-{TWITTER.max_worker}, first <= last")
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
    except ValueError as error:
        raise InvalidLeaseUrlError(field="lease", value=text, reason=str(error)) from None
    backend = _SCHEMES.get(parts.scheme.lower())
    if backend is None:
        raise InvalidLeaseUrlError(
            field="lease",
            value=redact(text),
            reason="the scheme must be static:, file: or postgresql:",
        )
    merged: dict[str, str] = {}
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        merged[key] = value
    for key, option in (options or {}).items():
        if option is not None:
            merged[key] = _option_text(option)
    return LeaseUrl(
        raw=text,
        backend=backend,
        netloc=parts.netloc,
        path=unquote(parts.path),
        options=merged,
    )


def _option_text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, tuple) and len(value) == 2:
        return f"{value[0]}-{value[1]}"
    return str(value)


def redact(url: str) -> str:
    """The URL without a password (``postgresql://u:secret@h/db`` -> ``postgresql://u@h/db``)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host if parts.port is None else f"{host}:{parts.port}"
    if parts.username:
        netloc = f"{parts.username}@{netloc}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
