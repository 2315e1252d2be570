"""What both clients send and how they read the answer: the part of HTTP they share.

``POST {prefix}/api/ids?count=N`` with an optional bearer token; the answer is
``{"ids": ["…", …]}`` (decimal strings, increasing) or the service's error JSON. The
retry rule lives here too, so the sync and the asyncio client cannot drift apart.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import urlsplit

from snowid._exceptions import OutOfRangeError
from snowid._version import __version__
from snowid.client._exceptions import (
    InvalidServiceUrlError,
    InvalidTokenError,
    ServiceAnswerError,
    ServiceAuthError,
    ServiceRefusedError,
    ServiceUnavailableError,
)
from snowid.ids import TWITTER, to_int

__all__ = [
    "MAX_AGE_MS",
    "MAX_BATCH",
    "MAX_RETRIES",
    "MAX_TIMEOUT_S",
    "RETRIED_STATUSES",
    "Endpoint",
    "check_max_age",
    "check_settings",
    "endpoint",
    "pause_s",
    "read_ids",
    "refusal",
]

MAX_BATCH = 1_000_000
"""The most ``snowid serve --max-count`` allows; the server's own limit (4,096 by default)
is checked by the server, whose 422 names it."""
MAX_RETRIES = 10
MAX_AGE_MS = 60_000
"""The longest ``max_age_ms`` a client takes (a minute: past that, leave it unset)."""
MAX_TIMEOUT_S = 600
RETRIED_STATUSES = frozenset({502, 503, 504})
"""Answers that issued nothing and may pass: no identity held, a store down, a proxy's."""

_PREFIX = b'{"ids":["'
_SUFFIX = b'"]}'
_SEPARATOR = b'","'
_DIGITS_QUOTES_COMMAS = b'0123456789",'
_FIRST_PAUSE_S = 0.05
_LONGEST_PAUSE_S = 2.0


@dataclass(frozen=True, slots=True)
class Endpoint:
    """Where POST /api/ids is: ``url`` is the base URL as given (for messages)."""

    url: str
    tls: bool
    host: str
    port: int
    target: str  # path and query of one request
    headers: tuple[tuple[str, str], ...]

    def target_for(self, count: int) -> str:
        """``target`` asking for ``count`` ids instead (a client whose batches adapt)."""
        return f"{self.target.rpartition('=')[0]}={count}"

    def request_bytes(self, target: str | None = None) -> bytes:
        """The whole request (for ``target``, else the usual one), as the asyncio client
        writes it."""
        lines = [f"POST {target or self.target} HTTP/1.1", *(f"{k}: {v}" for k, v in self.headers)]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def check_settings(batch: object, timeout: object, retries: object) -> tuple[int, float, int]:
    """``batch`` 1..MAX_BATCH ids, ``timeout`` seconds above 0, ``retries`` 0..MAX_RETRIES."""
    count = to_int("batch", batch)
    if not 1 <= count <= MAX_BATCH:
        raise OutOfRangeError(field="batch", value=count, min=1, max=MAX_BATCH)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        seconds = float(to_int("timeout", timeout))  # "5" is read; "abc" is refused by name
    else:
        seconds = float(timeout)
    if not 0 < seconds <= MAX_TIMEOUT_S:  # NaN fails this too
        raise OutOfRangeError(field="timeout", value=timeout, min=0, max=MAX_TIMEOUT_S)
    tries = to_int("retries", retries)
    if not 0 <= tries <= MAX_RETRIES:
        raise OutOfRangeError(field="retries", value=tries, min=0, max=MAX_RETRIES)
    return count, seconds, tries


def _check_token(token: str) -> str:
    if not token or not token.isascii() or not token.isprintable() or " " in token:
        raise InvalidTokenError()
    return token


def check_max_age(max_age_ms: object) -> int | None:
    """``max_age_ms``: None, or whole milliseconds 1..MAX_AGE_MS."""
    if max_age_ms is None:
        return None
    ms = to_int("max_age_ms", max_age_ms)
    if not 1 <= ms <= MAX_AGE_MS:
        raise OutOfRangeError(field="max_age_ms", value=ms, min=1, max=MAX_AGE_MS)
    return ms


