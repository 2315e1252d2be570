"""The generate layer: fences and grants, the generator core and ``Generator``.

It imports the id layer below it and nothing above; the lease layer hands it grants
through the ``Fence`` protocol. The names below are what the layers above use; users
import them from ``snowid``.
"""

from __future__ import annotations

from snowid.generate._fence import Fence, Grant
from snowid.generate._generator import Generator, GeneratorStats, count_of
from snowid.generate._stop import default_action, install_stop_handlers, on_stop, stop_now

__all__ = [
    "Fence",
    "Generator",
    "GeneratorStats",
    "Grant",
    "count_of",
    "default_action",
    "install_stop_handlers",
    "on_stop",
    "stop_now",
]
