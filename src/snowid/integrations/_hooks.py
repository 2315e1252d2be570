"""Installs pydantic's hooks on ``SnowId``: the value type itself knows no adapter.

pydantic looks for ``__get_pydantic_core_schema__`` and ``__get_pydantic_json_schema__``
on a field's class. Defining them in the class would make the id layer import the
pydantic adapter above it; instead ``snowid/__init__`` imports this module (Python runs
it before any other snowid module is used), which sets them on the class. They import
``snowid.integrations.pydantic``, and with it pydantic, only when a model first uses a
SnowId (or pydantic-core first serializes one typed ``Any``), so ``import snowid`` stays
standard-library only.
"""

from __future__ import annotations

from typing import Any

from snowid.ids import SnowId

__all__: list[str] = []


def _core_schema(cls: type[SnowId], source: Any, handler: Any) -> Any:
    from snowid.integrations.pydantic import snowid_core_schema

    return snowid_core_schema(source, handler)


def _json_schema(cls: type[SnowId], schema: Any, handler: Any) -> Any:
    from snowid.integrations.pydantic import snowid_json_schema

    return snowid_json_schema(schema, handler)


class _InstanceSerializer:
    """``sid.__pydantic_serializer__``: pydantic-core looks for it on a value it cannot
    otherwise serialize (one typed ``Any``) and serializes the value through it. Built on
    first use, so pydantic loads only when it asks; absent on the class itself (pydantic
    would take the class for a model) and where pydantic is not installed."""

    def __get__(self, instance: SnowId | None, owner: type[SnowId]) -> Any:
        if instance is None:
            raise AttributeError("__pydantic_serializer__")
        try:
            from snowid.integrations.pydantic import instance_serializer
        except ImportError:  # no pydantic: nothing can be asking
            raise AttributeError("__pydantic_serializer__") from None
        return instance_serializer()


setattr(SnowId, "__get_pydantic_core_schema__", classmethod(_core_schema))  # noqa: B010
setattr(SnowId, "__get_pydantic_json_schema__", classmethod(_json_schema))  # noqa: B010
setattr(SnowId, "__pydantic_serializer__", _InstanceSerializer())  # noqa: B010
