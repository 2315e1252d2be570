"""Django model fields of Snowflake ids (``pip install 'snowid[django]'``).

::

    from django.db import models
    from snowid.django import SnowIdField

    class Order(models.Model):
        id = SnowIdField(primary_key=True)          # a new id for every new row
        customer = models.ForeignKey(Customer, on_delete=models.CASCADE)
        parent_id = SnowIdField(null=True, blank=True, default=None)  # another row's id

The column is a ``BIGINT`` holding the id's value; the attribute is always a ``SnowId``
(read from the database, assigned, or made by the default). A new row's id comes from
the process-wide generator, configured by ``settings.SNOWID_LEASE`` (or
``snowid.configure(lease=...)``, or the ``SNOWID_LEASE`` environment variable), so each
process and each pre-forked worker claims its own worker identity.

Forms and the admin get a text box with the decimal digits (a number box would let a
browser round an id past 2^53) and, beside it, the time the id was made, read-only. A
primary key is only shown (digits and time), never taken from a form: ``Model()`` draws
it, and the form built for a POST keeps its own. A bad ``SNOWID_LEASE`` is reported by
``manage.py check`` (``snowid.E001``). ``created_between`` reads a naive datetime in
Django's current time zone. For Django REST framework, see ``snowid.rest_framework``.
"""

from __future__ import annotations

from snowid.integrations.django import (
    SnowIdField,
    SnowIdFormField,
    SnowIdJSONEncoder,
    SnowIdWidget,
    created_between,
    new_id,
    warm_up,
)

__all__ = [
    "SnowIdField",
    "SnowIdFormField",
    "SnowIdJSONEncoder",
    "SnowIdWidget",
    "created_between",
    "new_id",
    "warm_up",
]
