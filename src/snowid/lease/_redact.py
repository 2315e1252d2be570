"""What may be shown of a lease URL or a libpq connection string: never a secret.

One place decides it, for every output (CLI messages, error messages, logs, metrics,
HTTP answers):

- :func:`redact` gives the display form: the scheme, the host(s) with their ports and
  the database (or directory); never the user, the password, the query or the
  fragment. For a libpq ``key=value`` string, only ``host``, ``hostaddr``, ``port``
  and ``dbname``.
- ``url_kind`` (in ``_registry``, beside the schemes it reads) gives only the kind
  (``postgresql``, ``file``, ``static``), for places that say nothing about where the
  store is (metrics labels).
- :func:`scrub` cleans a message another library wrote about a URL (a psycopg error):
  every secret of the URL is cut out, and so is every quoted token that is not a
  known host, port, user or database name (libpq quotes the token it could not read,
  which may be a piece of the password).
- :func:`hide` drops a piece of text taken from the URL if any secret is inside it.
- :func:`hides_raw_password` spots a URL whose user-information cannot be split off
  reliably (a password holding a raw ``/ ? # @``): the lease parser refuses those,
  and :func:`redact` shows nothing after their scheme.

Everything here works on the text, never on a parse that may fail. Stdlib only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote, unquote_plus

__all__ = ["MASK", "driver_detail", "hide", "hides_raw_password", "redact", "scrub", "secrets_in"]

MASK = "…"
"""What stands where something was hidden."""

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]{0,30}):")
_SECRET_KEY = re.compile(r"pass|pwd|secret|token|key|cred|auth", re.IGNORECASE)
_SAFE_CONNINFO_KEYS = ("host", "hostaddr", "port", "dbname")
_QUOTED = re.compile(r""""([^"]*)"|'([^']*)'""")  # libpq quotes "so", psycopg 'so'
_MIN_SCRUB = 3  # shorter secrets are only removed inside quotes: "a" must not eat every a


# --- the parts of a URL -------------------------------------------------------------


class _Url:
    """A URL read as text: ``scheme:`` then, with ``//``, an authority; nothing decoded."""

    __slots__ = ("after", "ambiguous", "authority", "hosts", "path", "query", "scheme", "userinfo")

    def __init__(self, scheme: str, rest: str, authority: bool) -> None:
        self.scheme = scheme
        self.authority = authority
        if not authority:
            netloc, after = "", rest
        else:
            end = next((i for i, char in enumerate(rest) if char in "/?#"), len(rest))
            netloc, after = rest[:end], rest[end:]
        self.after = after
        # Ambiguous: more than one "@" in the authority, or an "@" further on while a ":"
        # precedes it - "u:pa/ss@h" may be a password holding "/", and libpq and urllib
        # disagree on where its user-information ends.
        last_at = rest.rfind("@")
        self.ambiguous = (
            authority
            and bool(netloc)
            and (netloc.count("@") > 1 or ("@" in after and ":" in rest[:last_at]))
        )
        userinfo, at, hosts = netloc.rpartition("@")
        self.userinfo: str | None = userinfo if at else None
        self.hosts = hosts
        cut = next((i for i, char in enumerate(after) if char in "?#"), len(after))
        self.path = after[:cut]
        query = after[cut:]
        self.query = query[1:].partition("#")[0] if query.startswith("?") else ""

    def display(self) -> str:
        if not self.authority:
            # file:/dir shows its directory; any other scheme without // shows nothing
            # more ("user:hunter2" pasted by mistake reads as a scheme and a path).
            path = self.path if self.scheme.lower() == "file" else ""
            return f"{self.scheme}:{path}"
        if self.ambiguous:
            return f"{self.scheme}://{MASK}"
        return f"{self.scheme}://{self.hosts}{self.path}"

    def secrets(self, raw: str) -> list[str]:
        found: list[str] = []
        if self.ambiguous:
            # Everything between "//" and the last "@" may belong to the password.
            start = raw.find("//") + 2
            found.append(raw[start : raw.rfind("@")])
        elif self.userinfo is not None and ":" in self.userinfo:
            found.append(self.userinfo.partition(":")[2])
        # The query as libpq reads it too: from the first "?" after the authority on.
        query = self.query
        rest_query = raw.partition("?")[2]
        for text in {query, rest_query}:
            found.extend(_query_secrets(text))
        return found


def _query_secrets(query: str) -> list[str]:
    """Values of secret-named options; and all that follows one, in case a raw "&" or
    "#" was part of the value."""
    found: list[str] = []
    pieces = query.split("&")
    for index, piece in enumerate(pieces):
        key, eq, value = piece.partition("=")
        if eq and _SECRET_KEY.search(unquote_plus(key)):
            found.append(value)
            found.append("&".join([value, *pieces[index + 1 :]]))
    return found


def _parse_url(text: str) -> _Url | None:
    match = _SCHEME.match(text)
    if match is None:
        return None
    rest = text[match.end() :]
    authority = rest.startswith("//")
    return _Url(match.group(1), rest[2:] if authority else rest, authority)


# --- libpq key=value strings -----------------------------------------------------------


def _conninfo(text: str) -> list[tuple[str, str]] | None:
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


