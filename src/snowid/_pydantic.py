"""SnowId as a pydantic v2 field type; imported by SnowId's hooks when a model first uses it.

- validation: a SnowId, an int or a decimal string (``snowid._convert``); anything else is
  a ValidationError whose message is snowid's own (field, value, range) and whose type is
  ``snowid.<code>``;
- ``model_dump()`` keeps the SnowId; JSON (``mode="json"``, ``model_dump_json``) writes a
  decimal string, because a JSON number above 2^53 loses digits in JavaScript;
- the JSON schema is a string of 1 to 19 digits, so OpenAPI clients generate string ids.
"""

from __future__ import annotations

from typing import Any

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from snowid._convert import MAX_DIGITS, MAX_ID, blank_snowid, set_value, to_snowid
from snowid._id import SnowId
from snowid.errors import InvalidValueError

__all__ = ["JSON_SCHEMA", "snowid_core_schema", "snowid_json_schema", "validate"]

JSON_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": "^[0-9]{1,19}$",
    "description": (
        "A Twitter Snowflake id (0..9223372036854775807) as a decimal string; a JSON number"
        " would lose digits above 2^53."
    ),
    "examples": ["4194439168"],
}


def validate(value: Any, info: core_schema.ValidationInfo) -> SnowId:
    """One field's value as a SnowId, or a pydantic error carrying snowid's message."""
    # The usual input, a decimal string from JSON, inline: this runs once per field.
    if type(value) is str and len(value) <= MAX_DIGITS and value.isdigit() and value.isascii():
        number = int(value)
        if number <= MAX_ID:
            made: SnowId = blank_snowid(SnowId)
            set_value(made, number)
            return made
    try:
        return to_snowid(value, info.field_name or "id")
    except InvalidValueError as error:
        # No context: the message is used verbatim, whatever braces the value holds.
        raise PydanticCustomError(f"snowid.{error.code}", str(error)) from None


def snowid_core_schema(source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
    del source, handler
    return core_schema.with_info_plain_validator_function(
        validate,
        serialization=core_schema.to_string_ser_schema(when_used="json"),  # str(), from Rust
    )


def snowid_json_schema(
    schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
) -> JsonSchemaValue:
    del schema, handler
    return dict(JSON_SCHEMA)
