"""Models keyed by SnowIdField: a key, a foreign key to such a key, and a plain id column;
and one keyed by Django's own integer key, beside them."""

from __future__ import annotations

from django.db import models

from snowid.django import SnowIdField


class Customer(models.Model):
    id = SnowIdField(primary_key=True)
    name = models.CharField(max_length=40, blank=True, default="")


class Order(models.Model):
    id = SnowIdField(primary_key=True)
    customer = models.ForeignKey(Customer, null=True, blank=True, on_delete=models.CASCADE)
    parent_id = SnowIdField(null=True, blank=True, default=None)  # another order's id
    note = models.CharField(max_length=40, blank=True, default="")


class Label(models.Model):
    """Keyed by DEFAULT_AUTO_FIELD: what snowid must leave as it is."""

    order = models.ForeignKey(Order, null=True, blank=True, on_delete=models.CASCADE)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE)
    name = models.CharField(max_length=40, blank=True, default="")
