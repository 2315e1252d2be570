"""``SnowIdField``: the model field, its attribute and its default."""

from __future__ import annotations

import datetime as _dt
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.query_utils import DeferredAttribute
from django.utils.functional import cached_property

from snowid._exceptions import InvalidValueError
from snowid.ids import SnowId, id_range, to_snowid
from snowid.integrations.django._checks import SETTING
from snowid.integrations.django._forms import (
    SnowIdFormField,
    SnowIdKeyFormField,
    SnowIdKeyWidget,
    SnowIdWidget,
    django_lang,
)
from snowid.process import configure, next_id, started
from snowid.process import warm_up as _warm_up

__all__ = ["SETTING", "SnowIdField", "created_between", "new_id", "warm_up"]

_INT8_BY_ITSELF = 2**31
"""The smallest int psycopg sends as int8 (bigint) without being told (smaller: int4, int2)."""


def new_id() -> SnowId:
    """A new id from the process-wide generator: the default of every ``SnowIdField``.

    Before this process's first id, ``settings.SNOWID_LEASE`` (when set and not empty)
    is passed to ``snowid.configure``: it wins over the environment variable, and a
    different lease configured in code is refused with ``AlreadyConfiguredError``.
    """
    if not started():  # once per process (and again in a forked child)
        _configure_from_settings()
    return next_id()


def warm_up() -> None:
    """Claim this process's identity before the first request (``snowid.warm_up``),
    configured as ``new_id`` is; call it from an ``AppConfig.ready()``.

    ``ready()`` runs in every process that loads Django, each ``manage.py`` command
    included (``makemigrations --check`` in CI, ``migrate``, ``shell``…), and most never
    make an id. So while Django is still loading its apps this only arranges the claim
    for when the process builds its request handler, which the servers do as they start
    (runserver, and the WSGI and ASGI handlers that gunicorn, uvicorn, daphne or mod_wsgi
    load) and other commands never do: a command that makes no id never reaches the lease
    store, and one that does claims at its first id. Called later (a worker's start
    hook, after a fork), it claims at once.
    """
    from django.apps import apps

    if not apps.ready:
        _claim_when_serving()
        return
    if not started():
        _configure_from_settings()
    _warm_up()


_WRAPPED = "_snowid_claims"


def _claim_when_serving() -> None:
    """Make Django's request handler claim the identity once it has loaded its middleware.

    Django has no signal for "a handler was built"; ``BaseHandler.load_middleware`` is
    what every handler (WSGI, ASGI, runserver's, the test client's) calls as it is made,
    so it is wrapped, once, to call ``warm_up`` after doing what it did.
    """
    from django.core.handlers.base import BaseHandler

    original = BaseHandler.load_middleware
    if getattr(original, _WRAPPED, False):
        return

    def load_middleware(self: Any, is_async: bool = False) -> None:
        original(self, is_async)
        warm_up()  # the apps are ready by now: this claims (once per process)

    setattr(load_middleware, _WRAPPED, True)
    BaseHandler.load_middleware = load_middleware


def _configure_from_settings() -> None:
    from django.conf import settings

    lease = getattr(settings, SETTING, None)
    if lease is not None and lease != "":
        configure(lease=lease)  # the same URL again is a no-op


def _as_snowid(value: Any, field: str) -> Any:
    """A value for the model attribute: a SnowId, None, or a query expression as given."""
    if value is None or type(value) is SnowId or hasattr(value, "resolve_expression"):
        return value
    return to_snowid(value, field)


class _Assigned:
    """What every SnowIdField attribute does on assignment: whatever is assigned is kept
    as a SnowId (or refused at once), so ``Order(id="4194439168").id ==
    Order.objects.get(...).id``."""

    field: Any

    def __set__(self, instance: Any, value: Any) -> None:
        if type(value) is not SnowId:  # a new row's default is one: no call for it
            value = _as_snowid(value, self.field.name)
        instance.__dict__[self.field.attname] = value


class _SnowIdAttribute(_Assigned, DeferredAttribute):  # type: ignore[misc]  # Django has no types
    """A column's attribute: assigned as every SnowIdField's is, read through Django's
    ``DeferredAttribute`` (which loads a column a query deferred)."""


class _SnowIdKeyAttribute(_Assigned):
    """A primary key's attribute: assigned as every SnowIdField's is, and read with no
    call at all (no ``__get__``: Python finds the value in the instance's ``__dict__``).

    A data descriptor with a ``__get__`` (``_SnowIdAttribute``) costs a Python call at
    every read, and Django reads a row's key several times as it saves it: about a tenth
    of ``bulk_create``'s time (``bench/bench_orm.py``). Nothing is lost by having none:
    Django never defers a primary key (every query loads it), so there is no deferred
    value to load; read on the class, the attribute is this descriptor, as Django's is.
    """

    def __init__(self, field: Any) -> None:
        self.field = field


