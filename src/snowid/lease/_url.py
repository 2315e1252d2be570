"""Reading lease URLs strictly: a scheme, a location and typed options, or a refusal.

``parse_lease_url`` checks the pieces ``_urltext`` cut the URL into (once per
``open_lease``); the backend its scheme picks (``_registry``) reads the options it knows in
its ``from_url``, each checked as it is read, from the query or from keyword arguments
(which win). An absent option reads as None: the backend's constructor has the default.
An unknown option (a typo such as ``rnage=0-7``) or one given twice is refused, by name:
never a silent default. Every refusal is an :class:`InvalidLeaseUrlError` whose
``reason`` picks its catalog message (en/vi), naming the URL without its password and
what is allowed. Numbers follow the core's rules (ASCII digits only).
"""

from __future__ import annotations

import difflib
import errno
import math
import os
import re
import stat
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import unquote

from snowid._exceptions import (
    InvalidLeaseUrlError,
    InvalidValueError,
    LeaseUrlReason,
    NumberTooLongError,
    OutOfRangeError,
    PasswordFileEmptyError,
    PasswordFileError,
    detached,
)
from snowid.ids import TWITTER, to_int
from snowid.lease._redact import MASK, hide, redact, secret_tail
from snowid.lease._urltext import UrlText, split_url

__all__ = [
    "CLUSTER_OPTIONS",
    "ClusterUrl",
    "LeaseUrl",
    "check_identifier",
    "given",
    "parse_lease_url",
    "read_cluster_url",
]

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,50}$")
_DECIMAL = re.compile(r"^\s*[+]?(\d+(\.\d*)?|\.\d+)\s*$", re.ASCII)
_MAX_PORT = 65535
# lists we wrote, scrubbed text, option names (check_known hides them): never ``hide``n
_UNHIDDEN = ("allowed", "driver_class", "driver_message", "options", "passes_to", "suggestion")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # Unicode category Cc


