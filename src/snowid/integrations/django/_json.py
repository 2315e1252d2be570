"""Django's JSON encoder taught SnowIds: ``JsonResponse(data, encoder=SnowIdJSONEncoder)``
and ``serializers.serialize("json", rows, cls=SnowIdJSONEncoder)`` write each id as its
decimal string, never a JSON number (JavaScript would round it past 2^53)."""

from __future__ import annotations

from typing import Any

from django.core.serializers.json import DjangoJSONEncoder

from snowid.ids import SnowId

__all__ = ["SnowIdJSONEncoder"]


class SnowIdJSONEncoder(DjangoJSONEncoder):  # type: ignore[misc]  # django ships no types here
    """``DjangoJSONEncoder`` (dates, decimals, UUIDs…) that also writes a SnowId as a string."""

    def default(self, o: Any) -> Any:
        if isinstance(o, SnowId):
            return str(o)
        return super().default(o)
