"""The OpenAPI paths and schemas of the layout endpoints (decode, readings, layouts, range).

``openapi.document`` merges these in, and builds its own answers with ``json_response``;
the numbers come from the layouts themselves.
"""

from __future__ import annotations

from typing import Any

from snowid.ids import (
    BEFORE_FIRST_SNOWFLAKE,
    ESTIMATE_BASES,
    IN_THE_FUTURE,
    INSTAGRAM_BIGINT,
    LAYOUTS,
    MAX_EXACT_MS,
)

__all__ = ["json_response", "paths", "schemas"]

_NAMES = [layout.name for layout in LAYOUTS]
_MAX_U64 = 2**64 - 1


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def json_response(description: str, schema: str) -> dict[str, Any]:
    """An answer whose JSON body is the component schema ``schema``."""
    return {"description": description, "content": {"application/json": {"schema": _ref(schema)}}}


def _id_param(stored_form: bool = False) -> dict[str, Any]:
    """The path's number; ``stored_form`` (decode): also Instagram's negative bigint."""
    description = (
        "A number in decimal (0..18446744073709551615) or 0x… hex. Twitter and"
        " Sonyflake ids stop at 9223372036854775807 (bit 63 is their sign bit): a"
        " larger number read in those layouts is answered with 422 id_sign_bit_set."
    )
    if stored_form:
        description += (
            " A negative number (down to -9223372036854775808) is read only in the"
            " instagram layout, as the signed bigint Instagram stores (the answer's"
            " stored); in any other layout it is answered with 422 id_negative."
        )
    return {
        "name": "id",
        "in": "path",
        "required": True,
        "description": description,
        "schema": {
            "anyOf": [
                {
                    "type": "integer",
                    "minimum": -(2**63) if stored_form else 0,
                    "maximum": _MAX_U64,
                },
                {"type": "string", "pattern": "^0[xX][0-9a-fA-F]{1,16}$"},
            ]
        },
    }


def _layout_param() -> dict[str, Any]:
    return {
        "name": "layout",
        "in": "query",
        "required": False,
        "description": "A built-in layout, exactly as listed by /api/layouts; absent means twitter.",
        "schema": {"type": "string", "enum": _NAMES},
    }


def _time_param(name: str, required: bool, default: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": required,
        "description": (
            f"Unix milliseconds or an RFC 3339 date and time{default}. A time before the"
            " layout's epoch or after its last time is cut to the layout, never refused."
        ),
        "schema": {
            "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": MAX_EXACT_MS},
                {"type": "string", "format": "date-time"},
            ]
        },
    }


def _text_param() -> dict[str, Any]:
    return {
        "name": "text",
        "in": "query",
        "required": True,
        "description": (
            "What a person pastes: an id as written (digit groups allowed: 1 288 834 975 657,"
            " 1_288_834_975_657, 1.288.834.975.657; a single . or , group only as the"
            " answer language's thousands mark, vi . and en ,), 0x… hex, a tweet link"
            " (twitter.com, x.com, mobile.twitter.com), a Discord message link or mention"
            " (every id, labelled), a Mastodon status link (https://HOST/@user/ID) or an"
            " Instagram post link (its shortcode is the media id); also fxtwitter,"
            " vxtwitter, fixupx and m.twitter.com links and a tweet's sub-pages, Discord"
            " custom emoji (<:name:ID>) and the CHANNEL-MESSAGE id pair. Anything else is"
            " answered with 400 not_an_id_or_link (its message names the site recognised, if"
            " any); an Instagram share link (instagram.com/share/…, a token, not the post's"
            " code) with 400 instagram_share_link; irregular or ambiguous groups with 400"
            " digit_groups."
        ),
        "schema": {"type": "string", "minLength": 1, "maxLength": 2000},
    }


