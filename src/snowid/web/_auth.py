"""Optional bearer-token authentication for issuing ids (and, if asked, for /metrics).

The tokens live in a file (``--auth-token-file``): one per line, surrounding white space
trimmed, blank lines and lines starting with ``#`` ignored. The file is checked for a
change at most once a second and re-read when it changed, so tokens can be added and
revoked without a restart. A file that becomes unreadable or empty while serving
refuses every token (failing closed: emptying the file revokes them all); at startup it
is an error. Tokens are compared in constant time and never logged.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import time
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response

from snowid._exceptions import detached
from snowid.i18n import detect_lang, translate
from snowid.web._errors import error_response
from snowid.web._exceptions import AuthTokenFileEmptyError, AuthTokenFileError
from snowid.web._lang import negotiate

__all__ = ["CHECK_INTERVAL_S", "TokenFile", "read_tokens"]

LOGGER = logging.getLogger("snowid.serve")
CHECK_INTERVAL_S = 1.0


def _digest(token: bytes) -> bytes:
    # Comparing fixed-length digests keeps even a token's length from timing.
    return hashlib.sha256(token).digest()


@detached()
def read_tokens(path: str) -> tuple[bytes, ...]:
    """The digests of the tokens in ``path``; AuthTokenFileError if unreadable or empty.

    Read as bytes: a token is compared byte for byte with what the client sends."""
    try:
        with open(path, "rb") as file:
            lines = file.read().splitlines()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise AuthTokenFileError(
            value=path, reason=reason, driver_class=type(error).__name__
        ) from None
    tokens = [line.strip() for line in lines]
    digests = tuple(_digest(token) for token in tokens if token and not token.startswith(b"#"))
    if not digests:
        raise AuthTokenFileEmptyError(value=path)
    return digests


def _stamp(path: str) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class TokenFile:
    """The accepted tokens, kept in step with the file. Raises at construction if unusable."""

    def __init__(self, path: str, *, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.path = path
        self._monotonic = monotonic
        self._stamp = _stamp(path)
        self._digests = read_tokens(path)
        self._checked = monotonic()

    def _current(self) -> tuple[bytes, ...]:
        now = self._monotonic()
        if now - self._checked < CHECK_INTERVAL_S:
            return self._digests
        self._checked = now
        stamp = _stamp(self.path)
        if stamp is not None and stamp == self._stamp:
            return self._digests
        self._stamp = stamp
        try:
            self._digests = read_tokens(self.path)
        except AuthTokenFileError as error:
            self._digests = ()
            lang = detect_lang()
            message = error.message(lang)
            LOGGER.warning(translate("web.auth.unusable", lang, pid=os.getpid(), message=message))
        else:
            count = len(self._digests)
            LOGGER.info(
                translate(
                    "web.auth.reread", detect_lang(), pid=os.getpid(), path=self.path, count=count
                )
            )
        return self._digests

    def accepts(self, authorization: str | None) -> bool:
        """Whether an ``Authorization`` header value carries one of the tokens."""
        if authorization is None:
            return False
        scheme, _, credentials = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not credentials.strip():
            return False
        # Starlette decodes header bytes as latin-1: encoding back gives the bytes sent.
        given = _digest(credentials.strip().encode("latin-1"))
        found = False
        for digest in self._current():  # every one, so the time says nothing about which
            found |= hmac.compare_digest(given, digest)
        return found

    def refuse(self, request: Request) -> Response | None:
        """None when ``request`` may pass; else the 401 answer (localized JSON error)."""
        header = request.headers.get("authorization")
        if self.accepts(header):
            return None
        lang = negotiate(request)
        if header is None:
            code, challenge = "auth_required", 'Bearer realm="snowid"'
            message = translate("web.error.auth_required", lang)
        else:
            code, challenge = "auth_invalid", 'Bearer realm="snowid", error="invalid_token"'
            message = translate("web.error.auth_invalid", lang)
        return error_response(401, code, message, {"WWW-Authenticate": challenge})