# --- parsing -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LeaseUrl:
    """A parsed lease URL: its scheme, where, and the options (strings, checked when read).

    ``parts`` holds the URL's pieces as written (path and query still percent-encoded),
    for backends that hand the location to a driver; ``query`` holds the URL's own query
    pairs, ``options`` those merged with keyword options, ``objects`` the keyword
    options a backend takes as objects (``Lease.object_options``).
    """

    raw: str = field(repr=False)  # may hold a password: never in a repr
    scheme: str
    parts: UrlText = field(repr=False)
    query: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    options: dict[str, str] = field(default_factory=dict, repr=False)
    objects: dict[str, object] = field(default_factory=dict, repr=False)

    @property
    def netloc(self) -> str:
        return self.parts.netloc

    @property
    def path(self) -> str:
        """The path, percent-decoded."""
        return unquote(self.parts.path)

    def local_path(self, text: str) -> str:
        """``text`` (a decoded path on this host) if it holds no control character.

        A newline or tab in a directory name is legal on Linux but is never what an
        operator meant (a pasted or templated URL), so it is refused, never removed."""
        _check_controls(text, self.raw)
        return text

    @property
    def shown(self) -> str:
        """The URL as it may be printed (``snowid.lease._redact.redact``: never a secret)."""
        return redact(self.raw)

    def with_options(self, options: Mapping[str, object], objects: Iterable[str] = ()) -> LeaseUrl:
        """Keyword ``options`` merged over the query (stringified), except those named in
        ``objects``, which are kept as they are in ``objects``."""
        keep = set(objects)
        merged, held = dict(self.options), dict(self.objects)
        for key, option in options.items():
            if option is None:
                continue
            if key in keep:
                held[key] = option
            else:
                merged[key] = _option_text(option)
        return replace(self, options=merged, objects=held)

    def fail(self, reason: LeaseUrlReason, **data: Any) -> InvalidLeaseUrlError:
        return _error(reason, self.raw, **data)

    def check_known(
        self,
        known: Iterable[str],
        instead: Mapping[str, str] | None = None,
        passed: tuple[str, Iterable[str]] = ("", ()),
    ) -> None:
        """Refuse every option not in ``known`` nor taken by a library (``passed``: its
        name, "libpq", and the options it takes), naming each but those after a
        secret-named option in the query (the rest of its value, maybe: shown as MASK).
        A lone unknown option gets the option closest to it, or ``instead[name]``."""
        allowed, library = sorted(set(known)), set(passed[1])
        unknown = [name for name in self.options if name not in {*allowed, *library}]
        if not unknown:
            return
        tail, hint = secret_tail(self.raw), ""
        if len(unknown) == 1 and unknown[0] not in tail:
            near = difflib.get_close_matches(unknown[0], {*allowed, *library}, n=1)
            hint = (instead or {}).get(unknown[0]) or (near[0] if near else "")
        raise self.fail(
            "unknown_option",
            options=", ".join(MASK if name in tail else name for name in unknown),
            allowed=", ".join(allowed),
            suggestion=hint,
            passes_to=passed[0],
        )

    def integer(self, name: str, minimum: int = 0, maximum: int | None = None) -> int | None:
        """Option ``name`` as a whole number in ``minimum..maximum``; None if absent."""
        text = self.options.get(name)
        if text is None:
            return None
        return self.to_int(name, text, minimum, maximum)

    @detached()
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

    def seconds(
        self, name: str, minimum: float = 0.0, maximum: float | None = None
    ) -> float | None:
        """Option ``name`` as a decimal number of seconds in ``minimum..maximum``; None if
        absent."""
        text = self.options.get(name)
        if text is None:
            return None
        value = float(text) if _DECIMAL.match(text) else math.nan
        if not minimum <= value < math.inf:
            raise self.fail("seconds", option=name, text=text, min=f"{minimum:g}")
        if maximum is not None and value > maximum:
            raise self.fail("range", option=name, text=text, min=f"{minimum:g}", max=f"{maximum:g}")
        return value

    def flag(self, name: str) -> bool | None:
        """Option ``name`` as yes/no; None if absent."""
        text = self.options.get(name)
        if text is None:
            return None
        lowered = text.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise self.fail("bool", option=name, text=text)

    def choice(self, name: str, allowed: Iterable[str]) -> str | None:
        """Option ``name`` as one of ``allowed``; None if absent."""
        text = self.options.get(name)
        choices = tuple(allowed)
        if text is not None and text not in choices:
            raise self.fail("choice", option=name, text=text, allowed=", ".join(choices))
        return text

    def identifier(self, name: str) -> str | None:
        """Option ``name`` as a plain SQL name; None if absent."""
        text = self.options.get(name)
        if text is None:
            return None
        if not _IDENT.match(text):
            raise self.fail("identifier", option=name, text=text)
        return text

    def worker_range(self) -> tuple[int, int] | None:
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
        dc = self.integer("datacenter", 0, TWITTER.max_datacenter)
        if dc is not None:
            return TWITTER.worker(dc, 0), TWITTER.worker(dc, TWITTER.max_machine)
        return None

    def hosts(self) -> list[tuple[str, int | None]]:
        """The hosts of the authority (none, one, or a list ``h1:p1,h2:p2``) with their
        ports, None where the port is left out; a port outside 1..65535 is an error
        naming it."""
        found: list[tuple[str, int | None]] = []
        for host in self.parts.hosts():
            port = host.port
            if port and not (port.isascii() and port.isdigit() and 1 <= int(port) <= _MAX_PORT):
                raise self.fail("port", port=port)
            found.append((host.name.lower(), int(port) if port else None))
        return found

    def endpoint(self) -> tuple[str | None, int | None, str | None, str | None]:
        """The authority's host, port, user and password (the last two percent-decoded),
        each None where absent, for backends that connect to one host (a list of hosts
        is an error)."""
        hosts = self.hosts()
        if len(hosts) > 1:
            raise self.fail("host_list", scheme=f"{self.scheme}:", count=len(hosts))
        host, port = hosts[0] if hosts else ("", None)
        user, password = self.parts.user, self.parts.password
        return host or None, port, unquote(user) if user else None, password and unquote(password)

    def password(self) -> str | None:
        """The password: the URL's own (percent-decoded), or the content of the file
        named by ``password_file=`` (which keeps it off command lines); None if neither.

        Giving both is an error (which one was meant?). The authority may name several
        hosts (a redis+sentinel: URL): there is one password for all of them."""
        written = self.parts.password
        inline = written and unquote(written)
        path = self.options.get("password_file")
        if path is None:
            return inline
        if inline is not None:
            raise self.fail("password_twice")
        return read_password_file(self.local_path(path), self.shown)

    def check_ports(self) -> None:
        """Every host of the (possibly multi-host) authority has a port in 1..65535 or
        none (for backends that connect to hosts: a bad port is an error naming it)."""
        self.hosts()


@dataclass(frozen=True, slots=True)
class ClusterUrl:
    """What a URL of a consensus engine's store (``etcd:``, ``zookeeper:``) names besides
    the protocol's options: its members, the path (decoded, without the slashes around it),
    the user (decoded, or None), the password of ``password_file=`` (or None) and the
    ``connect_timeout=`` given (an empty dict: the backend's default)."""

    endpoints: list[tuple[str, int]]
    path: str
    user: str | None
    password: str | None = field(repr=False)
    own: dict[str, Any]


CLUSTER_OPTIONS = (
    "range", "datacenter", "ttl", "renew", "span", "max_skew", "timeout", "claim_wait",
    "connect_timeout", "password_file",
)  # fmt: skip
"""The options of an ``etcd:`` or ``zookeeper:`` URL: the protocol's, ``connect_timeout``
and ``password_file``."""

