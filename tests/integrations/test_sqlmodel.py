"""examples/sqlmodel_app.py: one SQLModel class keyed by SnowId, on SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from sqlalchemy import Engine, create_engine, inspect, text
from sqlmodel import Session, SQLModel, select

from snowid import SnowId
from tests.support.process_wide import engine_url, run_in_child, unique_name, worker_of

EXAMPLE = Path(__file__).parents[2] / "examples" / "sqlmodel_app.py"
SEED = 4194439168
MAX = 2**63 - 1


@pytest.fixture(scope="module")
def example() -> ModuleType:
    """Loaded once: its table registers itself in SQLModel's one global MetaData."""
    spec = importlib.util.spec_from_file_location("snowid_example_sqlmodel", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def engine(request: pytest.FixtureRequest, tmp_path: Path, example: ModuleType) -> Iterator[Engine]:
    url = engine_url(request.param, tmp_path)
    if url.startswith("sqlite"):
        made = create_engine(url)
        SQLModel.metadata.create_all(made)
        yield made
        made.dispose()
        return
    # PostgreSQL is shared: the example's table "hero" goes into a schema of this test's own.
    schema = unique_name("s")
    admin = create_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    made = create_engine(url, execution_options={"schema_translate_map": {None: schema}})
    try:
        SQLModel.metadata.create_all(made)
        yield made
    finally:
        made.dispose()
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


@pytest.mark.parametrize("value", [SEED, MAX])
def test_round_trip_as_strings_through_pydantic_and_the_table(
    process_wide: str, example: ModuleType, engine: Engine, value: int
) -> None:
    # model_validate, not model_validate_json: SQLModel skips validation in the latter for
    # table classes (an int field stays a str there too); the usual input model has no such gap.
    hero = example.Hero.model_validate(json.loads(f'{{"id": "{value}", "name": "x"}}'))
    assert type(hero.id) is SnowId
    assert hero.id == SnowId(value)
    with Session(engine) as session:
        session.add(hero)
        session.commit()
    with Session(engine) as session:
        found = session.get(example.Hero, str(value))
        assert found is not None
        assert type(found.id) is SnowId
        assert found.id == SnowId(value)
        assert json.loads(found.model_dump_json()) == {
            "id": str(value),
            "name": "x",
            "mentor_id": None,
        }


def test_invalid_ids_are_refused_by_validation(example: ModuleType) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as caught:
        example.Hero.model_validate({"id": "-7", "name": "x"})
    assert caught.value.errors()[0]["type"] == "snowid.id_negative"


def test_the_example_adds_heroes_and_finds_them_by_time(
    process_wide: str, example: ModuleType, engine: Engine
) -> None:
    before = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
    (mentor,) = example.add_heroes(engine, ["Deadpond"])
    pupils = example.add_heroes(engine, ["Spider-Boy", "Rusty-Man"], mentor=mentor.id)
    assert all(type(p.id) is SnowId for p in pupils)
    found = example.heroes_made_between(engine, before, dt.datetime.now(dt.UTC))
    assert [h.name for h in found] == ["Deadpond", "Spider-Boy", "Rusty-Man"]
    assert found[1].mentor_id == mentor.id
    assert example.heroes_made_between(engine, before - dt.timedelta(days=1), before) == []
    schema = (engine.get_execution_options().get("schema_translate_map") or {}).get(None)
    columns = inspect(engine).get_columns("hero", schema=schema)
    (column,) = [c for c in columns if c["name"] == "id"]
    assert column["default"] is None  # the id is the application's, never the database's


def test_defaults_are_unique_across_a_fork_and_4_threads(
    process_wide: str, example: ModuleType, engine: Engine
) -> None:
    import threading

    made: list[list[SnowId]] = [[] for _ in range(4)]

    def work(slot: int) -> None:
        made[slot] = [h.id for h in example.add_heroes(engine, [f"t{slot}"] * 25)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    def child() -> list[SnowId]:
        engine.dispose(close=False)
        return [h.id for h in example.add_heroes(engine, ["child"] * 25)]

    in_child = run_in_child(child)
    everything = [value for ids in made for value in ids] + in_child
    assert len(set(everything)) == 125
    assert worker_of(in_child[0]) != worker_of(made[0][0])
    with Session(engine) as session:
        assert len(session.exec(select(example.Hero)).all()) == 125


def test_the_example_runs_as_a_script(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={"SNOWID_LEASE": f"file://{tmp_path}/slots", "PATH": "/usr/bin:/bin"},
    )
    heroes = [json.loads(line) for line in done.stdout.splitlines()]
    assert [h["name"] for h in heroes] == ["Deadpond", "Spider-Boy", "Rusty-Man"]
    assert all(isinstance(h["id"], str) and h["id"].isdigit() for h in heroes)
    assert heroes[1]["mentor_id"] == heroes[0]["id"]
