"""The app configuration Django finds for ``"snowid.rest_framework"`` in INSTALLED_APPS."""

from __future__ import annotations

from snowid.integrations.rest_framework import SnowIdRestFrameworkConfig

__all__ = ["SnowIdRestFrameworkConfig"]
