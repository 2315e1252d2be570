"""snowid.sqlalchemy on SQLite, PostgreSQL (psycopg 3) and MariaDB (PyMySQL)."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy import (
    BigInteger,
    Column,
    Engine,
    MetaData,
    String,
    Table,
    create_engine,
    insert,
    inspect,
    literal,
    select,
)
from sqlalchemy.exc import StatementError
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

import snowid
from snowid import SnowId
from snowid.errors import FloatIdError, NegativeIdError, NotAnIntegerError, NotConfiguredError
from snowid.sqlalchemy import SnowIdType, created_between, new_id, render_item
from tests.support.process_wide import engine_url, run_in_child, unique_name, worker_of

SEED = 4194439168
MAX = 2**63 - 1
# PostgreSQL and MariaDB are servers: their cases are slow (tests/support/slow.py).
KINDS = [
    "sqlite",
    pytest.param("postgresql", marks=pytest.mark.slow),
    pytest.param("mariadb", marks=pytest.mark.slow),
]


@pytest.fixture(params=KINDS)
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    made = create_engine(engine_url(request.param, tmp_path))
    yield made
    made.dispose()


@pytest.fixture
def table(engine: Engine) -> Iterator[Table]:
    metadata = MetaData()
    made = Table(
        unique_name(),
        metadata,
        Column("id", SnowIdType, primary_key=True, default=new_id),
        Column("parent_id", SnowIdType, nullable=True),
        Column("name", String(40)),
    )
    metadata.create_all(engine)
    yield made
    metadata.drop_all(engine)


def _ids(engine: Engine, table: Table) -> list[SnowId]:
    with engine.connect() as conn:
        return list(conn.scalars(select(table.c.id).order_by(table.c.id)))


# --- values in, values out ------------------------------------------------------------


@pytest.mark.parametrize("value", [SEED, MAX])
def test_round_trip_of_the_seed_example_and_2_63_minus_1_given_as_strings(
    engine: Engine, table: Table, value: int
) -> None:
    with engine.begin() as conn:
        conn.execute(insert(table), [{"id": str(value), "parent_id": str(value), "name": "x"}])
        row = conn.execute(select(table).where(table.c.id == str(value))).one()
        stored = conn.execute(select(table.c.id.cast(BigInteger))).scalar_one()
    assert row.id == SnowId(value)
    assert type(row.id) is SnowId
    assert row.parent_id == SnowId(value)
    assert str(row.id) == str(value)
    assert stored == value  # the column holds the id's value as a signed 64-bit integer


def test_null_stays_null(process_wide: str, engine: Engine, table: Table) -> None:
    with engine.begin() as conn:
        conn.execute(insert(table).values(name="orphan"))
        assert conn.execute(select(table.c.parent_id)).scalar_one() is None


@pytest.mark.parametrize(
    ("value", "error"),
    [(-1, NegativeIdError), (4194439168.0, FloatIdError), ("12abc", NotAnIntegerError)],
)
def test_invalid_values_are_refused_before_the_database_with_the_specific_error(
    engine: Engine, table: Table, value: object, error: type[Exception]
) -> None:
    with engine.begin() as conn, pytest.raises(StatementError) as caught:
        conn.execute(insert(table).values(id=value))
    assert isinstance(caught.value.orig, error)
    assert str(caught.value.orig) in str(caught.value)
    assert _ids(engine, table) == []


def test_a_literal_renders_as_the_number(engine: Engine) -> None:
    compiled = select(literal(SnowId(MAX), SnowIdType)).compile(
        engine, compile_kwargs={"literal_binds": True}
    )
    assert str(MAX) in str(compiled)


# --- defaults from the process-wide generator -------------------------------------------


def test_core_insert_bulk_values_and_executemany_take_the_default(
    process_wide: str, engine: Engine, table: Table
) -> None:
    with engine.begin() as conn:
        one = conn.execute(insert(table).values(name="one")).inserted_primary_key
        conn.execute(insert(table).values([{"name": f"multi {i}"} for i in range(50)]))
        conn.execute(insert(table), [{"name": f"many {i}"} for i in range(50)])
    ids = _ids(engine, table)
    assert len(ids) == 101 == len(set(ids))
    assert one is not None
    assert one[0] in ids
    assert all(type(value) is SnowId for value in ids)


def _orm_model(name: str) -> type[Any]:
    """A mapped class on a fresh table, with its own registry (each test gets its own)."""

    class Base(DeclarativeBase):
        pass

    class Order(Base):
        __tablename__ = name
        id: Mapped[SnowId] = mapped_column(SnowIdType, primary_key=True, default=new_id)
        customer_id: Mapped[SnowId | None] = mapped_column(SnowIdType)
        note: Mapped[str] = mapped_column(String(40), default="")

    return Order


def test_orm_add_all_and_reads_give_snowids(process_wide: str, engine: Engine) -> None:
    order = _orm_model(unique_name())
    order.__table__.create(engine)
    try:
        with Session(engine) as session:
            items = [order(customer_id=SnowId(SEED), note=str(i)) for i in range(20)]
            session.add_all(items)
            session.commit()
            made = [item.id for item in items]
        assert len(set(made)) == 20
        assert all(type(value) is SnowId for value in made)
        with Session(engine) as session:
            found = session.get(order, made[3])
            assert found is not None
            assert found.note == "3"
            assert found.customer_id == SnowId(SEED)
            assert session.scalars(select(order.id).order_by(order.id)).all() == sorted(made)
    finally:
        order.__table__.drop(engine)


def test_defaults_are_unique_across_4_threads(
    process_wide: str, engine: Engine, table: Table
) -> None:
    errors: list[BaseException] = []

    def work(slot: int) -> None:
        try:
            for i in range(25):
                with engine.begin() as conn:
                    conn.execute(
                        insert(table).values([{"name": f"{slot}/{i}/{j}"} for j in range(4)])
                    )
        except BaseException as error:  # a duplicate key would land here
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    ids = _ids(engine, table)
    assert len(ids) == 400 == len(set(ids))


def test_defaults_are_unique_across_a_fork(process_wide: str, engine: Engine, table: Table) -> None:
    def insert_rows(tag: str) -> None:
        with engine.begin() as conn:
            conn.execute(insert(table), [{"name": f"{tag} {i}"} for i in range(200)])

    insert_rows("parent")

    def child() -> None:
        engine.dispose(close=False)  # the parent's pooled connections are not the child's
        insert_rows("child")

    run_in_child(child)
    ids = _ids(engine, table)
    assert len(ids) == 400 == len(set(ids))
    assert len({worker_of(value) for value in ids}) == 2


# --- time ranges ---------------------------------------------------------------------


def test_created_between_selects_exactly_the_ids_of_the_window(
    engine: Engine, table: Table
) -> None:
    start = dt.datetime(2024, 5, 1, tzinfo=dt.UTC)
    end = dt.datetime(2024, 5, 2, tzinfo=dt.UTC)

    def made_at(when: dt.datetime, machine: int = 0, sequence: int = 0) -> SnowId:
        return SnowId.from_datetime(when, datacenter=31, machine=machine, sequence=sequence)

    one_ms = dt.timedelta(milliseconds=1)
    inside = [
        made_at(start),  # the first millisecond, lowest possible id
        made_at(start + dt.timedelta(hours=5), machine=3, sequence=7),
        made_at(end, machine=31, sequence=4095),  # the last millisecond, highest possible id
    ]
    outside = [made_at(start - one_ms, machine=31, sequence=4095), made_at(end + one_ms)]
    with engine.begin() as conn:
        conn.execute(insert(table), [{"id": value} for value in inside + outside])
        found = conn.scalars(
            select(table.c.id).where(created_between(table.c.id, start, end)).order_by(table.c.id)
        ).all()
        in_ms = conn.scalars(
            select(table.c.id).where(
                created_between(table.c.id, inside[1].timestamp, inside[1].timestamp)
            )
        ).all()
    assert found == inside
    assert in_ms == [inside[1]]


def test_created_between_cuts_a_window_reaching_past_the_layout_as_django_does(
    engine: Engine, table: Table
) -> None:
    """A window from before 2010 selects every id up to its end (snowid.django's
    created_between did; this one raised TimestampBeforeEpochError), and a window with
    no id in it selects nothing."""
    first = SnowId(0)  # the epoch's first millisecond
    later = SnowId.from_datetime(dt.datetime(2024, 5, 2, tzinfo=dt.UTC), datacenter=1, machine=1)
    before_snowflake = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
    with engine.begin() as conn:
        conn.execute(insert(table), [{"id": first}, {"id": later}])
        early = conn.scalars(
            select(table.c.id).where(
                created_between(
                    table.c.id, before_snowflake, dt.datetime(2024, 5, 1, tzinfo=dt.UTC)
                )
            )
        ).all()
        none = conn.scalars(
            select(table.c.id).where(created_between(table.c.id, before_snowflake, 0))
        ).all()
    assert early == [first]
    assert none == []


def test_created_between_compiles_to_between(engine: Engine, table: Table) -> None:
    clause = created_between(table.c.id, 1288834975657, 1288834975657)
    assert "BETWEEN" in str(clause.compile(engine))


def test_the_key_is_never_made_by_the_database(engine: Engine, table: Table) -> None:
    """No BIGSERIAL / AUTO_INCREMENT behind the key: unconfigured, an insert fails, it does
    not quietly get a database-made number."""
    (column,) = [c for c in inspect(engine).get_columns(table.name) if c["name"] == "id"]
    assert column["default"] is None
    assert not column.get("autoincrement", False)
    assert str(column["type"]).upper() == "BIGINT"
    snowid.process._default._reset()
    with engine.begin() as conn, pytest.raises(StatementError) as caught:
        conn.execute(insert(table).values(name="no generator"))
    assert isinstance(caught.value.orig, NotConfiguredError)


class _Base(DeclarativeBase):
    type_annotation_map = {SnowId: SnowIdType}  # noqa: RUF012 - SQLAlchemy's own protocol


class _Annotated(_Base):
    __tablename__ = "annotated"
    id: Mapped[SnowId] = mapped_column(primary_key=True)  # the type from the map


class _Mapped(_Base):
    __tablename__ = "mapped"
    id: Mapped[SnowId] = mapped_column(SnowIdType, primary_key=True)


def _keys_without_a_default() -> list[Table]:
    """A SnowIdType key with no Python default, as Alembic writes a migration's columns and
    as a model that forgot ``default=new_id`` (or SQLModel's ``default_factory``) has it."""
    metadata = MetaData()
    return [
        Table("by_class", metadata, Column("id", SnowIdType, primary_key=True)),
        Table("by_instance", metadata, Column("id", SnowIdType(), primary_key=True)),
        Table("not_null", metadata, Column("id", SnowIdType(), primary_key=True, nullable=False)),
        _Annotated.__table__,  # type: ignore[list-item]
        _Mapped.__table__,  # type: ignore[list-item]
        Table("src", MetaData(), Column("id", SnowIdType, primary_key=True)).to_metadata(
            MetaData()
        ),  # a copy, as Alembic and table reflection make
    ]


@pytest.mark.parametrize("dialect", ["postgresql", "mysql", "mariadb", "sqlite"])
def test_a_key_without_a_default_gets_no_sequence_in_any_dialect(dialect: str) -> None:
    """Issue 25 §3: SQLAlchemy makes an integer key with no default BIGSERIAL (PostgreSQL) or
    AUTO_INCREMENT (MySQL, MariaDB); a SnowIdType key is never one, however declared."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.schema import CreateTable

    made = make_url(f"{dialect}://").get_dialect()()  # no driver or server needed
    for table in _keys_without_a_default():
        ddl = str(CreateTable(table).compile(dialect=made)).upper()
        assert "BIGINT NOT NULL" in ddl, (table.name, ddl)
        for word in ("SERIAL", "AUTO_INCREMENT", "AUTOINCREMENT", "IDENTITY", "NEXTVAL"):
            assert word not in ddl, (table.name, ddl)
        assert table.autoincrement_column is None
        assert table.c.id.autoincrement is False


@pytest.mark.parametrize("asked", [True, "ignore_fk"])
def test_asking_a_snowidtype_column_for_autoincrement_is_refused(asked: object) -> None:
    from sqlalchemy.exc import ArgumentError

    with pytest.raises(ArgumentError) as caught:
        Column("id", SnowIdType, primary_key=True, autoincrement=asked)  # type: ignore[arg-type]
    assert f"a SnowIdType column cannot be autoincrement={asked!r}" in str(caught.value)
    assert "November 2010" in str(caught.value)


def test_a_key_without_a_default_is_not_filled_by_the_database(engine: Engine) -> None:
    """A table made by ``create_all`` from a key with no default: an INSERT without an id
    fails, rather than storing 1, 2, 3 (ids that read as November 2010)."""
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    name = unique_name()
    metadata = MetaData()
    Table(name, metadata, Column("id", SnowIdType, primary_key=True), Column("note", String(9)))
    metadata.create_all(engine)
    try:
        with engine.begin() as conn:
            if engine.dialect.name == "mysql":  # the server's default; without it 0 is stored
                conn.execute(text("SET SESSION sql_mode = 'STRICT_TRANS_TABLES'"))
            with pytest.raises(DBAPIError):
                conn.execute(text(f"INSERT INTO {name} (note) VALUES ('raw')"))
        with engine.connect() as conn:
            assert conn.execute(text(f"SELECT count(*) FROM {name}")).scalar() == 0
    finally:
        metadata.drop_all(engine)


def test_render_item_names_snowidtype_with_its_import_and_leaves_other_items_to_alembic() -> None:
    """The Alembic hook without Alembic: what tests/integrations/test_alembic.py runs for real."""
    context = SimpleNamespace(imports=set())
    rendered = render_item("type", SnowIdType(), context)  # type: ignore[arg-type]
    assert rendered == "snowid.sqlalchemy.SnowIdType()"
    assert context.imports == {"import snowid.sqlalchemy"}
    assert render_item("type", BigInteger(), context) is False  # type: ignore[arg-type]
    assert render_item("column", Column("id", SnowIdType), context) is False  # type: ignore[arg-type]
