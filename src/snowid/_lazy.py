"""Names a package imports on first use (PEP 562), so that importing the package stays light.

A private shared leaf: ``snowid``, ``snowid.errors``, ``snowid.generate``, ``snowid.client``
and ``snowid.web`` each hand it a table (name -> the module that defines it) and take back
the module's ``__getattr__`` and ``__dir__``. Standard library only.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping

__all__ = ["lazy_names"]


def lazy_names(
    namespace: MutableMapping[str, object], table: Mapping[str, str]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the module whose ``globals()`` is ``namespace``.

    A name of ``table`` is imported from its module when first read and then kept in the
    module (the next read is a plain lookup, never the hook again); any other name is an
    AttributeError. Call it under ``if not TYPE_CHECKING:``, so that for mypy a misspelt
    name stays an error rather than becoming ``object``.
    """
    module = namespace["__name__"]

    def __getattr__(name: str) -> object:  # noqa: N807 - the hook's name is PEP 562's
        if name not in table:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = namespace[name] = getattr(importlib.import_module(table[name]), name)
        return value

    def __dir__() -> list[str]:  # noqa: N807
        return sorted({*namespace, *table})

    return __getattr__, __dir__