def paths(errors: dict[str, Any], lang_param: dict[str, Any]) -> dict[str, Any]:
    """The five paths; ``errors`` are the shared 400/422 responses."""
    not_found = {"404": json_response("No route (for example an empty id).", "Error")}
    return {
        "/api/decode": {
            "get": {
                "operationId": "decodeText",
                "summary": "Read pasted text: an id as people write it, or a link holding ids.",
                "description": (
                    "A link or mention is read in the layout it names (a tweet: twitter;"
                    " Discord: discord; Mastodon; Instagram): a ?layout= naming another is"
                    " answered with 400 layout_conflict, naming both. A bare number is read"
                    " in ?layout=, else twitter; layout_from says which. A bare number of 13"
                    " digits from 1000000000000 to 4102444799999 (2001-09-09 to 2099-12-31"
                    " as Unix ms) is still read as an id, and time_hint says it looks like a"
                    " time, with the compose request for an id at that time."
                ),
                "parameters": [_text_param(), _layout_param(), lang_param],
                "responses": {
                    "200": json_response("The ids found, each read in the layout.", "Pasted"),
                    **errors,
                },
            }
        },
        "/api/decode/{id}": {
            "get": {
                "operationId": "decode",
                "summary": "Read one number in a layout (Twitter unless ?layout= says otherwise).",
                "description": (
                    "The Twitter layout's answer also carries every key of the compose"
                    " breakdown (datacenter, machine, sequence, worker, steps)."
                ),
                "parameters": [_id_param(stored_form=True), _layout_param(), lang_param],
                "responses": {
                    "200": json_response("The id, its time, fields and warnings.", "Decoded"),
                    **errors,
                    **not_found,
                },
            }
        },
        "/api/readings/{id}": {
            "get": {
                "operationId": "readings",
                "summary": "The number read in every built-in layout with a plausible time.",
                "parameters": [_id_param(), lang_param],
                "responses": {
                    "200": json_response("Twitter first.", "Readings"),
                    **errors,
                    **not_found,
                },
            }
        },
        "/api/layouts": {
            "get": {
                "operationId": "layouts",
                "summary": "The built-in layouts, with their sources.",
                "parameters": [lang_param],
                "responses": {"200": json_response("Twitter first.", "Layouts"), **errors},
            }
        },
        "/api/range": {
            "get": {
                "operationId": "range",
                "summary": "The lowest and highest id made in a time window (both ends included).",
                "parameters": [
                    _time_param("from", True, ""),
                    _time_param("to", False, "; absent means now"),
                    _layout_param(),
                    lang_param,
                ],
                "responses": {
                    "200": json_response("For WHERE id BETWEEN low AND high.", "Range"),
                    **errors,
                },
            }
        },
    }


def _estimate(number: dict[str, Any], id_string: dict[str, Any]) -> dict[str, Any]:
    """``estimate`` of a tweet id from before Snowflake: when it was posted, from anchors."""
    maybe_ms = {"type": ["integer", "null"], "minimum": 0}
    maybe_iso = {"type": ["string", "null"]}
    words = {"type": "string", "minLength": 1}
    anchor = {
        "type": "object",
        "required": ["id", "timestamp", "source", "licence"],
        "additionalProperties": False,
        "properties": {"id": id_string, "timestamp": number, "source": words, "licence": words},
    }
    keys = {
        "headline": words,
        "message": words,
        "basis": {"enum": list(ESTIMATE_BASES)},
        "best": maybe_ms,
        "earliest": maybe_ms,
        "latest": maybe_ms,
        "best_datetime": maybe_iso,
        "earliest_datetime": maybe_iso,
        "latest_datetime": maybe_iso,
        "uncertainty_ms": number,
        "anchor_count": number,
        "anchors": {"type": "array", "minItems": 1, "maxItems": 2, "items": anchor},
    }
    return {
        "type": "object",
        "description": "A tweet id from before Snowflake: when it was posted, estimated from"
        " tweets whose id and time are published (Unix ms; null where bounded on one side).",
        "required": list(keys),
        "additionalProperties": False,
        "properties": keys,
    }


