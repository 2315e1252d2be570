"""Alembic autogenerates a migration for a SnowIdType column that runs, on PostgreSQL and
MariaDB, and makes a key no database fills in.

A temporary Alembic project (alembic.ini's options, env.py, versions/) whose env.py
imports the documented model and passes ``snowid.sqlalchemy.render_item`` as documented;
revisions and upgrades go through Alembic's own commands, as ``alembic revision
--autogenerate`` and ``alembic upgrade`` do. Tables get names of this run's own on the
shared servers and are dropped afterwards.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy import Engine, create_engine, inspect, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from snowid import SnowId
from tests.support.process_wide import engine_url, unique_name

pytestmark = pytest.mark.slow  # PostgreSQL and MariaDB

DOC = Path(__file__).resolve().parents[2] / "docs" / "sqlalchemy.md"


def _blocks() -> list[str]:
    return [str(b) for b in re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)]


MODEL = _blocks()[0]
"""The model docs/sqlalchemy.md opens with (the README's SQLAlchemy model), as written there;
``__tablename__`` is replaced by a name of this run's own."""

ENV_PY = """
from alembic import context
from sqlalchemy import create_engine

from models import Base
from snowid.sqlalchemy import render_item

config = context.config
target_metadata = Base.metadata
mine = {config.get_main_option("snowid_table")}


def include_name(name, type_, parent_names):
    # The servers are shared: autogenerate would write a drop_table for every table of
    # the database that this model does not have, other tests' tables among them.
    return type_ != "table" or name in mine


engine = create_engine(config.get_main_option("sqlalchemy.url"))
try:
    with engine.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            version_table=config.get_main_option("snowid_table") + "_version",
            include_name=include_name,
            {hook}
        )
        with context.begin_transaction():
            context.run_migrations()
finally:
    engine.dispose()
"""


def _project(directory: Path, url: str, table: str, hook: str) -> Config:
    """An Alembic project in ``directory``: the ini options a user's alembic.ini would hold."""
    (directory / "versions").mkdir(parents=True)
    (directory / "env.py").write_text(textwrap.dedent(ENV_PY).replace("{hook}", hook))
    model = MODEL.replace('__tablename__ = "orders"', f'__tablename__ = "{table}"')
    assert model != MODEL
    assert "default=new_id" in model
    (directory / "models.py").write_text(model)
    template = Path(command.__file__).parent / "templates" / "generic" / "script.py.mako"
    (directory / "script.py.mako").write_text(template.read_text())
    config = Config()
    config.set_main_option("script_location", str(directory))
    config.set_main_option("path_separator", "os")
    config.set_main_option("prepend_sys_path", str(directory))
    config.set_main_option("sqlalchemy.url", url)
    config.set_main_option("snowid_table", table)
    return config


@pytest.fixture(params=["postgresql", "mariadb"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return engine_url(str(request.param), tmp_path)


@pytest.fixture
def table(url: str) -> Iterator[str]:
    """The model's table name; beside it a table the model does not have (``NAME_other``),
    standing for the other tests' tables on the shared server: it must be left alone."""
    name = unique_name("alembic")
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text(f"CREATE TABLE {name}_other (n INTEGER)"))
    yield name
    with engine.begin() as conn:
        assert inspect(conn).has_table(f"{name}_other")
        conn.execute(text(f"DROP TABLE IF EXISTS {name}, {name}_version, {name}_other"))
        if engine.dialect.name == "postgresql":
            conn.execute(text(f"DROP SEQUENCE IF EXISTS {name}_id_seq"))
    engine.dispose()


@pytest.fixture
def models_unloaded() -> Iterator[None]:
    """env.py imports ``models`` from the project's folder: a fresh import per test."""
    import sys

    sys.modules.pop("models", None)
    yield
    sys.modules.pop("models", None)


def _raw_insert_without_an_id(engine: Engine, table: str) -> None:
    """What a script, a psql session or another service does: no id given."""
    with engine.begin() as conn:
        if engine.dialect.name == "mysql":  # the server's default mode: stated, not assumed
            conn.execute(text("SET SESSION sql_mode = 'STRICT_TRANS_TABLES'"))
        conn.execute(text(f"INSERT INTO {table} (note) VALUES ('raw')"))


@pytest.mark.usefixtures("models_unloaded")
def test_the_documented_model_migrates_to_a_key_no_database_fills_in(
    tmp_path: Path, url: str, table: str, process_wide: str
) -> None:
    """Issue 25 §3: ``alembic revision --autogenerate`` and ``upgrade`` from the documented
    model make a plain ``BIGINT`` key, no ``nextval(...)`` default (PostgreSQL) and no
    ``AUTO_INCREMENT`` (MariaDB): a raw insert without an id fails, where it used to store
    1 (an id that reads as 2010). The revision imports the type and says
    ``autoincrement=False`` itself, the ORM still inserts ids from snowid, and a second
    autogenerate finds nothing to change."""
    config = _project(tmp_path / "migrations", url, table, "render_item=render_item,")
    command.revision(config, message="orders", autogenerate=True)
    (script,) = (tmp_path / "migrations" / "versions").glob("*.py")
    source = script.read_text()
    assert "import snowid.sqlalchemy" in source
    assert "drop_table" not in source.partition("def downgrade")[0]  # nobody else's tables
    assert (
        "sa.Column('id', snowid.sqlalchemy.SnowIdType(), autoincrement=False, nullable=False)"
        in source
    )

    command.upgrade(config, "head")
    engine = create_engine(url)
    try:
        columns = {c["name"]: c for c in inspect(engine).get_columns(table)}
        assert str(columns["id"]["type"]) == "BIGINT"
        assert columns["id"]["default"] is None
        assert not columns["id"].get("autoincrement", False)
        with pytest.raises(DBAPIError):
            _raw_insert_without_an_id(engine, table)

        from models import Order  # type: ignore[import-not-found]  # the project's own

        with Session(engine) as session, session.begin():
            session.add(Order(note="from the ORM"))
        with Session(engine) as session:
            (made,) = session.query(Order).all()
            assert isinstance(made.id, SnowId)
            assert made.id.datetime.year >= 2025
    finally:
        engine.dispose()
    command.check(config)  # raises when autogenerate would write another migration
    command.downgrade(config, "base")


@pytest.mark.usefixtures("models_unloaded")
def test_without_render_item_alembic_writes_a_migration_that_fails_with_name_error(
    tmp_path: Path, url: str, table: str
) -> None:
    """Why the hook exists: Alembic names the type's module but imports nothing."""
    config = _project(tmp_path / "migrations", url, table, "")
    command.revision(config, message="orders", autogenerate=True)
    (script,) = (tmp_path / "migrations" / "versions").glob("*.py")
    assert "import snowid" not in script.read_text()
    assert "drop_table" not in script.read_text().partition("def downgrade")[0]
    with pytest.raises(NameError, match="snowid"):
        command.upgrade(config, "head")


def _repair(dialect: str) -> str:
    """The documented ``upgrade()`` for ``dialect`` ("postgresql" or "mysql", which MariaDB
    is to SQLAlchemy), from the repair section of docs/sqlalchemy.md."""
    heading = "# PostgreSQL" if dialect == "postgresql" else "# MySQL and MariaDB"
    for block in _blocks():
        if block.startswith(heading + "\n"):
            return block
    raise AssertionError(f"no repair for {dialect} in {DOC}")


def test_the_documented_repair_takes_the_database_default_off_an_old_key(
    url: str, table: str
) -> None:
    """A table as the migrations written before issue 25 made it (BIGSERIAL on PostgreSQL,
    AUTO_INCREMENT on MariaDB): a raw insert without an id stores 1. After the documented
    ``upgrade()`` it is refused, and the rows already there keep their ids."""
    engine = create_engine(url)
    try:
        old = sa.Table(
            table,
            sa.MetaData(),
            sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=True),
            sa.Column("note", sa.String(200)),
        )
        old.create(engine)
        _raw_insert_without_an_id(engine, table)  # the harm the repair is for
        with engine.connect() as conn:
            assert conn.execute(text(f"SELECT id FROM {table}")).scalar() == 1
        code = _repair(engine.dialect.name).replace('"orders"', f'"{table}"')
        code = code.replace("orders_id_seq", f"{table}_id_seq")
        with engine.begin() as conn:
            namespace: dict[str, object] = {
                "op": Operations(MigrationContext.configure(conn)),
                "sa": sa,
            }
            exec(code, namespace)
            namespace["upgrade"]()  # type: ignore[operator]
        with pytest.raises(DBAPIError):
            _raw_insert_without_an_id(engine, table)
        with engine.connect() as conn:
            assert conn.execute(text(f"SELECT id, note FROM {table}")).all() == [(1, "raw")]
        columns = {c["name"]: c for c in inspect(engine).get_columns(table)}
        assert columns["id"]["default"] is None
        assert not columns["id"].get("autoincrement", False)
    finally:
        engine.dispose()
