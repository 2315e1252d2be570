"""The test site's URLs: the admin and the DRF API."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from tests.integrations.djangoapp.api import routes

urlpatterns = [path("admin/", admin.site.urls), path("api/", include(routes()))]