class SnowIdField(models.BigIntegerField):  # type: ignore[misc]  # Django has no types
    """A Snowflake id column: ``BIGINT`` in the database, ``SnowId`` in Python.

    ``default`` is ``new_id`` unless given (``default=None`` for a column that holds
    other rows' ids). Values in queries and assignments may be a SnowId, an int or a
    decimal string; anything else raises snowid's specific error before the database
    sees it (in a form or ``full_clean``: a ``ValidationError`` with that message).
    """

    description = "Snowflake id (64-bit integer)"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("default", new_id)
        super().__init__(*args, **kwargs)

    @property
    def descriptor_class(self) -> type[_Assigned]:
        return _SnowIdKeyAttribute if self.primary_key else _SnowIdAttribute

    def deconstruct(self) -> tuple[str, str, list[Any], dict[str, Any]]:
        name, _path, args, kwargs = super().deconstruct()
        if kwargs.get("default") is new_id:
            del kwargs["default"]  # __init__ puts it back: migrations name no function
        # The public path, so that migrations survive a move inside the package.
        return name, "snowid.django.SnowIdField", args, kwargs

    @cached_property  # type: ignore[untyped-decorator]  # Django has no types
    def validators(self) -> list[Any]:
        # Not BigIntegerField's min/max validators: every SnowId is in range, and they
        # would compare a SnowId with an int, which SnowId refuses.
        return [*self.default_validators, *self._validators]

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> SnowId | None:
        del expression, connection
        if value is None:
            return None
        return to_snowid(value, "stored id")  # a corrupt row is an error, not a wrong id

    def to_python(self, value: Any) -> SnowId | None:
        if value is None:
            return None
        try:
            return to_snowid(value, self.name or "id")
        except InvalidValueError as error:
            raise ValidationError(error.message(django_lang()), code=error.code) from None

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if type(value) is SnowId:  # every row of a bulk insert: the shortest way
            number = int(value)
            if number >= _INT8_BY_ITSELF and connection.vendor == "postgresql":
                # psycopg sends an int of 2**31 or more as int8 by itself: the type Django's
                # wrapper for a BigIntegerField (psycopg's Int8) gives, without making one
                # in Python for every row (about a tenth of bulk_create's CPU per row).
                return number
            return connection.ops.adapt_integerfield_value(number, self.get_internal_type())
        return super().get_db_prep_value(value, connection, prepared)

    def get_prep_value(self, value: Any) -> Any:
        value = models.Field.get_prep_value(self, value)  # resolves lazy objects
        if value is None or hasattr(value, "resolve_expression"):
            return value
        return int(to_snowid(value, self.name or "id"))

    def value_to_string(self, obj: Any) -> str:
        value = self.value_from_object(obj)
        return "" if value is None else str(value)

    def formfield(self, **kwargs: Any) -> Any:
        # A primary key is shown, never taken (SnowIdKeyFormField): typing another id on
        # a change form would save a copy of the row under it.
        key = self.primary_key
        # The admin asks for its number box (AdminBigIntegerFieldWidget): a browser may
        # round an id in a number box, so any number widget is replaced by the text one.
        widget = kwargs.get("widget")
        if widget is None or _is_number_widget(widget):
            kwargs["widget"] = SnowIdKeyWidget if key else SnowIdWidget
        form_class = SnowIdKeyFormField if key else SnowIdFormField
        # models.Field's formfield, not IntegerField's: no min_value/max_value/step.
        defaults = {"form_class": form_class, "field_name": self.name or "id"}
        return models.Field.formfield(self, **{**defaults, **kwargs})


def _is_number_widget(widget: Any) -> bool:
    from django import forms

    if isinstance(widget, type):
        return issubclass(widget, forms.NumberInput)
    return isinstance(widget, forms.NumberInput)


def created_between(field: str, start: _dt.datetime | int, end: _dt.datetime | int) -> models.Q:
    """``Q(field__range=...)``: the rows whose id in ``field`` was made from ``start`` to
    ``end`` (both included; datetimes or Unix ms). Uses the key's index.

    A naive datetime is read in Django's current time zone (``TIME_ZONE``, or the one
    activated), as Django's own lookups and forms read it; ``snowid.id_range`` and the
    rest of the library read a naive datetime as UTC.
    """
    low, high = id_range(_aware(start), _aware(end))
    return models.Q(**{f"{field}__range": (low, high)})


def _aware(when: _dt.datetime | int) -> _dt.datetime | int:
    if isinstance(when, _dt.datetime) and when.tzinfo is None:
        from django.utils import timezone

        aware: _dt.datetime = timezone.make_aware(when, timezone.get_current_timezone())
        return aware
    return when
