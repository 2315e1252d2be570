"""snowid.rest_framework with DRF's APIClient on SQLite and PostgreSQL: ids written as
strings (keys, foreign keys, a declared PrimaryKeyRelatedField), a string or an int read,
every bad id a 400 on its field with snowid's message and no row saved, the key read-only
unless a serializer opts in, and a model keyed by Django's own integer key serialised
exactly as without snowid."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support import django_site

django_site.setup()  # before anything imports a model

from rest_framework import serializers  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from snowid import SnowId  # noqa: E402
from snowid.rest_framework import SnowIdSerializerField  # noqa: E402
from tests.integrations.djangoapp.api import (  # noqa: E402
    KeyedOrderSerializer,
    LabelSerializer,
    LookupSerializer,
    OrderSerializer,
)
from tests.integrations.djangoapp.models import Customer, Label, Order  # noqa: E402

SEED = 4194439168
MAX = 2**63 - 1

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True, databases="__all__")]

BAD = [  # (value, what snowid's message says); "" when DRF's own words are fine
    ("-5", "negative"),
    ("1.5", "whole number"),
    (1.5, "floating-point"),
    ("abc", "whole number"),
    (str(2**63), "sign bit"),
    (2**63, "sign bit"),
    ("9" * 30, "more than 64 bits"),
    (-1, "negative"),
    (True, ""),
    ("x" * 10_000, "whole number"),
]


@pytest.fixture(params=django_site.ALIASES)
def api(request: pytest.FixtureRequest) -> Iterator[APIClient]:
    """An APIClient whose requests go to SQLite ("default") or PostgreSQL ("postgres")."""
    django_site.need_alias(request.param)
    token = django_site.using.set(str(request.param))
    try:
        yield APIClient()
    finally:
        django_site.using.reset(token)


def _post(api: APIClient, url: str, body: dict[str, Any]) -> Any:
    return api.post(url, body, format="json")


def test_keys_foreign_keys_and_id_columns_are_written_as_strings(
    process_wide: str, api: APIClient
) -> None:
    customer = _post(api, "/api/customers/", {"name": "c"})
    assert customer.status_code == 201, customer.content
    key = customer.json()["id"]
    assert isinstance(key, str)
    assert SnowId(int(key)) == Customer.objects.get().id
    made = _post(api, "/api/orders/", {"customer": key, "parent_id": str(MAX), "note": "n"})
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["customer"] == key
    assert body["parent_id"] == str(MAX)
    assert isinstance(body["id"], str)
    listed = api.get("/api/orders/").json()
    assert listed == [body]
    assert b'"id":"' in api.get(f"/api/orders/{body['id']}/").content  # never a JSON number


def test_an_id_is_read_from_a_string_or_an_int(process_wide: str, api: APIClient) -> None:
    customer = Customer.objects.create(name="c")
    for given in (int(customer.id), str(customer.id)):
        made = _post(api, "/api/orders/", {"customer": given, "parent_id": SEED})
        assert made.status_code == 201, made.content
        assert made.json()["customer"] == str(customer.id)
        assert made.json()["parent_id"] == str(SEED)


@pytest.mark.parametrize(("bad", "says"), BAD)
def test_every_bad_id_is_a_400_on_its_field_and_saves_nothing(
    process_wide: str, api: APIClient, bad: object, says: str
) -> None:
    """The key (of a serializer that takes it), a foreign key and an id column each answer
    for the bad value by name."""
    fields = ("id", "customer", "parent_id")
    answer = _post(api, "/api/keyed-orders/", {**dict.fromkeys(fields, bad), "note": "bad"})
    assert answer.status_code == 400, answer.content
    errors = answer.json()
    assert sorted(errors) == sorted(fields)
    for field in fields if says else ():
        assert says in errors[field][0]
        assert errors[field][0].lower().startswith(f"{field} {bad}".lower()[:30])
    assert not Order.objects.exists()


def test_an_empty_string_is_null_where_the_column_may_be_null(
    process_wide: str, api: APIClient
) -> None:
    """As DRF does for relations and Django's forms for every field: "" is "no value"."""
    made = _post(api, "/api/orders/", {"customer": "", "parent_id": "", "note": "n"})
    assert made.status_code == 201, made.content
    assert made.json()["customer"] is made.json()["parent_id"] is None
    key = _post(api, "/api/keyed-orders/", {"id": "", "note": "n"})
    assert key.status_code == 400
    assert list(key.json()) == ["id"]


def test_the_key_is_read_only_unless_the_serializer_opts_in(
    process_wide: str, api: APIClient
) -> None:
    """Issue 25 §3: a ModelSerializer shows a SnowIdField key and never takes one, as the
    admin's forms do: a client cannot choose a new row's id (any number at all, one from
    another table or from the future). A key sent on create or update is ignored."""
    assert OrderSerializer().fields["id"].read_only
    made = _post(api, "/api/orders/", {"id": str(SEED), "note": "n"})
    assert made.status_code == 201, made.content
    drawn = made.json()["id"]
    assert drawn != str(SEED)
    assert SnowId(int(drawn)) == Order.objects.get().id
    moved = api.put(f"/api/orders/{drawn}/", {"id": str(MAX), "note": "m"}, format="json")
    assert moved.status_code == 200, moved.content
    assert list(Order.objects.values_list("id", "note")) == [(SnowId(int(drawn)), "m")]


