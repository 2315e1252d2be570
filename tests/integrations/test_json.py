"""Issue 18 §2: a SnowId reaches JSON as a decimal string on every path that can carry it,
each through the real library (stdlib json, orjson, pydantic, FastAPI), never a number.

The table of docs/integrations.md ("SnowIds in JSON") has one row per test here."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from fastapi import FastAPI
from fastapi.encoders import jsonable_encoder
from fastapi.testclient import TestClient
from pydantic import BaseModel, TypeAdapter
from pydantic_core import PydanticSerializationError

import snowid
from snowid import SnowId

BIG = 2**63 - 1  # past 2^53: a JSON number would lose digits in JavaScript
SID = SnowId(BIG)
DATA = {"id": SID, "ids": [SnowId(4194439168), SID], "n": 7}
EXPECTED = {"id": str(BIG), "ids": ["4194439168", str(BIG)], "n": 7}


def test_stdlib_json_refuses_a_snowid_without_help() -> None:
    """Works only with snowid's encoder: SnowId is no int subclass, so json never writes
    it as a number by itself."""
    with pytest.raises(TypeError):
        json.dumps(DATA)


def test_stdlib_json_with_the_default_function() -> None:
    assert json.loads(json.dumps(DATA, default=snowid.json_default)) == EXPECTED


def test_stdlib_json_with_the_encoder_class() -> None:
    assert json.loads(json.dumps(DATA, cls=snowid.JSONEncoder)) == EXPECTED


def test_the_default_function_refuses_what_it_does_not_know_as_json_asks() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        json.dumps({"x": object()}, default=snowid.json_default)
    with pytest.raises(TypeError):
        json.dumps({"x": object()}, cls=snowid.JSONEncoder)


def test_orjson_with_the_default_function() -> None:
    assert orjson.loads(orjson.dumps(DATA, default=snowid.json_default)) == EXPECTED
    with pytest.raises(TypeError):
        orjson.dumps(DATA)  # orjson does not know it either without default=


def test_pydantic_writes_a_snowid_typed_any_as_a_string() -> None:
    """Works as is: pydantic-core serializes a value typed Any through the value's
    ``__pydantic_serializer__``; Python mode keeps the SnowId, as an annotated field does."""

    class Model(BaseModel):
        loose: Any
        typed: SnowId

    model = Model(loose=SID, typed=SID)
    assert json.loads(model.model_dump_json()) == {"loose": str(BIG), "typed": str(BIG)}
    assert model.model_dump() == {"loose": SID, "typed": SID}
    assert type(model.model_dump()["loose"]) is SnowId
    assert json.loads(TypeAdapter(dict[str, Any]).dump_json(DATA)) == EXPECTED


def test_pydantic_still_refuses_other_unknown_types() -> None:
    """The hook is the SnowId's own: nothing global changed in pydantic."""
    with pytest.raises(PydanticSerializationError):
        TypeAdapter(Any).dump_json(object())


def test_fastapi_jsonable_encoder_with_the_named_encoders() -> None:
    assert jsonable_encoder(DATA, custom_encoder=snowid.JSON_ENCODERS) == EXPECTED
    with pytest.raises(ValueError):  # noqa: PT011 - FastAPI's own bare ValueError
        jsonable_encoder(DATA)  # without them: FastAPI's fallbacks (dict(), vars()) fail


def _app() -> FastAPI:
    app = FastAPI()

    @app.get("/annotated")
    def annotated() -> dict[str, Any]:
        return DATA

    @app.get("/model", response_model=dict[str, Any])
    def model():  # type: ignore[no-untyped-def]  # what a user writes
        return DATA

    @app.get("/bare")
    def bare():  # type: ignore[no-untyped-def]  # what a user writes
        return DATA

    return app


@pytest.mark.parametrize("path", ["/annotated", "/model"])
def test_fastapi_returns_a_plain_dict_with_a_declared_return_type(path: str) -> None:
    """Works as is once the endpoint declares its return (``-> dict[str, Any]`` or
    ``response_model=``): FastAPI serializes through pydantic-core, which asks the SnowId."""
    with TestClient(_app()) as client:
        response = client.get(path)
    assert response.status_code == 200
    assert response.json() == EXPECTED


def test_fastapi_cannot_return_a_plain_dict_without_a_declared_type() -> None:
    """Cannot work without a global patch: with no return type FastAPI runs
    ``jsonable_encoder`` with no custom encoders, and its only hooks for unknown types are
    module-level dicts FastAPI does not document as an extension point. docs/integrations.md says to
    declare the return type; this test notices the day FastAPI changes that."""
    with (
        TestClient(_app(), raise_server_exceptions=False) as client,
    ):
        response = client.get("/bare")
    assert response.status_code == 500
