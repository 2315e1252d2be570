"""A lease URL, or a libpq ``key=value`` string, read as text: its pieces, never an error.

The one reader of lease URLs. :func:`split_url` cuts any text into scheme, user
information, hosts, path, query and fragment, decoding and checking nothing, so that
both of its users work on every input: the strict reader (``_url``) checks the pieces
and refuses what it cannot use; the redaction (``_redact``) shows and hides them, also
in text the strict reader refuses. :func:`conninfo` reads libpq's ``key=value`` form.

An authority may name several hosts, ``h1:p1,h2:p2`` (libpq's host lists; Redis Sentinel,
etcd and ZooKeeper write theirs the same way): :meth:`UrlText.hosts` reads them one by
one. Standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote_plus

__all__ = ["Host", "UrlText", "conninfo", "split_url"]

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]{0,30}):")


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
    """The pieces of a URL, as written (nothing decoded). ``scheme`` is "" when the text
    has none (a libpq ``key=value`` string, a blank, a path): then ``path`` holds it all.

    ``ambiguous``: the user information cannot be told apart from what follows it (more
    than one ``@`` in the authority, or an ``@`` further on while a ``:`` precedes it):
    ``u:pa/ss@h`` may be a password holding ``/``, and libpq and urllib disagree on where
    it ends. Nothing of such a URL after ``//`` is a host, a path or a query for sure.
    """

    scheme: str = ""
    authority: bool = False  # "//" follows the scheme
    userinfo: str | None = None  # before the authority's last "@"; None without an "@"
    hostlist: str = ""  # the authority after the user information
    path: str = ""
    query: str = ""
    fragment: str = ""
    ambiguous: bool = False

    @property
    def netloc(self) -> str:
        """The whole authority (user information included)."""
        return self.hostlist if self.userinfo is None else f"{self.userinfo}@{self.hostlist}"

    @property
    def user(self) -> str | None:
        return None if self.userinfo is None else self.userinfo.partition(":")[0]

    @property
    def password(self) -> str | None:
        """The password as written (percent-encoded); None when the URL has no ``:`` in
        its user information."""
        userinfo = self.userinfo
        return None if userinfo is None or ":" not in userinfo else userinfo.partition(":")[2]

    def hosts(self) -> list[Host]:
        """The hosts of the authority, in order (none for an empty one)."""
        if not self.hostlist:
            return []
        found = []
        for text in self.hostlist.split(","):
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
    match = _SCHEME.match(text)
    if match is None:
        return UrlText(path=text)
    rest = text[match.end() :]
    authority = rest.startswith("//")
    netloc = ""
    if authority:
        rest = rest[2:]
        end = next((i for i, char in enumerate(rest) if char in "/?#"), len(rest))
        netloc, rest = rest[:end], rest[end:]
    before_fragment, _, fragment = rest.partition("#")
    path, _, query = before_fragment.partition("?")
    userinfo, at, hostlist = netloc.rpartition("@")
    last_at = rest.rfind("@")
    ambiguous = bool(netloc) and (
        netloc.count("@") > 1 or ("@" in rest and ":" in f"{netloc}{rest[:last_at]}")
    )
    return UrlText(
        scheme=match.group(1),
        authority=authority,
        userinfo=userinfo if at else None,
        hostlist=hostlist,
        path=path,
        query=query,
        fragment=fragment,
        ambiguous=ambiguous,
    )


def _ipv6(name: str) -> bool:
    import ipaddress

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