def _conninfo_display(pairs: list[tuple[str, str]]) -> str:
    shown = []
    for key, value in pairs:
        if key not in _SAFE_CONNINFO_KEYS:
            continue
        if key == "dbname" and ("=" in value or _SCHEME.match(value)):
            continue  # libpq expands such a dbname as a connection string of its own
        shown.append(f"{key}={_conninfo_quote(value)}")
    return " ".join(shown) or MASK


def _conninfo_quote(value: str) -> str:
    if value and not any(char.isspace() or char in "'\\" for char in value):
        return value
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _conninfo_secrets(text: str) -> list[str]:
    pairs = _conninfo(text)
    if pairs is not None:
        return [value for key, value in pairs if _SECRET_KEY.search(key)]
    # Not readable as a whole: everything after a secret-named key may be its value.
    return [m.group(1) for m in re.finditer(rf"(?i:{_SECRET_KEY.pattern})\w*\s*=\s*(.*)", text)]


# --- the public functions ----------------------------------------------------------------


def redact(text: str) -> str:
    """The display form of a lease URL or libpq connection string (see the module doc).

    ``postgresql://u:pw@h:5432/db?password=x`` -> ``postgresql://h:5432/db``;
    ``host=h password=x dbname=d`` -> ``host=h dbname=d``; text that is neither -> ``…``.
    """
    text = text.strip()
    if not text:
        return ""
    url = _parse_url(text)
    if url is not None:
        return url.display()
    pairs = _conninfo(text)
    return MASK if pairs is None else _conninfo_display(pairs)


def hides_raw_password(text: str) -> bool:
    """Whether the URL's user-information cannot be told apart from what follows it
    (see :class:`_Url`): such a URL is refused, never half-shown."""
    url = _parse_url(text.strip())
    return url is not None and url.ambiguous


def secrets_in(text: str) -> list[str]:
    """Every secret in a URL or connection string, as written and percent-decoded,
    longest first (so a longer one is cut out before a piece of it)."""
    text = text.strip()
    url = _parse_url(text)
    found = url.secrets(text) if url is not None else _conninfo_secrets(text)
    variants = {form for raw in found for form in (raw, unquote(raw), unquote_plus(raw))}
    variants.discard("")
    return sorted(variants, key=len, reverse=True)


def hide(text: str, source: str) -> str:
    """``text`` (a piece taken from ``source``) or MASK if any secret of ``source`` is
    in it, or it is in a secret."""
    if not text:
        return text
    for secret in secrets_in(source):
        if secret in text or text in secret:
            return MASK
    return text


def _named_tokens(source: str) -> set[str]:
    """Names a library may quote back: hosts, ports, user, database, and the Unix socket
    paths made of them (the caller takes out any that is a secret too)."""
    source = source.strip()
    url = _parse_url(source)
    safe: set[str] = set()
    if url is not None and not url.ambiguous:
        if url.userinfo is not None:
            safe.add(unquote(url.userinfo.partition(":")[0]))
        for host in url.hosts.split(","):
            name, port = host, ""
            if host.startswith("["):
                name, _, port = host[1:].partition("]")
                port = port.lstrip(":")
            elif ":" in host:
                name, _, port = host.rpartition(":")
            safe.update({unquote(name), port})
        safe.add(unquote(url.path.lstrip("/")))
        for piece in url.query.split("&"):
            key, _, value = piece.partition("=")
            if key in ("host", "hostaddr", "port", "dbname", "user"):
                safe.update(part for part in unquote_plus(value).split(","))
    else:
        pairs = _conninfo(source) or []
        for key, value in pairs:
            if key in ("host", "hostaddr", "port", "dbname", "user"):
                safe.update(value.split(","))
    safe.discard("")
    ports = [p for p in safe if p.isdigit()] or ["5432"]
    safe.update(f"{host}/.s.PGSQL.{port}" for host in list(safe) for port in ports)
    return safe


def scrub(message: str, source: str, secrets: Iterable[str] = ()) -> str:
    """``message`` (written by another library about ``source``) without any secret of
    ``source`` (or of ``secrets``, when the caller holds them apart, as the Redis lease
    does) and without any quoted token that is not a known name."""
    hidden = {*secrets_in(source), *(form for raw in secrets for form in (raw, unquote(raw)))}
    for secret in sorted(hidden, key=len, reverse=True):
        if len(secret) >= _MIN_SCRUB:
            message = message.replace(secret, MASK)
    safe = _named_tokens(source) - hidden

    def keep_known(match: re.Match[str]) -> str:
        quote, token = match.group(0)[0], match.group(1) or match.group(2) or ""
        return match.group(0) if token in safe else f"{quote}{MASK}{quote}"

    return _QUOTED.sub(keep_known, message)


def driver_detail(
    error: BaseException, source: str, secrets: Iterable[str] = (), message: str | None = None
) -> dict[str, str]:
    """``driver_class`` and ``driver_message`` of ``error`` (raised about ``source``, a
    lease or database URL; ``secrets`` are held apart from it), for a snowid error's
    keyword arguments (``snowid._exceptions.detached`` cuts the exception itself off).
    The message (``str(error)`` unless the caller reads it better, as PyMySQL's
    ``(code, text)`` pair) is scrubbed: no secret of ``source``, no quoted token that is
    not a known name."""
    text = str(error).strip() if message is None else message
    return {
        "driver_class": type(error).__qualname__,
        "driver_message": scrub(text, source, secrets),
    }
