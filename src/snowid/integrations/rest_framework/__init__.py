"""Django REST framework fields of Snowflake ids; the public path is ``snowid.rest_framework``."""

from __future__ import annotations

from snowid.integrations.rest_framework._apps import SnowIdRestFrameworkConfig, register
from snowid.integrations.rest_framework._field import SnowIdSerializerField

__all__ = ["SnowIdRestFrameworkConfig", "SnowIdSerializerField", "register"]