def endpoint(url: str, token: str | None, batch: int) -> Endpoint:
    """The service at ``url`` (``http://host:port`` or ``https://…``, a path prefix allowed)."""
    text = url.strip() if isinstance(url, str) else url
    if not isinstance(text, str) or not text:
        raise InvalidServiceUrlError(value=str(url), reason="host")
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https"):
        raise InvalidServiceUrlError(value=text, reason="scheme")
    if parts.username is not None or parts.password is not None:
        raise InvalidServiceUrlError(value="…@" + text.rpartition("@")[2], reason="userinfo")
    if parts.query or parts.fragment:
        raise InvalidServiceUrlError(value=text, reason="extra")
    try:
        port = parts.port
    except ValueError:
        raise InvalidServiceUrlError(value=text, reason="port") from None
    host = parts.hostname
    if not host:
        raise InvalidServiceUrlError(value=text, reason="host")
    tls = parts.scheme == "https"
    port = port if port is not None else (443 if tls else 80)
    netloc = f"[{host}]" if ":" in host else host
    headers = [
        ("Host", f"{netloc}:{port}"),
        ("User-Agent", f"snowid/{__version__}"),
        ("Accept", "application/json"),
        ("Content-Length", "0"),
    ]
    if token is not None:
        headers.append(("Authorization", f"Bearer {_check_token(token)}"))
    target = f"{parts.path.rstrip('/')}/api/ids?count={batch}"
    return Endpoint(text.rstrip("/"), tls, host, port, target, tuple(headers))


def read_ids(body: bytes, count: int, url: str) -> list[int]:
    """The ``count`` ids of a 200 answer; ServiceAnswerError unless it is exactly that."""
    if body.startswith(_PREFIX) and body.endswith(_SUFFIX):
        inner = body[len(_PREFIX) : -len(_SUFFIX)]  # the service's own compact form, fast
        if inner.translate(None, _DIGITS_QUOTES_COMMAS):  # a sign, a space, a "_" …
            raise ServiceAnswerError(url=url, reason="id", detail=_shorten(body))
        try:  # each piece is now ASCII digits, or holds a quote or a comma, or is empty
            ids = list(map(int, inner.split(_SEPARATOR)))
        except ValueError:
            raise ServiceAnswerError(url=url, reason="id", detail=_shorten(body)) from None
    else:
        ids = _read_json(body, url)
    if len(ids) != count:
        raise ServiceAnswerError(url=url, reason="count", detail=str(len(ids)), count=count)
    if max(ids) > TWITTER.max_id:
        raise ServiceAnswerError(url=url, reason="id", detail=str(max(ids)))
    return ids


def _read_json(body: bytes, url: str) -> list[int]:
    """Any other JSON spelling of ``{"ids": [...]}``: strings of ASCII digits only."""
    try:
        document = json.loads(body)
    except ValueError:
        raise ServiceAnswerError(url=url, reason="json", detail=_shorten(body)) from None
    values = document.get("ids") if isinstance(document, dict) else None
    if not isinstance(values, list):
        raise ServiceAnswerError(url=url, reason="json", detail=_shorten(body))
    for value in values:
        if not (isinstance(value, str) and value.isascii() and value.isdigit()):
            raise ServiceAnswerError(url=url, reason="id", detail=repr(value)[:80])
    return [int(value) for value in values]


def refusal(status: int, body: bytes, url: str, attempts: int) -> ServiceRefusedError:
    """The error for a non-200 answer, with the service's code and message when it sent them."""
    code = message = ""
    try:
        error = json.loads(body)["error"]
        code, message = str(error["code"]), str(error["message"])
    except (ValueError, LookupError, TypeError):
        pass
    if status == 401:
        return ServiceAuthError(url=url, status=status, service_code=code, service_message=message)
    if status in RETRIED_STATUSES:
        return ServiceUnavailableError(
            url=url, status=status, service_code=code, service_message=message, attempts=attempts
        )
    return ServiceRefusedError(url=url, status=status, service_code=code, service_message=message)


def pause_s(attempt: int, retry_after: str | None) -> float:
    """How long to wait before try ``attempt + 1``: doubling from 50 ms, or the server's
    Retry-After (seconds) when it is longer; never above 2 s."""
    pause = _FIRST_PAUSE_S * 2.0**attempt
    if retry_after is not None and retry_after.strip().isdigit():
        pause = max(pause, float(retry_after.strip()))
    return min(pause, _LONGEST_PAUSE_S)


def _shorten(body: bytes) -> str:
    text = body[:60].decode("utf-8", "replace")
    return text + "…" if len(body) > 60 else text
