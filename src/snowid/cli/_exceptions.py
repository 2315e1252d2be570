"""The CLI's own error: ``snowid serve`` cannot listen where it was told to.

Raised by ``_serve``; users import it from ``snowid.errors``.
"""

from __future__ import annotations

from snowid._exceptions import SnowIdError, error_data

__all__ = ["AddressUnavailableError"]


@error_data
class AddressUnavailableError(SnowIdError, OSError):
    """``snowid serve`` cannot listen on ``host`` port ``port`` (``reason``)."""

    code = "address_unavailable"
    host: str
    port: int
    reason: str