def test_a_serializer_that_opts_in_takes_a_key_on_create_or_draws_one(
    process_wide: str, api: APIClient
) -> None:
    """``extra_kwargs = {"id": {"read_only": False}}``: the key is taken when sent (a
    taken one is a 400, DRF's unique check) and drawn when not."""
    field = KeyedOrderSerializer().fields["id"]
    assert not field.read_only
    assert not field.required
    chosen = _post(api, "/api/keyed-orders/", {"id": str(SEED), "note": "chosen"})
    assert chosen.status_code == 201, chosen.content
    assert chosen.json()["id"] == str(SEED)
    drawn = _post(api, "/api/keyed-orders/", {"note": "drawn"})
    assert drawn.status_code == 201, drawn.content
    assert drawn.json()["id"] != str(SEED)
    again = _post(api, "/api/keyed-orders/", {"id": str(SEED), "note": "again"})
    assert again.status_code == 400
    assert list(again.json()) == ["id"]
    assert Order.objects.count() == 2


def test_an_update_may_send_the_key_again_but_not_change_it(
    process_wide: str, api: APIClient
) -> None:
    """As the admin (issue 18 §5), where a serializer takes the key: saving a row under
    another key would insert a copy."""
    order = Order.objects.create(note="old")
    url = f"/api/keyed-orders/{order.id}/"
    same = api.put(url, {"id": str(order.id), "note": "new"}, format="json")
    assert same.status_code == 200, same.content
    moved = api.put(url, {"id": str(SEED), "note": "copy"}, format="json")
    assert moved.status_code == 400
    assert f"{SEED} cannot replace this row's id {order.id}" in moved.json()["id"][0]
    assert list(Order.objects.values_list("id", "note")) == [(order.id, "new")]


def test_an_unknown_foreign_key_is_a_400(process_wide: str, api: APIClient) -> None:
    answer = _post(api, "/api/orders/", {"customer": str(SEED)})
    assert answer.status_code == 400
    assert list(answer.json()) == ["customer"]
    assert not Order.objects.exists()


def test_a_declared_primary_key_related_field_writes_and_reads_strings(
    process_wide: str, api: APIClient
) -> None:
    customer = Customer.objects.create(name="c")
    assert LookupSerializer({"customer": customer}).data == {"customer": str(customer.id)}
    read = LookupSerializer(data={"customer": str(customer.id)})
    assert read.is_valid(), read.errors
    assert read.validated_data["customer"] == customer
    bad = LookupSerializer(data={"customer": "-5"})
    assert not bad.is_valid()
    assert "negative" in str(bad.errors["customer"][0])


def test_a_model_keyed_by_an_integer_is_serialised_as_without_snowid(
    process_wide: str, api: APIClient
) -> None:
    """Beside the SnowId-keyed models, an AutoField key and a foreign key to it stay numbers
    and keep DRF's own fields; only the foreign key to a SnowId-keyed model is a string."""
    fields = LabelSerializer().fields
    assert isinstance(fields["id"], serializers.IntegerField)  # DRF's own mapping
    assert type(fields["parent"]) is serializers.PrimaryKeyRelatedField
    assert isinstance(OrderSerializer().fields["id"], SnowIdSerializerField)
    order = Order.objects.create(note="o")
    top = _post(api, "/api/labels/", {"name": "top", "order": str(order.id)})
    assert top.status_code == 201, top.content
    child = _post(api, "/api/labels/", {"name": "child", "parent": top.json()["id"]})
    assert child.status_code == 201, child.content
    assert isinstance(top.json()["id"], int)
    assert top.json()["order"] == str(order.id)
    assert child.json()["parent"] == top.json()["id"]
    assert type(child.json()["parent"]) is int
    wrong = _post(api, "/api/labels/", {"parent": "abc"})
    assert wrong.status_code == 400
    assert "Incorrect type" in wrong.json()["parent"][0]  # DRF's own message, untouched
    assert Label.objects.count() == 2


def test_the_field_alone() -> None:
    field = SnowIdSerializerField()
    assert field.to_representation(SnowId(MAX)) == str(MAX)
    assert field.run_validation("4194439168") == SnowId(SEED)
    assert field.run_validation(SEED) == SnowId(SEED)
    with pytest.raises(serializers.ValidationError) as caught:
        field.run_validation("-5")
    assert caught.value.detail[0].code == "id_negative"
    with pytest.raises(serializers.ValidationError) as caught:  # as pydantic and the model
        field.run_validation(" 4194439168 ")
    assert caught.value.detail[0].code == "contains_spaces"
    assert str(caught.value.detail[0]) == (
        "ID ' 4194439168 ' contains spaces; give the digits alone"
    )
