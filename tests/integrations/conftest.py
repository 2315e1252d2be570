"""Fixtures of the integration tests (pydantic, FastAPI, SQLAlchemy, SQLModel, drivers)."""

from __future__ import annotations

from tests.support.process_wide import process_wide

__all__ = ["process_wide"]
