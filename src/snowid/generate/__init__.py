"""The generate layer: fences and grants, the generator core, ``Generator``, and the
release-at-stop hooks (``on_stop``, ``stop_now``, ``install_stop_handlers``).

It imports the id layer below it and nothing above; the lease layer hands it grants
through the ``Fence`` protocol. The names below are what the layers above use; users
import them from ``snowid``. ``import snowid`` installs the stop handlers, so this
package's ``__init__`` stays light: the generator itself (``Generator``,
``GeneratorStats``, ``count_of``) loads on first use (``_LAZY``, PEP 562).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snowid._lazy import lazy_names as _lazy_names
from snowid.generate._fence import Fence, Grant
from snowid.generate._stop import (
    default_action,
    install_stop_handlers,
    on_final_stop,
    on_stop,
    stop_now,
)

if TYPE_CHECKING:  # what mypy sees; at run time _LAZY loads these on first use
    from snowid.generate._clockback import DEFAULT_CLOCK_BACK, ClockBack
    from snowid.generate._generator import Generator, GeneratorStats, count_of

# name -> the module that defines it, imported when the name is first read
_LAZY = {
    "DEFAULT_CLOCK_BACK": "snowid.generate._clockback",
    "ClockBack": "snowid.generate._clockback",
    "Generator": "snowid.generate._generator",
    "GeneratorStats": "snowid.generate._generator",
    "count_of": "snowid.generate._generator",
}

__all__ = [
    "DEFAULT_CLOCK_BACK",
    "ClockBack",
    "Fence",
    "Generator",
    "GeneratorStats",
    "Grant",
    "count_of",
    "default_action",
    "install_stop_handlers",
    "on_final_stop",
    "on_stop",
    "stop_now",
]

# PEP 562 hooks; hidden from mypy, for which an unknown name stays an error.
if not TYPE_CHECKING:
    __getattr__, __dir__ = _lazy_names(globals(), _LAZY)
