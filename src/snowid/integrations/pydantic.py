"""SnowId as a pydantic v2 field type; imported by SnowId's hooks when a model first uses it.

- validation: a SnowId, an int or a decimal string (``snowid.ids._convert``); anything else is
  a ValidationError whose message is snowid's own (field, value, range) and whose type is
  ``snowid.<code>``;
- ``model_dump()`` keeps the SnowId; JSON (``mode="json"``, ``model_dump_json``) writes a
  decimal string, because a JSON number above 2^53 loses digits in JavaScript;
- the JSON schema is a string of 1 to 19 digits, so OpenAPI clients generate string ids.

Speed (issue 12 asks for a SnowId key as fast as a ``uuid.UUID`` one): pydantic-core
parses a UUID in Rust, while a SnowId needs one Python call per value, to build it. That
call is a plain validator *without* ValidationInfo (the field's name, for messages, is
bound when the schema is built) that takes the usual inputs inline. Moving the digit
check and the parse into pydantic-core (a union of a pattern-checked string chained to an
int, an int, and a catch-all) was measured too and was slower for 19-digit ids: its
string-to-int parse is slow for numbers that long. See bench/README.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, SchemaSerializer, core_schema

from snowid._exceptions import InvalidValueError
from snowid.ids import SnowId, to_snowid

__all__ = [
    "JSON_SCHEMA",
    "instance_serializer",
    "snowid_core_schema",
    "snowid_json_schema",
    "validator_for",
]

JSON_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": "^[0-9]{1,19}$",
    "description": (
        "A Twitter Snowflake id (0..9223372036854775807) as a decimal string; a JSON number"
        " would lose digits above 2^53."
    ),
    "examples": ["4194439168"],
}


def validator_for(field: str) -> Callable[[Any], SnowId]:
    """The function that validates ``field``: its name is bound now, when the schema is
    built, so pydantic makes no ValidationInfo per value (a plain validator without info).
    The usual inputs (a decimal string, an int) are read by ``SnowId._reader`` in one call;
    ``to_snowid`` decides every other case."""

    def otherwise(value: Any) -> SnowId:
        try:
            return to_snowid(value, field)  # a SnowId as it is; anything else: the error
        except InvalidValueError as error:
            # No context: the message is used verbatim, whatever braces the value holds.
            raise PydanticCustomError(f"snowid.{error.code}", str(error)) from None

    return SnowId._reader(otherwise)


def snowid_core_schema(source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
    del source
    field = getattr(handler, "field_name", None) or "id"
    return core_schema.no_info_plain_validator_function(
        validator_for(field),
        serialization=core_schema.to_string_ser_schema(when_used="json"),  # str(), from Rust
    )


def snowid_json_schema(
    schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
) -> JsonSchemaValue:
    del schema, handler
    return dict(JSON_SCHEMA)


_INSTANCE_SERIALIZER: SchemaSerializer | None = None


def instance_serializer() -> SchemaSerializer:
    """What pydantic-core uses for a SnowId it meets where the type says ``Any`` (a
    ``dict[str, Any]``, a FastAPI endpoint's ``-> dict`` return): it serializes any object
    with a ``__pydantic_serializer__`` through it, as it does models. JSON gets the decimal
    string; Python mode keeps the SnowId, as for an annotated field."""
    global _INSTANCE_SERIALIZER  # noqa: PLW0603 - built once, on first use
    if _INSTANCE_SERIALIZER is None:
        _INSTANCE_SERIALIZER = SchemaSerializer(
            core_schema.any_schema(serialization=core_schema.to_string_ser_schema(when_used="json"))
        )
    return _INSTANCE_SERIALIZER
