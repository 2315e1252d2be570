"""SnowId as a pydantic v2 field type: strings on the wire, SnowId in Python, specific errors."""

from __future__ import annotations

import json
import threading

import pytest
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, validate_call

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


@pytest.mark.parametrize("value", [0, MAX, "0", "007", str(MAX), "0" * 19])
def test_the_fast_path_accepts_the_edges_of_the_range(value: int | str) -> None:
    """Ints and decimal strings are taken inline (no call to the general rules): both ends
    of the range and leading zeros still give the right id."""
    assert Reply(author_id=value).author_id == SnowId(int(value))  # type: ignore[arg-type]
    assert type(Reply(author_id=value).author_id) is SnowId  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (MAX + 1, "snowid.id_sign_bit_set"),
        ("9" * 19, "snowid.id_sign_bit_set"),
        ("9" * 20, "snowid.id_too_large"),
        (" 1", "snowid.contains_spaces"),  # issue 18 §8: its own wording, as from_str's
        ("1\n", "snowid.contains_spaces"),
        ("+1", "snowid.not_an_integer"),
        ("1_0", "snowid.not_an_integer"),
        ("\u0661\u0662", "snowid.not_an_integer"),  # Arabic-Indic digits: int() reads them
    ],
)
def test_the_fast_path_refuses_what_the_rules_refuse(value: object, kind: str) -> None:
    """What the inline checks let through must be a subset of snowid's rules: an input
    just outside them (over the range, a space, a sign, a separator, non-ASCII digits)
    still gets the specific error, through pydantic and through its JSON parser."""
    with pytest.raises(ValidationError) as caught:
        Reply(author_id=value)  # type: ignore[arg-type]
    assert caught.value.errors()[0]["type"] == kind
    with pytest.raises(ValidationError) as caught:
        Reply.model_validate_json(json.dumps({"author_id": value}))
    assert caught.value.errors()[0]["type"] == kind


@pytest.mark.parametrize(
    "config",
    [
        ConfigDict(strict=True),
        ConfigDict(str_strip_whitespace=True),
        ConfigDict(regex_engine="python-re"),
        ConfigDict(coerce_numbers_to_str=True),
        ConfigDict(str_max_length=3),
    ],
)
def test_a_models_config_neither_narrows_nor_widens_what_an_id_is(config: ConfigDict) -> None:
    """The three accepted forms stay accepted, and a look-alike stays refused, whatever the
    model's config says about strings and strictness."""

    class Strictish(BaseModel):
        model_config = config
        id: SnowId

    for value in (SnowId(SEED), SEED, str(SEED)):
        assert Strictish.model_validate({"id": value}).id == SnowId(SEED)
        assert Strictish.model_validate({"id": value}, strict=True).id == SnowId(SEED)
    for bad in (f" {SEED} ", f"{SEED}\n", float(SEED), True):
        with pytest.raises(ValidationError) as caught:
            Strictish.model_validate({"id": bad})
        assert caught.value.errors()[0]["type"].startswith("snowid.")


def test_each_error_names_its_own_field() -> None:
    """The field's name is bound when pydantic builds each field's schema (not read per
    value): two SnowId fields, a list of them and a function argument each name their own."""

    class Two(BaseModel):
        first: SnowId
        second: SnowId
        others: list[SnowId] = []

    with pytest.raises(ValidationError) as caught:
        Two(first=-1, second="x", others=[SEED, 2.5])  # type: ignore[arg-type,list-item]
    messages = {error["loc"]: error["msg"] for error in caught.value.errors()}
    assert messages[("first",)].startswith("first ")
    assert messages[("second",)].startswith("second ")
    assert messages[("others", 1)].startswith("others ")

    @validate_call
    def fetch(order_id: SnowId) -> SnowId:
        return order_id

    assert fetch(str(SEED)) == SnowId(SEED)  # type: ignore[arg-type]
    with pytest.raises(ValidationError) as caught:
        fetch(-1)  # type: ignore[arg-type]
    assert caught.value.errors()[0]["msg"].startswith("order_id ")
    with pytest.raises(ValidationError) as caught:
        TypeAdapter(SnowId).validate_python("x")
    assert caught.value.errors()[0]["msg"].lower().startswith("id ")  # no field: generic name


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
