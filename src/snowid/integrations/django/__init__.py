"""Django model and form fields of Snowflake ids; the public path is ``snowid.django``."""

from __future__ import annotations

from snowid.integrations.django._forms import (
    SnowIdFormField,
    SnowIdKeyFormField,
    SnowIdKeyWidget,
    SnowIdWidget,
    django_lang,
)
from snowid.integrations.django._json import SnowIdJSONEncoder
from snowid.integrations.django._model import SnowIdField, created_between, new_id, warm_up

__all__ = [
    "SnowIdField",
    "SnowIdFormField",
    "SnowIdJSONEncoder",
    "SnowIdKeyFormField",
    "SnowIdKeyWidget",
    "SnowIdWidget",
    "created_between",
    "django_lang",
    "new_id",
    "warm_up",
]
