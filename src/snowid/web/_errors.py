"""One error shape for the whole service: ``{"error": {"code": …, "message": …}}``.

Status scheme (documented in /openapi.json):

- 400: the input is not a number at all (``not_an_integer``, ``empty_value``), or a
  query parameter is given more than once (``duplicate_parameter``);
- 422: a well-formed number outside its range, or not a Twitter-layout id
  (``out_of_range`` and its timestamp variants, ``id_negative``, ``id_too_large``,
  ``id_sign_bit_set``), however many digits it has (``number_too_long``: past 4,000
  digits it is refused unconverted, but it is out of range all the same);
- 404 / 405: no such route / method;
- 503: the generator cannot safely issue (lease not held or lost, clock behind); a
  lease or store failure (or an unusable lease URL) is told to the client only by its
  code and a generic message: where the store is (host, user, database) is nobody's
  business but the operator's, whose server log gets the detail (redacted);
- 500 never for anything a client sends.
"""

from __future__ import annotations

import json
import logging
import time

from starlette.responses import Response

from snowid._exceptions import (
    GeneratorError,
    InvalidIdError,
    InvalidLeaseUrlError,
    LeaseError,
    NumberTooLongError,
    OutOfRangeError,
    SnowIdError,
)
from snowid.i18n import translate
from snowid.web._forms import localized_message

__all__ = ["error_response", "json_response", "snowid_error_response", "status_for"]

LOGGER = logging.getLogger("snowid.serve")
_LOG_EVERY_S = 10.0  # one line per code per 10 s: a 503 storm does not flood the log
_last_logged: dict[str, float] = {}


def status_for(error: SnowIdError) -> int:
    # A bad lease URL reaches the service only from its own configuration: not the
    # client's fault, so it is "unavailable", not a 400.
    if isinstance(error, GeneratorError | LeaseError | InvalidLeaseUrlError):
        return 503
    if isinstance(error, OutOfRangeError | InvalidIdError | NumberTooLongError):
        return 422
    return 400


def json_response(
    value: object, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    """Every JSON answer of the service (UTF-8 text as is, not ``\\u`` escapes)."""
    body = json.dumps(value, ensure_ascii=False)
    return Response(body, status, headers=headers, media_type="application/json")


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> Response:
    return json_response({"error": {"code": code, "message": message}}, status, headers)


def snowid_error_response(error: SnowIdError, lang: str) -> Response:
    status = status_for(error)
    headers = {"Retry-After": "1"} if status == 503 else None
    if isinstance(error, LeaseError | InvalidLeaseUrlError):
        _log_detail(error)
        message = translate("web.error.unavailable", lang)
    else:
        message = localized_message(error, lang)
    return error_response(status, error.code, message, headers)


def _log_detail(error: SnowIdError) -> None:
    """The full message for the operator (lease URLs in it are already redacted)."""
    now = time.monotonic()
    if now - _last_logged.get(error.code, -_LOG_EVERY_S) >= _LOG_EVERY_S:
        _last_logged[error.code] = now
        LOGGER.warning("snowid serve: cannot issue ids (%s): %s", error.code, error)
