"""What one server needs to know, from flags or the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from snowid._parse import to_int
from snowid.errors import OutOfRangeError

__all__ = ["DEFAULT_MAX_COUNT", "Settings"]

DEFAULT_MAX_COUNT = 4096
"""One millisecond's worth of ids for one identity: the most one request may ask for."""

_MAX_COUNT_LIMIT = 1_000_000


@dataclass(frozen=True, slots=True)
class Settings:
    """``lease_url`` None means SNOWID_LEASE, then file slots on this host (``open_lease``)."""

    host: str = "127.0.0.1"
    port: int = 8000
    lease_url: str | None = None
    max_count: int = DEFAULT_MAX_COUNT

    def __post_init__(self) -> None:
        if not 1 <= self.max_count <= _MAX_COUNT_LIMIT:
            raise OutOfRangeError(
                field="max_count", value=self.max_count, min=1, max=_MAX_COUNT_LIMIT
            )
        if not 0 <= self.port <= 65535:
            raise OutOfRangeError(field="port", value=self.port, min=0, max=65535)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """SNOWID_HOST, SNOWID_PORT, SNOWID_LEASE, SNOWID_MAX_COUNT; defaults for the rest.

        Worker processes started by ``snowid serve --workers N`` read their settings
        here, since uvicorn builds the app anew in each process.
        """
        env = os.environ if environ is None else environ
        return cls(
            host=env.get("SNOWID_HOST") or "127.0.0.1",
            port=to_int("port", env.get("SNOWID_PORT") or "8000"),
            lease_url=env.get("SNOWID_LEASE") or None,
            max_count=to_int("max_count", env.get("SNOWID_MAX_COUNT") or str(DEFAULT_MAX_COUNT)),
        )
