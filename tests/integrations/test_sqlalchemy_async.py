"""SnowIdType under SQLAlchemy's asyncio extension on PostgreSQL, with asyncpg and psycopg 3.

docs/integrations.md's async recipe: ``create_async_engine``, an ``AsyncSession``, the column default
drawing from the process-wide generator, ids read back as ``SnowId``, ``created_between`` and
a ``SnowId`` compared in a ``WHERE`` (bound by the type, whichever driver sends it).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

import pytest
from sqlalchemy import String, select, text
from sqlalchemy.exc import StatementError
from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from snowid import SnowId
from snowid.errors import NegativeIdError
from snowid.sqlalchemy import SnowIdType, created_between, new_id
from tests.support.process_wide import engine_url, unique_name

pytestmark = pytest.mark.slow  # PostgreSQL

DRIVERS = ["postgresql+asyncpg", "postgresql+psycopg"]


class Base(DeclarativeBase): ...


class Order(Base):
    __tablename__ = unique_name("async")  # one table name for this run, dropped after each test
    id: Mapped[SnowId] = mapped_column(SnowIdType, primary_key=True, default=new_id)
    parent_id: Mapped[SnowId | None] = mapped_column(SnowIdType, nullable=True)
    note: Mapped[str] = mapped_column(String(40))


@pytest.mark.parametrize("driver", DRIVERS)
def test_async_engine_inserts_reads_and_filters_snowids(
    driver: str, tmp_path: Path, process_wide: str
) -> None:
    """Ids drawn by the default, read back as SnowId, found by created_between and by value;
    a bad bound value is refused with snowid's error before the driver sees it."""
    sync_url = engine_url("postgresql", tmp_path)  # skips or fails when PostgreSQL is down
    url = sync_url.replace("postgresql+psycopg", driver)

    async def scenario() -> None:
        engine = create_async_engine(url)
        try:
            async with engine.begin() as conn:
                await conn.run_sync(Base.metadata.create_all)
            sessions = async_sessionmaker(engine, expire_on_commit=False)
            before = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
            async with sessions() as session, session.begin():
                first = Order(note="first")
                session.add(first)
                await session.flush()
                session.add_all([Order(note=f"n{i}", parent_id=first.id) for i in range(3)])
            async with sessions() as session:
                ids = list(await session.scalars(select(Order.id).order_by(Order.id)))
                assert len(ids) == 4
                assert all(type(i) is SnowId for i in ids)
                assert ids[0] == first.id
                after = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=1)
                window = created_between(Order.id, before, after)
                assert list(await session.scalars(select(Order.id).where(window))) == ids
                earlier = created_between(Order.id, before - dt.timedelta(hours=1), before)
                assert list(await session.scalars(select(Order.id).where(earlier))) == []
                children = await session.scalars(
                    select(Order.note).where(Order.parent_id == first.id)
                )
                assert sorted(children) == ["n0", "n1", "n2"]
                with pytest.raises(StatementError) as caught:
                    await session.scalars(select(Order.id).where(Order.id == -5))
                assert isinstance(caught.value.orig, NegativeIdError)
        finally:
            async with engine.begin() as conn:
                await conn.execute(text(f"DROP TABLE IF EXISTS {Order.__tablename__}"))
            await engine.dispose()

    asyncio.run(scenario())
