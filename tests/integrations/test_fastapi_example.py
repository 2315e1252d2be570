"""examples/fastapi_app.py through FastAPI's TestClient: ids in and out as strings."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from fastapi.testclient import TestClient

from snowid import SnowId

EXAMPLE = Path(__file__).parents[2] / "examples" / "fastapi_app.py"
SEED = 4194439168
MAX = 2**63 - 1


@pytest.fixture
def example(process_wide: str) -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("snowid_example_fastapi", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the models' annotations through it
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


@pytest.fixture
def client(example: ModuleType) -> Iterator[TestClient]:
    with TestClient(example.app) as test_client:
        yield test_client


def test_created_ids_go_out_as_strings_and_come_back_by_path(client: TestClient) -> None:
    created = client.post("/notes", json={"text": "hello"})
    assert created.status_code == 201
    body = created.json()
    assert isinstance(body["id"], str)
    assert body["id"].isdigit()
    assert body["created"] == SnowId(int(body["id"])).datetime.isoformat().replace("+00:00", "Z")
    fetched = client.get(f"/notes/{body['id']}")
    assert fetched.status_code == 200
    assert fetched.json() == body


@pytest.mark.parametrize("value", [SEED, MAX])
def test_stored_ids_round_trip_as_strings(
    client: TestClient, example: ModuleType, value: int
) -> None:
    example.NOTES[SnowId(value)] = example.Note(id=value, text="seed")
    answer = client.get(f"/notes/{value}")
    assert answer.status_code == 200
    assert answer.json()["id"] == str(value)  # exactly: no digit lost to a float
    reply = client.post("/notes", json={"text": "re", "reply_to": str(value)})
    assert reply.status_code == 201
    assert reply.json()["reply_to"] == str(value)


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("/notes/-1", "is negative"),
        ("/notes/9223372036854775808", "sign bit"),
        ("/notes/12abc", "not a whole number"),
        ("/notes?since_id=1.5", "not a whole number"),
    ],
)
def test_a_bad_id_in_the_path_or_query_is_a_422_with_snowids_message(
    client: TestClient, path: str, words: str
) -> None:
    answer = client.get(path)
    assert answer.status_code == 422
    (detail,) = answer.json()["detail"]
    assert detail["type"].startswith("snowid.")
    assert words in detail["msg"]


def test_a_float_in_the_body_is_refused(client: TestClient) -> None:
    answer = client.post("/notes", json={"text": "re", "reply_to": 4194439168.0})
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["type"] == "snowid.id_float"


def test_paging_by_since_id_follows_creation_order(client: TestClient) -> None:
    ids = [client.post("/notes", json={"text": str(i)}).json()["id"] for i in range(5)]
    assert [n["id"] for n in client.get("/notes").json()] == ids
    after = client.get("/notes", params={"since_id": ids[1]}).json()
    assert [n["id"] for n in after] == ids[2:]


def test_openapi_describes_ids_as_strings_of_digits(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    note = document["components"]["schemas"]["Note"]["properties"]["id"]
    assert note["type"] == "string"
    assert note["pattern"] == "^[0-9]{1,19}$"
    (parameter,) = document["paths"]["/notes/{note_id}"]["get"]["parameters"]
    assert parameter["schema"]["type"] == "string"
    assert parameter["schema"]["pattern"] == "^[0-9]{1,19}$"