CLUSTER_PATH = re.compile(r"^(?!.*(^|/)\.\.?(/|$))[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")
"""The path of an ``etcd:`` or ``zookeeper:`` URL: names of ASCII letters, digits and
``_ . -`` joined by ``/`` (no name ``.`` or ``..``)."""


def read_cluster_url(
    url: LeaseUrl, default_port: int, known: Iterable[str] = CLUSTER_OPTIONS,
    default_path: str = "snowid",
) -> ClusterUrl:  # fmt: skip
    """The location of a consensus engine's store in ``url``, checked: unknown options
    refused, every ``HOST[:PORT]`` (``127.0.0.1:default_port`` when none is given), a
    path of at most 100 characters (``key_prefix``), no password in the URL itself
    (``password_inline``: it takes one from ``password_file=`` or the engine's own
    environment, never from a command line) and ``connect_timeout=``. The protocol's
    options are the lease's ``read_options``; the engine's environment is the backend's."""
    url.check_known(known)
    endpoints = [(host or "127.0.0.1", port or default_port) for host, port in url.hosts()]
    path = url.path.strip("/") or default_path
    if len(path) > 100 or not CLUSTER_PATH.match(path):
        raise url.fail("key_prefix", text=url.path)
    if url.parts.password:
        raise url.fail("password_inline", scheme=f"{url.scheme}:")
    file = url.options.get("password_file")  # (url.password() takes one host only)
    return ClusterUrl(
        endpoints=endpoints or [("127.0.0.1", default_port)],
        path=path,
        user=unquote(url.parts.user) if url.parts.user else None,
        password=None if file is None else read_password_file(url.local_path(file), url.shown),
        own=given(connect_timeout=url.seconds("connect_timeout", 0.01)),
    )


def given(**options: Any) -> dict[str, Any]:
    """The options a URL gave (those read as None left out, so that the backend's
    constructor supplies their defaults)."""
    return {key: value for key, value in options.items() if value is not None}


@detached()
def parse_lease_url(url: str) -> LeaseUrl:
    """Read ``url`` (surrounding white space ignored) into a :class:`LeaseUrl`. Refused:
    a control character, an ambiguous user information (a password holding a raw ``/ ?
    # @``: a host may be a piece of it) and a host not well formed. Which schemes exist
    is the registry's business (``_registry.backend_for``)."""
    text = url.strip()
    _check_controls(text, text)
    parts = split_url(text)
    if parts.ambiguous or any(host.bad for host in parts.hosts()):
        raise _error("syntax", text)  # naming nothing after "//"
    pairs = parts.pairs()
    counts = Counter(key for key, _ in pairs)
    repeated = sorted(key for key, count in counts.items() if count > 1)
    if repeated:
        raise _error("duplicate_option", text, option=repeated[0], count=counts[repeated[0]])
    return LeaseUrl(
        raw=text, scheme=parts.scheme.lower(), parts=parts, query=tuple(pairs), options=dict(pairs)
    )


def read_password_file(path: str, shown: str) -> str:
    """The password in ``path`` (for the lease ``shown``), as ``--auth-token-file`` reads
    its file: UTF-8, trailing line breaks dropped. A missing, unreadable, non-UTF-8 or empty
    file, a directory or anything but a regular file (a FIFO would block the open) is a
    PasswordFileError naming the option and the path, never anything of the content."""
    failure: PasswordFileError | None = None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
        with os.fdopen(fd, "rb") as file:
            mode = os.fstat(fd).st_mode
            if stat.S_ISDIR(mode):
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
            if not stat.S_ISREG(mode):
                raise OSError(errno.EINVAL, "not a regular file")
            data = file.read()
        password = data.decode("utf-8").rstrip("\r\n")
    except OSError as error:
        failure = PasswordFileError(
            value=path,
            url=shown,
            reason=error.strerror or type(error).__name__,
            driver_class=type(error).__name__,
        )
    except UnicodeDecodeError:
        failure = PasswordFileError(value=path, url=shown, reason="not UTF-8 text")
    if failure is not None:  # raised here, outside the handler: no chain to the content
        raise failure
    if not password:
        raise PasswordFileEmptyError(value=path, url=shown)
    return password


def _check_controls(text: str, url: str) -> None:
    """Refuse a control character in ``text`` (part of ``url``), named as U+XXXX."""
    found = _CONTROL.search(text)
    if found is not None:
        raise _error("control_character", url, text=f"U+{ord(found.group()):04X}")


def _error(reason: LeaseUrlReason, url: str, **data: Any) -> InvalidLeaseUrlError:
    """The refusal of ``url``, which it names as ``redact`` shows it; a piece of text
    taken from the URL is dropped if a secret is in it (the error's message shortens
    the rest and makes control characters visible)."""
    shown: dict[str, Any] = {
        key: hide(value, url) if isinstance(value, str) and key not in _UNHIDDEN else value
        for key, value in data.items()
    }
    return InvalidLeaseUrlError(value=redact(url) or '""', reason=reason, **shown)


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
