"""A lease URL, or a libpq ``key=value`` string, read as text: its pieces, never an error.

The one reader of lease URLs: :func:`split_url` cuts any text into its pieces, decoding
and checking nothing, so that the strict reader (``_url``) checks them and the redaction
(``_redact``) shows and hides them, also in text the strict reader refuses. An authority
may name several hosts, ``h1:p1,h2:p2`` (libpq; Redis Sentinel, etcd, ZooKeeper).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import unquote_plus

__all__ = ["Host", "UrlText", "conninfo", "split_url"]

_URL = re.compile(
    r"([A-Za-z][A-Za-z0-9+.\-]{0,30}):(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?", re.DOTALL
)


@dataclass(frozen=True, slots=True)
class Host:
    """One host of an authority, as written: ``name`` without IPv6 brackets, ``port``
    ("" when there is none). ``bad``: what is in brackets is no IPv6 address, a bracket
    does not close or stands alone, something other than ``:port`` follows the closing
    one, or a ``:`` is left in the name (an IPv6 address without brackets)."""

    name: str
    port: str
    bad: bool = False


@dataclass(frozen=True, slots=True)
class UrlText:
    """The pieces of a URL, as written. ``scheme`` is "" when the text has none (a libpq
    ``key=value`` string, a blank): then ``path`` holds it all. ``authority``: ``//``
    follows the scheme, and ``netloc`` (user information and hosts) is what follows it.

    ``ambiguous``: the user information cannot be told apart from what follows it (more
    than one ``@`` in the authority, or an ``@`` further on while a ``:`` precedes it):
    ``u:pa/ss@h`` may be a password holding ``/``, and libpq and urllib disagree on where
    it ends. Nothing of such a URL after ``//`` is a host, a path or a query for sure.
    """

    scheme: str = ""
    authority: bool = False
    netloc: str = ""
    path: str = ""
    query: str = ""
    fragment: str = ""
    ambiguous: bool = False

    @property
    def userinfo(self) -> str | None:
        """What stands before the authority's last ``@``; None without an ``@``."""
        userinfo, at, _ = self.netloc.rpartition("@")
        return userinfo if at else None

    @property
    def hostlist(self) -> str:
        return self.netloc.rpartition("@")[2]

    @property
    def user(self) -> str | None:
        return None if self.userinfo is None else self.userinfo.partition(":")[0]

    @property
    def password(self) -> str | None:
        """As written (percent-encoded); None without a ``:`` in the user information."""
        _, colon, password = (self.userinfo or "").partition(":")
        return password if colon else None

    def hosts(self) -> list[Host]:
        """The hosts of the authority, in order (none for an empty one)."""
        found = []
        for text in self.hostlist.split(",") if self.hostlist else ():
            if text.startswith("["):
                name, closed, rest = text[1:].partition("]")
                port = rest[1:] if rest.startswith(":") else rest
                found.append(Host(name, port, not closed or port != rest[1:] or not _ipv6(name)))
            else:
                name, colon, port = text.rpartition(":")
                name, port = (name, port) if colon else (text, "")
                found.append(Host(name, port, any(char in name for char in "[]:")))
        return found

    def pairs(self) -> list[tuple[str, str]]:
        """The query's ``key=value`` pairs in order, decoded as a form (``+`` is a space);
        a key without ``=`` has the value ""; empty pieces are skipped."""
        pieces = (piece.partition("=") for piece in self.query.split("&") if piece)
        return [(unquote_plus(key), unquote_plus(value)) for key, _, value in pieces]


def split_url(text: str) -> UrlText:
    """The pieces of ``text`` (see :class:`UrlText`); never raises."""
    match = _URL.fullmatch(text)
    if match is None:
        return UrlText(path=text)
    scheme, netloc, path, query, fragment = match.groups()
    ambiguous = False
    if netloc:  # two "@" in it, or an "@" after it with a ":" before that: "u:pa/ss@h"
        rest = text[match.end(2) :]
        before = netloc + rest[: rest.rfind("@")]
        ambiguous = netloc.count("@") > 1 or ("@" in rest and ":" in before)
    return UrlText(
        scheme, netloc is not None, netloc or "", path, query or "", fragment or "", ambiguous
    )


def _ipv6(name: str) -> bool:
    try:
        ipaddress.IPv6Address(name)
    except ValueError:
        return False
    return True


# --- libpq key=value strings ---------------------------------------------------------------


def conninfo(text: str) -> list[tuple[str, str]] | None:
    """``key = value`` pairs as libpq reads them (single quotes, backslash escapes);
    None if the text is not one."""
    pairs: list[tuple[str, str]] = []
    i, n = _skip_space(text, 0), len(text)
    while i < n:
        start = i
        while i < n and text[i] != "=" and not text[i].isspace():
            i += 1
        key = text[start:i]
        i = _skip_space(text, i)
        if not key or i == n or text[i] != "=":
            return None
        read = _read_value(text, _skip_space(text, i + 1))
        if read is None:
            return None
        value, i = read
        pairs.append((key, value))
        i = _skip_space(text, i)
    return pairs or None


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _read_value(text: str, i: int) -> tuple[str, int] | None:
    """One value from ``i``: quoted up to the closing quote, else up to a space; a
    backslash takes the next character as it is. None for an unterminated quote."""
    quoted = i < len(text) and text[i] == "'"
    i += quoted
    value: list[str] = []
    while i < len(text):
        char = text[i]
        if (quoted and char == "'") or (not quoted and char.isspace()):
            break
        if char == "\\" and i + 1 < len(text):
            i += 1
        value.append(text[i])
        i += 1
    if quoted:
        if i == len(text):
            return None
        i += 1
    return "".join(value), i
