"""The admin of the test app, as an application would write it (nothing snowid-specific)."""

from __future__ import annotations

from django.contrib import admin

from tests.integrations.djangoapp.models import Customer, Order


@admin.register(Order)
class OrderAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("id", "parent_id", "note")


admin.site.register(Customer)
