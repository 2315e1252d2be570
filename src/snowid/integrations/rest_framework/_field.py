"""The serializer field of a Snowflake id: a decimal string out, a string or an int in."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from snowid._exceptions import InvalidValueError
from snowid.i18n import translate
from snowid.ids import SnowId, to_snowid
from snowid.integrations.django import django_lang

__all__ = ["SnowIdSerializerField", "read_id"]


def read_id(value: Any, field: str) -> SnowId:
    """``value`` as a SnowId, or a DRF ``ValidationError`` with snowid's message (a 400).

    What the model field, pydantic and the Django form field take: an int or the decimal
    digits alone (``" 42"`` is refused with ``contains_spaces``, as everywhere else).
    """
    try:
        return to_snowid(value, field)
    except InvalidValueError as error:
        raise serializers.ValidationError(error.message(django_lang()), code=error.code) from None


class SnowIdSerializerField(serializers.Field):  # type: ignore[misc]  # DRF has no types
    """A Snowflake id in a DRF serializer: written as its decimal digits (a JavaScript
    number would round an id past 2^53), read from digits or a JSON integer (the lenient
    tier for programs, as ``SnowId.parse``); anything else is a 400 on this field with
    snowid's message ("-5" is a negative id, "1.5" not a whole number, ...). On an
    update, a model's key may be sent again but not changed (a 400 on the field)."""

    def run_validation(self, data: Any = serializers.empty) -> Any:
        if data == "" and self.allow_null:  # as DRF's relations and Django's forms read it
            data = None
        return super().run_validation(data)

    def to_representation(self, value: Any) -> str:
        return str(to_snowid(value, self.field_name or "id"))

    def to_internal_value(self, data: Any) -> SnowId:
        value = read_id(data, self.field_name or "id")
        instance: Any = getattr(self.parent, "instance", None)
        key = getattr(getattr(instance, "_meta", None), "pk", None)
        if key is not None and self.source == key.attname and value != instance.pk:
            # Saving a row under another key inserts a copy (Django's save): refuse it, as
            # the admin does by never reading a posted key. The same id again is fine.
            text = translate("drf.key_changed", django_lang(), value=value, current=instance.pk)
            raise serializers.ValidationError(text, code="key_changed")
        return value
