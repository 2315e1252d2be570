"""SQLModel: one class is both the pydantic model and the table, keyed by a Snowflake id.

    pip install 'snowid[sqlmodel]'
    SNOWID_LEASE=file: python examples/sqlmodel_app.py                     # SQLite in memory
    SNOWID_LEASE=file: DATABASE_URL=postgresql+psycopg://HOST/DB python examples/sqlmodel_app.py

``sa_type=SnowIdType`` makes the column a BIGINT that reads back as SnowId; the pydantic
side (validation, JSON as strings, the JSON schema) comes with the SnowId annotation.
"""

from __future__ import annotations

import datetime as dt
import os

from sqlalchemy import Engine
from sqlmodel import Field, Session, SQLModel, create_engine, select

import snowid
from snowid import SnowId
from snowid.sqlalchemy import SnowIdType, created_between


class Hero(SQLModel, table=True):
    id: SnowId = Field(default_factory=snowid.next_id, primary_key=True, sa_type=SnowIdType)
    name: str
    mentor_id: SnowId | None = Field(default=None, sa_type=SnowIdType, foreign_key="hero.id")


def add_heroes(engine: Engine, names: list[str], mentor: SnowId | None = None) -> list[Hero]:
    with Session(engine, expire_on_commit=False) as session:
        heroes = [Hero(name=name, mentor_id=mentor) for name in names]
        session.add_all(heroes)
        session.commit()
        return heroes


def heroes_made_between(engine: Engine, start: dt.datetime, end: dt.datetime) -> list[Hero]:
    """No created_at column needed: the id says when the row was made."""
    with Session(engine) as session:
        query = select(Hero).where(created_between(Hero.id, start, end)).order_by(Hero.id)  # type: ignore[arg-type]
        return list(session.exec(query))


def main(url: str) -> None:
    engine = create_engine(url)
    SQLModel.metadata.create_all(engine)
    (mentor,) = add_heroes(engine, ["Deadpond"])
    add_heroes(engine, ["Spider-Boy", "Rusty-Man"], mentor=mentor.id)
    since = mentor.id.datetime
    for hero in heroes_made_between(engine, since, dt.datetime.now(dt.UTC)):
        print(hero.model_dump_json())  # {"id":"…","name":…,"mentor_id":"…"}: ids as strings


if __name__ == "__main__":
    main(os.environ.get("DATABASE_URL", "sqlite://"))
