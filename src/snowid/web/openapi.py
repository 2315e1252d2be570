"""The hand-written OpenAPI 3.1 document served at /openapi.json."""

from __future__ import annotations

from typing import Any

from snowid import TWITTER, __version__
from snowid.i18n import LANGS
from snowid.web._layout_schemas import json_response
from snowid.web._layout_schemas import paths as layout_paths
from snowid.web._layout_schemas import schemas as layout_schemas

__all__ = ["document"]

_DECIMAL_STRING = {"type": "string", "pattern": "^[0-9]{1,19}$"}
_ID_STRING = {
    **_DECIMAL_STRING,
    "description": "A Snowflake id in decimal, as a string (JavaScript numbers lose precision).",
    "examples": ["4194439168"],
}


def _error_response(description: str) -> dict[str, Any]:
    return json_response(description, "Error")


def _int_param(
    name: str,
    minimum: int,
    maximum: int,
    description: str,
    *,
    required: bool = False,
    blank_allowed: bool = False,
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "minimum": minimum, "maximum": maximum}
    if blank_allowed:  # "" or white space: the default (now, or 0)
        schema = {"anyOf": [schema, {"type": "string", "pattern": "^\\s*$"}]}
    return {
        "name": name,
        "in": "query",
        "required": required,
        "description": (
            f"{description} A whole number in decimal, {minimum}..{maximum}; anything else"
            " is answered with 400 (not a number, empty) or 422 (out of range)."
        ),
        "schema": schema,
    }


def document(
    max_count: int = 4096, *, auth: bool = False, auth_metrics: bool = False
) -> dict[str, Any]:
    """The document of a service; ``auth``/``auth_metrics``: a bearer token is required on
    POST /api/ids / on GET /metrics (``snowid serve --auth-token-file``, ``--auth-metrics``)."""
    doc = _document(max_count)
    guarded = [("/api/ids", "post")] if auth else []
    if auth_metrics:
        guarded.append(("/metrics", "get"))
    if guarded:
        doc["components"]["securitySchemes"] = {
            "bearer": {
                "type": "http",
                "scheme": "bearer",
                "description": "One of the tokens in the server's --auth-token-file.",
            }
        }
    for path, method in guarded:
        operation = doc["paths"][path][method]
        operation["security"] = [{"bearer": []}]
        operation["responses"]["401"] = _error_response(
            "No bearer token (auth_required) or one the server does not accept"
            " (auth_invalid); the WWW-Authenticate header names the Bearer scheme."
        )
    return doc


def _document(max_count: int) -> dict[str, Any]:
    errors = {
        "400": _error_response(
            "The input is not a whole number (code not_an_integer) or is empty (empty_value),"
            " or a query parameter is given more than once (duplicate_parameter), or is not"
            " one the route reads, or a form body's field or a JSON body's member is sent"
            " (unknown_parameter: every"
            " route takes only its own parameters and lang, in the query); an unknown"
            " layout (invalid_layout), hex that is not hex (invalid_encoding), a time that is"
            " neither Unix ms nor a date and time (invalid_datetime); pasted text holding no"
            " id (not_an_id_or_link, instagram_share_link) or a layout that contradicts the"
            " pasted link (layout_conflict)."
        ),
        "422": _error_response(
            "A whole number outside its range (out_of_range, timestamp_before_epoch,"
            " timestamp_after_end, number_too_long for thousands of digits) or not an id of"
            " the layout (id_negative, id_too_large, id_sign_bit_set)."
        ),
    }
    breakdown_ok = json_response(
        "The id and its breakdown, as printed by `snowid compose --json`.", "Breakdown"
    )
    lang_param = {
        "name": "lang",
        "in": "query",
        "required": False,
        "description": "Language of error messages: en or vi. Any other value is ignored:"
        " then the snowid_lang cookie, then Accept-Language, then English decide.",
        "schema": {"type": "string", "examples": list(LANGS)},
    }
    schemas = _schemas()
    schemas |= layout_schemas(schemas["Breakdown"])
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "snowid",
            "version": __version__,
            "summary": "Twitter Snowflake ids: compose, decode and issue.",
            "description": (
                "Every 64-bit value (an id, a step's result) is a decimal string, since"
                " JavaScript numbers lose precision past 2^53; small fields (timestamp in ms,"
                " datacenter, machine, sequence) are numbers."
                ' Errors are {"error": {"code", "message"}}:'
                " 400 when an input is not a number or a query parameter is given more than"
                " once or is unknown to the route, 422 when it is a number out of range or"
                " not a Twitter-layout id, 404 for an unknown route, 405 for a wrong method,"
                " 503 when the generator cannot safely issue (no lease held, lease lost, clock"
                " behind). A client's input never causes a 500."
            ),
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "paths": {
            "/api/compose": {
                "get": {
                    "operationId": "compose",
                    "summary": "Build one id from its four fields.",
                    "parameters": [
                        _int_param(
                            "timestamp",
                            TWITTER.epoch_ms,
                            TWITTER.max_timestamp,
                            "Unix time in milliseconds; blank or absent means now.",
                            blank_allowed=True,
                        ),
                        _int_param(
                            "datacenter", 0, TWITTER.max_datacenter, "Datacenter id.", required=True
                        ),
                        _int_param("machine", 0, TWITTER.max_machine, "Machine id.", required=True),
                        _int_param(
                            "sequence",
                            0,
                            TWITTER.max_sequence,
                            "Sequence; blank or absent means 0.",
                            blank_allowed=True,
                        ),
                        lang_param,
                    ],
                    "responses": {"200": breakdown_ok, **errors},
                }
            },
            **layout_paths(errors, lang_param),
            "/api/ids": {
                "post": {
                    "operationId": "issueIds",
                    "summary": "Issue fresh ids from this server's generator.",
                    "parameters": [
                        {
                            "name": "count",
                            "in": "query",
                            "required": False,
                            "description": f"How many ids, 1..{max_count}; absent means 1.",
                            "schema": {"type": "integer", "minimum": 1, "maximum": max_count},
                        },
                        lang_param,
                    ],
                    "responses": {
                        "200": json_response("Fresh ids, increasing, never issued before.", "Ids"),
                        **errors,
                        "503": _error_response(
                            "The generator cannot safely issue now; retry after the"
                            " Retry-After seconds."
                        ),
                    },
                }
            },
            "/healthz": {
                "get": {
                    "operationId": "health",
                    "summary": "Liveness; also says whether an identity is held.",
                    "responses": {"200": json_response("The process is up.", "Health")},
                }
            },
            "/readyz": {
                "get": {
                    "operationId": "ready",
                    "summary": "Readiness: 200 while a lease is held and the process is not stopping,"
                    " else 503.",
                    "responses": {
                        "200": json_response("Ready.", "Ready"),
                        "503": json_response(
                            "No identity held, or the process is draining.", "Ready"
                        ),
                    },
                }
            },
            "/metrics": {
                "get": {
                    "operationId": "metrics",
                    "summary": "Counters and gauges in the Prometheus text format.",
                    "responses": {
                        "200": {
                            "description": "Prometheus text format 0.0.4.",
                            "content": {"text/plain": {"schema": {"type": "string"}}},
                        }
                    },
                }
            },
        },
        "components": {"schemas": schemas},
    }