def schemas(breakdown: dict[str, Any]) -> dict[str, Any]:
    """The response schemas; ``breakdown`` (the compose answer's schema) lends the keys every
    id's answer shares (hex, binary) and those only a Twitter id's answer has."""
    number = {"type": "integer", "minimum": 0}
    id_string = {"type": "string", "pattern": "^[0-9]{1,20}$"}
    moment = {
        "type": "object",
        "required": ["timestamp", "datetime"],
        "additionalProperties": False,
        "properties": {"timestamp": {"type": "integer"}, "datetime": {"type": ["string", "null"]}},
    }
    borrowed = {
        key: breakdown["properties"][key]
        for key in ("hex", "binary", "datacenter", "machine", "sequence", "worker", "steps")
    }
    segment = breakdown["properties"]["segments"]["items"]
    return {
        "Decoded": {
            "type": "object",
            "required": [
                "id",
                "layout",
                "timestamp",
                "datetime",
                "fields",
                "warnings",
                "hex",
                "binary",
                "segments",
                "unix_seconds",
                "discord_markup",
            ],
            "additionalProperties": False,
            "properties": {
                "id": id_string,
                "layout": {"enum": _NAMES},
                "timestamp": {**number, "maximum": MAX_EXACT_MS},
                "datetime": {
                    "type": ["string", "null"],
                    "description": "ISO 8601 UTC with ms; null after year 9999.",
                },
                "unix_seconds": {
                    **number,
                    "description": "The time in whole Unix seconds (rounded down).",
                },
                "discord_markup": {
                    "type": "string",
                    "pattern": "^<t:[0-9]+:F>$",
                    "description": "Discord's timestamp markup of the time, <t:SECONDS:F>.",
                },
                "fields": {"type": "object", "additionalProperties": number},
                "warnings": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["code", "message"],
                        "additionalProperties": False,
                        "properties": {
                            "code": {
                                "enum": [BEFORE_FIRST_SNOWFLAKE, IN_THE_FUTURE, INSTAGRAM_BIGINT]
                            },
                            "message": {"type": "string", "minLength": 1},
                        },
                    },
                },
                "segments": {
                    "type": "array",
                    "minItems": 2,
                    "maxItems": 5,
                    "items": {
                        **segment,
                        "properties": {**segment["properties"], "name": {"type": "string"}},
                    },
                },
                "stored": {
                    "type": "string",
                    "pattern": "^-[0-9]{1,19}$",
                    "description": "Instagram: the negative bigint the id was read from.",
                },
                "estimate": _estimate(number, id_string),
                **borrowed,
            },
        },
        "Pasted": {
            "type": "object",
            "required": ["normalised", "source", "layout", "layout_from", "ids"],
            "additionalProperties": False,
            "properties": {
                "normalised": {
                    "type": "string",
                    "description": "The ids found as plain decimal digits, space-separated.",
                },
                "source": {"enum": [*_NAMES, None]},
                "layout": {"enum": _NAMES},
                "layout_from": {"enum": ["request", "link", "default"]},
                "time_hint": _ref("TimeHint"),
                "ids": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {
                        "type": "object",
                        "required": ["label", "reading"],
                        "additionalProperties": False,
                        "properties": {
                            "label": {
                                "enum": [
                                    "message",
                                    "channel",
                                    "server",
                                    "user",
                                    "role",
                                    "emoji",
                                    None,
                                ],
                                "description": (
                                    "What a Discord link's id names; else null. A message"
                                    " link lists the message first, then its channel and"
                                    " server."
                                ),
                            },
                            "reading": _ref("Decoded"),
                        },
                    },
                },
            },
        },
        "TimeHint": {
            "type": "object",
            "required": ["code", "timestamp", "datetime", "message", "compose"],
            "additionalProperties": False,
            "properties": {
                "code": {"const": "looks_like_time"},
                "timestamp": {**number, "minimum": 10**12, "maximum": 4102444799999},
                "datetime": {"type": "string"},
                "message": {"type": "string", "minLength": 1},
                "compose": {
                    "type": "string",
                    "description": "The GET /api/compose request for an id at that time.",
                },
            },
        },
        "Readings": {
            "type": "object",
            "required": ["id", "readings"],
            "additionalProperties": False,
            "properties": {
                "id": id_string,
                "readings": {"type": "array", "maxItems": len(LAYOUTS), "items": _ref("Decoded")},
            },
        },
        "Layouts": {
            "type": "object",
            "required": ["layouts"],
            "additionalProperties": False,
            "properties": {
                "layouts": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["name", "epoch_ms", "unit_ms", "signed", "fields", "max_id"],
                        "properties": {
                            "name": {"enum": _NAMES},
                            "label": {"type": "string"},
                            "epoch_ms": number,
                            "epoch": {"type": ["string", "null"]},
                            "unit_ms": {**number, "minimum": 1},
                            "signed": {"type": "boolean"},
                            "fields": {"type": "array", "minItems": 1},
                            "max_id": id_string,
                            "last_timestamp": number,
                            "last_datetime": {"type": ["string", "null"]},
                            "generates": {"type": "boolean"},
                            "source": {"type": ["string", "null"]},
                            "note": {"type": ["string", "null"]},
                        },
                    },
                }
            },
        },
        "Range": {
            "type": "object",
            "required": ["layout", "from", "to", "low", "high", "empty", "ranges", "sql"],
            "additionalProperties": False,
            "properties": {
                "layout": {"enum": _NAMES},
                "from": moment,
                "to": moment,
                "low": id_string,
                "high": id_string,
                "empty": {
                    "type": "boolean",
                    "description": "No id in the window: low is 1 and high 0.",
                },
                "ranges": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 2,
                    "description": (
                        "The window over a signed 64-bit column (bigint), where ids from"
                        " 2**63 on are negative: two [low, high] pairs when it crosses that."
                    ),
                    "items": {
                        "type": "array",
                        "minItems": 2,
                        "maxItems": 2,
                        "items": {"type": "string", "pattern": "^-?[0-9]{1,19}$"},
                    },
                },
                "sql": {
                    "type": "string",
                    "description": "The WHERE condition of those ranges (column id).",
                },
            },
        },
    }
