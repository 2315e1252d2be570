"""The Django app ``snowid.rest_framework``: ids of ``SnowIdField`` as strings in DRF.

Its ``ready`` makes three registrations, all limited to SnowId-keyed fields so that every
other serializer of the project is left as it was:

- ``ModelSerializer.serializer_field_mapping`` (the table DRF looks model fields up in)
  maps ``SnowIdField`` to ``SnowIdSerializerField``: keys and id columns of models;
- a ``SnowIdField`` primary key is read-only in a ``ModelSerializer`` (the id is drawn
  when the row is made, as the admin's forms do): a client cannot choose the id of a new
  row, which could be any number at all, one from another table or from the future. A
  serializer opts in with ``extra_kwargs = {"id": {"read_only": False}}`` in its
  ``Meta`` (or by declaring the field); the key is then optional on create and may be
  sent again, not changed, on an update. DRF builds model fields in
  ``build_standard_field``, which is wrapped, once, to add ``read_only`` for such a key;
- ``PrimaryKeyRelatedField`` (the field DRF builds for a foreign key, and the one users
  declare) writes the key of a SnowId-keyed model as a string and reads it with snowid's
  messages. DRF has no registry for this, so its two methods are wrapped, once; for
  every other model they do exactly what they did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.apps import AppConfig

from snowid.ids import SnowId

__all__ = ["SnowIdRestFrameworkConfig", "register"]

_WRAPPED = "_snowid_wrapped"


class SnowIdRestFrameworkConfig(AppConfig):  # type: ignore[misc]  # Django has no types
    """``INSTALLED_APPS = [..., "rest_framework", "snowid.rest_framework"]``."""

    name = "snowid.rest_framework"
    label = "snowid_rest_framework"  # not "rest_framework": DRF's own app has that label
    verbose_name = "snowid for Django REST framework"

    def ready(self) -> None:
        register()


def register() -> None:
    """Make the registrations described above (a second call does nothing)."""
    from rest_framework.relations import PrimaryKeyRelatedField
    from rest_framework.serializers import ModelSerializer

    from snowid.integrations.django import SnowIdField
    from snowid.integrations.rest_framework._field import SnowIdSerializerField

    ModelSerializer.serializer_field_mapping[SnowIdField] = SnowIdSerializerField
    if getattr(PrimaryKeyRelatedField.to_representation, _WRAPPED, False):
        return
    ModelSerializer.build_standard_field = _key_read_only(ModelSerializer.build_standard_field)
    PrimaryKeyRelatedField.to_representation = _as_string(PrimaryKeyRelatedField.to_representation)
    PrimaryKeyRelatedField.to_internal_value = _read_key(PrimaryKeyRelatedField.to_internal_value)


def _key_read_only(
    original: Callable[[Any, str, Any], tuple[Any, dict[str, Any]]],
) -> Callable[[Any, str, Any], tuple[Any, dict[str, Any]]]:
    def build_standard_field(self: Any, field_name: str, model_field: Any) -> Any:
        field_class, kwargs = original(self, field_name, model_field)
        from snowid.integrations.django import SnowIdField

        if isinstance(model_field, SnowIdField) and model_field.primary_key:
            # "required" stays False, so a serializer that opts in (read_only False
            # in extra_kwargs) still lets a new row draw its own id when none is sent.
            kwargs["read_only"] = True
        return field_class, kwargs

    setattr(build_standard_field, _WRAPPED, True)
    return build_standard_field


def _as_string(original: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def to_representation(self: Any, value: Any) -> Any:
        out = original(self, value)
        return str(out) if type(out) is SnowId else out

    setattr(to_representation, _WRAPPED, True)
    return to_representation


def _read_key(original: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def to_internal_value(self: Any, data: Any) -> Any:
        if self.pk_field is None and _keyed_by_snowid(self.get_queryset()):
            from snowid.integrations.rest_framework._field import read_id

            data = read_id(data, self.field_name or "id")  # "-5" is a 400 saying so
        return original(self, data)

    setattr(to_internal_value, _WRAPPED, True)
    return to_internal_value


def _keyed_by_snowid(queryset: Any) -> bool:
    from snowid.integrations.django import SnowIdField

    model = getattr(queryset, "model", None)
    return model is not None and isinstance(model._meta.pk, SnowIdField)
