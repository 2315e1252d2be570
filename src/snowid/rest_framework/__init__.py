"""Django REST framework and Snowflake ids (``pip install 'snowid[drf]'``).

::

    INSTALLED_APPS = [..., "rest_framework", "snowid.rest_framework"]

With the app installed, every ``ModelSerializer`` writes a ``SnowIdField`` (a key, a
foreign key, a ``PrimaryKeyRelatedField`` to a SnowId-keyed model) as a decimal string
and reads a string or an int; a bad id is a 400 on its field with snowid's message.
Serializers of other models are unchanged. For a field of your own::

    from snowid.rest_framework import SnowIdSerializerField

    class Lookup(serializers.Serializer):
        order = SnowIdSerializerField()
"""

from __future__ import annotations

from snowid.integrations.rest_framework import (
    SnowIdRestFrameworkConfig,
    SnowIdSerializerField,
    register,
)

__all__ = ["SnowIdRestFrameworkConfig", "SnowIdSerializerField", "register"]
