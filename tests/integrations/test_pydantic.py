"""SnowId as a pydantic v2 field type: strings on the wire, SnowId in Python, specific errors."""

from __future__ import annotations

import threading

import pytest
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

import snowid
from snowid import SnowId
from tests.support.process_wide import run_in_child, worker_of

SEED = 4194439168
MAX = 2**63 - 1  # JavaScript cannot hold it: as a JSON number it would come back changed


class Order(BaseModel):
    id: SnowId = Field(default_factory=snowid.next_id)
    customer_id: SnowId | None = None
    note: str = ""


class Reply(BaseModel):
    author_id: SnowId


@pytest.mark.parametrize("value", [SEED, MAX])
def test_round_trip_as_strings(value: int) -> None:
    text = f'{{"id": "{value}", "customer_id": "{SEED}"}}'
    order = Order.model_validate_json(text)
    assert order.id == SnowId(value)
    assert type(order.id) is SnowId
    assert order.model_dump_json() == f'{{"id":"{value}","customer_id":"{SEED}","note":""}}'
    assert order.model_dump(mode="json")["id"] == str(value)
    assert Order.model_validate_json(order.model_dump_json()) == order


def test_model_dump_keeps_the_snowid() -> None:
    dumped = Order(id=SEED).model_dump()
    assert dumped["id"] == SnowId(SEED)
    assert type(dumped["id"]) is SnowId


@pytest.mark.parametrize("value", [SnowId(SEED), SEED, str(SEED)])
def test_accepts_a_snowid_an_int_or_a_decimal_string(value: object) -> None:
    assert Order(id=value).id == SnowId(SEED)  # type: ignore[arg-type]
    assert Order.model_validate_json(f'{{"id": {SEED}}}').id == SnowId(SEED)


@pytest.mark.parametrize(
    ("value", "kind", "words"),
    [
        (-1, "snowid.id_negative", "is negative"),
        (str(MAX + 1), "snowid.id_sign_bit_set", "sign bit"),
        (2**64, "snowid.id_too_large", "more than 64 bits"),
        (4194439168.0, "snowid.id_float", "floating-point"),
        ("12abc", "snowid.not_an_integer", "not a whole number"),
        ("", "snowid.empty_value", "is empty"),
        (True, "snowid.not_an_integer", "not a whole number"),
        (None, "snowid.not_an_integer", "not a whole number"),
        ([SEED], "snowid.not_an_integer", "not a whole number"),
    ],
)
def test_invalid_values_give_snowids_specific_message(value: object, kind: str, words: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Reply(author_id=value)  # type: ignore[arg-type]
    (error,) = caught.value.errors()
    assert error["type"] == kind
    assert error["loc"] == ("author_id",)
    assert error["msg"].startswith("author_id ")  # names the field ...
    assert words in error["msg"]  # ... says what is wrong ...
    if "range" in error["msg"]:
        assert "0..9223372036854775807" in error["msg"]  # ... and the allowed range


def test_a_json_number_beyond_2_53_is_refused_rather_than_trusted() -> None:
    with pytest.raises(ValidationError) as caught:
        Order.model_validate_json('{"id": 9.223372036854776e18}')
    assert caught.value.errors()[0]["type"] == "snowid.id_float"


def test_json_schema_is_a_string_of_digits_with_a_description() -> None:
    schema = Order.model_json_schema()["properties"]["id"]
    assert schema["type"] == "string"
    assert schema["pattern"] == "^[0-9]{1,19}$"
    assert "decimal string" in schema["description"]
    assert TypeAdapter(SnowId).json_schema()["pattern"] == "^[0-9]{1,19}$"
    serialized = TypeAdapter(SnowId).json_schema(mode="serialization")
    assert serialized["type"] == "string"


def test_containers_of_snowids() -> None:
    adapter = TypeAdapter(list[SnowId])
    ids = adapter.validate_json(f'["{SEED}", "{MAX}"]')
    assert ids == [SnowId(SEED), SnowId(MAX)]
    assert adapter.dump_json(ids) == f'["{SEED}","{MAX}"]'.encode()


def test_default_factory_uses_the_process_wide_generator_across_4_threads(
    process_wide: str,
) -> None:
    results: list[list[SnowId]] = [[] for _ in range(4)]

    def work(slot: int) -> None:
        results[slot] = [Order().id for _ in range(2000)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    everything = [value for ids in results for value in ids]
    assert len(set(everything)) == 8000


def test_default_factory_in_a_forked_child_gives_other_ids(process_wide: str) -> None:
    parent = [Order().id for _ in range(500)]
    child = run_in_child(lambda: [Order().id for _ in range(500)])
    assert len(set(parent) | set(child)) == 1000
    assert worker_of(parent[0]) != worker_of(child[0])