def _schemas() -> dict[str, Any]:
    def count(minimum: int, maximum: int) -> dict[str, Any]:
        return {"type": "integer", "minimum": minimum, "maximum": maximum}

    return {
        "Error": {
            "type": "object",
            "required": ["error"],
            "additionalProperties": False,
            "properties": {
                "error": {
                    "type": "object",
                    "required": ["code", "message"],
                    "additionalProperties": False,
                    "properties": {
                        "code": {"type": "string", "pattern": "^[a-z_]+$"},
                        "message": {"type": "string", "minLength": 1},
                    },
                }
            },
        },
        "Ids": {
            "type": "object",
            "required": ["ids"],
            "additionalProperties": False,
            "properties": {"ids": {"type": "array", "minItems": 1, "items": _ID_STRING}},
        },
        "Breakdown": {
            "type": "object",
            "required": [
                "id",
                "timestamp",
                "datacenter",
                "machine",
                "sequence",
                "worker",
                "datetime",
                "hex",
                "binary",
                "segments",
                "steps",
            ],
            "additionalProperties": False,
            "properties": {
                "id": _ID_STRING,
                "timestamp": count(TWITTER.epoch_ms, TWITTER.max_timestamp),
                "datacenter": count(0, TWITTER.max_datacenter),
                "machine": count(0, TWITTER.max_machine),
                "sequence": count(0, TWITTER.max_sequence),
                "worker": count(0, TWITTER.max_worker),
                "datetime": {"type": "string", "description": "ISO 8601 in UTC, with ms."},
                "hex": {"type": "string", "pattern": "^[0-9a-f]{16}$"},
                "binary": {"type": "string", "pattern": "^[01]{64}$"},
                "segments": {
                    "type": "array",
                    "minItems": 5,
                    "maxItems": 5,
                    "items": {
                        "type": "object",
                        "required": ["name", "high_bit", "low_bit", "width", "value", "bits"],
                        "additionalProperties": False,
                        "properties": {
                            "name": {
                                "enum": ["sign", "timestamp", "datacenter", "machine", "sequence"]
                            },
                            "high_bit": count(0, 63),
                            "low_bit": count(0, 63),
                            "width": count(1, 64),
                            "value": {"type": "integer", "minimum": 0},
                            "bits": {"type": "string", "pattern": "^[01]+$"},
                        },
                    },
                },
                "steps": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["key", "expression", "result"],
                        "additionalProperties": False,
                        "properties": {
                            "key": {
                                "enum": [
                                    "delta",
                                    "timestamp",
                                    "datacenter",
                                    "machine",
                                    "sequence",
                                    "combine",
                                ]
                            },
                            "expression": {"type": "string"},
                            "result": {
                                **_DECIMAL_STRING,
                                "description": (
                                    "The step's value in decimal, as a string: it can pass"
                                    " 2^53, where JavaScript numbers lose precision."
                                ),
                            },
                        },
                    },
                },
            },
        },
        "Health": {
            "type": "object",
            "required": ["status", "ready", "lease"],
            "properties": {
                "status": {"const": "ok"},
                "ready": {"type": "boolean"},
                "lease": {"type": "string"},
            },
        },
        "Ready": {
            "type": "object",
            "required": ["ready", "lease"],
            "properties": {
                "ready": {"type": "boolean"},
                "draining": {"type": "boolean"},
                "lease": {"type": "string"},
                "datacenter": {"type": ["integer", "null"]},
                "machine": {"type": ["integer", "null"]},
                "ceiling_ms": {"type": ["integer", "null"]},
            },
        },
    }
