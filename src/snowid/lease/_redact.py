"""What may be shown of a lease URL or a libpq connection string: never a secret.

One place decides it for every output (messages, logs, metrics, HTTP answers), from the
pieces ``_urltext`` reads (never failing: URLs the strict reader refuses included).
:func:`redact` gives the display form: the scheme, the hosts with their ports and the
database (or directory), never the user, the password, the query or the fragment (of a
libpq string: ``host``, ``hostaddr``, ``port``, ``dbname``); after the scheme of an
ambiguous URL (a password holding a raw ``/ ? # @``), nothing. :func:`scrub` cleans
another library's message about a URL: every secret cut out, every quoted token that is
not a known name masked (libpq quotes what it could not read: a piece of the password?).
:func:`hide` drops a piece of the URL holding a secret; :func:`secret_tail` names the
options that may be the rest of one. ``url_kind`` (``_registry``) gives only the kind.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote, unquote_plus

from snowid.lease._urltext import UrlText, conninfo, split_url

__all__ = ["MASK", "driver_detail", "hide", "redact", "scrub", "secret_tail", "secrets_in"]

MASK = "…"
"""What stands where something was hidden."""

_SECRET_KEY = re.compile(r"pass|pwd|secret|token|key|cred|auth", re.IGNORECASE)
_SECRET_PAIR = re.compile(rf"(?i:{_SECRET_KEY.pattern})\w*\s*=\s*(.*)")
_SHOWN_CONNINFO_KEYS = ("host", "hostaddr", "port", "dbname")
_NAME_KEYS = (*_SHOWN_CONNINFO_KEYS, "user")  # what a library may quote back: not secret
_QUOTED = re.compile(r""""([^"]*)"|'([^']*)'""")  # libpq quotes "so", psycopg 'so'
_MIN_SCRUB = 3  # shorter secrets are only removed inside quotes: "a" must not eat every a


def redact(text: str) -> str:
    """The display form of a lease URL or libpq connection string (see the module doc).

    ``postgresql://u:pw@h:5432/db?password=x`` -> ``postgresql://h:5432/db``;
    ``host=h password=x dbname=d`` -> ``host=h dbname=d``; text that is neither -> ``…``.
    """
    text = text.strip()
    url = split_url(text)
    if not url.scheme:
        pairs = conninfo(text)
        return "" if not text else MASK if pairs is None else _conninfo_display(pairs)
    if not url.authority:
        # file:/dir shows its directory; any other scheme without // shows nothing
        # more ("user:hunter2" pasted by mistake reads as a scheme and a path).
        return f"{url.scheme}:{url.path if url.scheme.lower() == 'file' else ''}"
    return f"{url.scheme}://{MASK if url.ambiguous else url.hostlist + url.path}"


def _conninfo_display(pairs: list[tuple[str, str]]) -> str:
    shown = []
    for key, value in pairs:
        if key not in _SHOWN_CONNINFO_KEYS:
            continue
        if "=" in value or (key == "dbname" and split_url(value).scheme):
            continue  # "port= password=x" (the port is "password=x"); a dbname libpq expands
        if not value or any(char.isspace() or char in "'\\" for char in value):
            shown.append(f"{key}='" + value.replace("\\", "\\\\").replace("'", "\\'") + "'")
        else:
            shown.append(f"{key}={value}")
    return " ".join(shown) or MASK


# --- the secrets -----------------------------------------------------------------------


def secrets_in(text: str) -> list[str]:
    """Every secret in a URL or connection string, as written and percent-decoded,
    longest first (so a longer one is cut out before a piece of it)."""
    text = text.strip()
    url = split_url(text)
    found = _url_secrets(url, text) if url.scheme else _conninfo_secrets(text)
    variants = {form for raw in found for form in (raw, unquote(raw), unquote_plus(raw))}
    variants.discard("")
    return sorted(variants, key=len, reverse=True)


def _url_secrets(url: UrlText, raw: str) -> list[str]:
    found: list[str] = []
    if url.ambiguous:
        # Everything between "//" and the last "@" may belong to the password.
        found.append(raw[raw.find("//") + 2 : raw.rfind("@")])
    elif url.password is not None:
        found.append(url.password)
    # The query as libpq reads it too: from the first "?" on.
    for query in {url.query, raw.partition("?")[2]}:
        pieces = query.split("&")
        for index, piece in enumerate(pieces):
            key, eq, value = piece.partition("=")
            if eq and _SECRET_KEY.search(unquote_plus(key)):
                # and all that follows, in case a raw "&" or "#" was part of the value
                found += [value, "&".join([value, *pieces[index + 1 :]])]
    return found


def _conninfo_secrets(text: str) -> list[str]:
    pairs = conninfo(text)
    if pairs is None:  # not readable as a whole: all after a secret-named key may be its value
        return [m.group(1) for m in _SECRET_PAIR.finditer(text)]
    # and "port= password=x" gives the port the value "password=x": a secret all the same
    inner = [m.group(1) for _, value in pairs for m in _SECRET_PAIR.finditer(value)]
    return [*(value for key, value in pairs if _SECRET_KEY.search(key)), *inner]


def secret_tail(text: str) -> set[str]:
    """The query options of the URL ``text`` that stand after a secret-named one
    (``password=``, ``sslkey=`` …; not a file's path, ``passfile=``): each may be the
    rest of its value, split off by a raw ``&``, so none is ever named in a message."""
    pairs = split_url(text.strip()).pairs()
    return {key for key, _ in pairs[_first_secret(pairs) + 1 :]}


def _first_secret(pairs: list[tuple[str, str]]) -> int:
    """The index of the first secret-named pair (a file's path is none); len(pairs) if none."""
    secret = (
        i for i, (key, _) in enumerate(pairs) if _SECRET_KEY.search(key) and key[-4:] != "file"
    )
    return next(secret, len(pairs))


def hide(text: str, source: str) -> str:
    """``text`` (a piece taken from ``source``) or MASK if any secret of ``source`` is
    in it, or it is in a secret."""
    if not text:
        return text
    for secret in secrets_in(source):
        if secret in text or text in secret:
            return MASK
    return text


# --- another library's message about the URL ----------------------------------------------


def _named_tokens(source: str) -> set[str]:
    """Names a library may quote back: hosts, ports, user, database, and the Unix socket
    paths made of them (the caller takes out any that is a secret too)."""
    source = source.strip()
    url = split_url(source)
    safe: set[str] = set()
    pairs = [] if url.scheme else (conninfo(source) or [])
    if url.scheme and not url.ambiguous:
        safe.add(unquote(url.user or ""))
        for host in url.hosts():
            safe.update({unquote(host.name), host.port})
        safe.add(unquote(url.path.lstrip("/")))
        pairs = url.pairs()  # not after a password: "password=a&host=b" may be one password
        pairs = pairs[: _first_secret(pairs)]
    for key, value in pairs:
        if key in _NAME_KEYS:
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
