"""One error shape for the whole service: ``{"error": {"code": …, "message": …}}``.

Status scheme (documented in /openapi.json):

- 400: the input is not a number at all (``not_an_integer``, ``empty_value``), or a
  query parameter is given more than once (``duplicate_parameter``);
- 422: a well-formed number outside its range, or not a Twitter-layout id
  (``out_of_range`` and its timestamp variants, ``id_negative``, ``id_too_large``,
  ``id_sign_bit_set``), however many digits it has (``number_too_long``: past 4,000
  digits it is refused unconverted, but it is out of range all the same);
- 404 / 405: no such route / method;
- 503: the generator cannot safely issue (lease not held or lost, clock behind);
- 500 never for anything a client sends.
"""

from __future__ import annotations

import json

from starlette.responses import Response

from snowid.errors import (
    GeneratorError,
    InvalidIdError,
    LeaseError,
    NumberTooLongError,
    OutOfRangeError,
    SnowIdError,
)
from snowid.web._forms import localized_message

__all__ = ["error_response", "snowid_error_response", "status_for"]


def status_for(error: SnowIdError) -> int:
    if isinstance(error, GeneratorError | LeaseError):
        return 503
    if isinstance(error, OutOfRangeError | InvalidIdError | NumberTooLongError):
        return 422
    return 400


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> Response:
    body = json.dumps({"error": {"code": code, "message": message}}, ensure_ascii=False)
    return Response(body, status, headers=headers, media_type="application/json")


def snowid_error_response(error: SnowIdError, lang: str) -> Response:
    status = status_for(error)
    headers = {"Retry-After": "1"} if status == 503 else None
    return error_response(status, error.code, localized_message(error, lang), headers)
