"""Issue 18 §2: Django writes SnowIds as decimal strings through snowid's encoder, in
``JsonResponse(encoder=…)`` and ``serializers.serialize(…, cls=…)``, with the real Django."""

from __future__ import annotations

import json

import pytest

from tests.support import django_site

django_site.setup()  # before anything imports a model

from django.core import serializers  # noqa: E402
from django.core.serializers.json import DjangoJSONEncoder  # noqa: E402
from django.http import JsonResponse  # noqa: E402

from snowid import SnowId  # noqa: E402
from snowid.django import SnowIdJSONEncoder  # noqa: E402
from tests.integrations.djangoapp.models import Customer, Order  # noqa: E402

BIG = 2**63 - 1
SEED = 4194439168


def test_json_response_refuses_a_snowid_with_django_s_own_encoder() -> None:
    with pytest.raises(TypeError):
        JsonResponse({"id": SnowId(BIG)})


def test_json_response_with_snowid_s_encoder_writes_strings() -> None:
    """Django's own types still work: the encoder is a DjangoJSONEncoder subclass."""
    import datetime as dt

    assert issubclass(SnowIdJSONEncoder, DjangoJSONEncoder)
    when = dt.date(2026, 1, 2)
    response = JsonResponse({"id": SnowId(BIG), "on": when}, encoder=SnowIdJSONEncoder)
    assert json.loads(response.content) == {"id": str(BIG), "on": "2026-01-02"}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("encoder", [DjangoJSONEncoder, SnowIdJSONEncoder])
def test_serializers_serialize_writes_keys_and_foreign_keys_as_strings(
    encoder: type[DjangoJSONEncoder],
) -> None:
    """Works as is: Django's serializer writes a field it does not know (a SnowIdField)
    through ``value_to_string``, a str, so Django's own encoder never sees a SnowId; snowid's
    encoder changes nothing here."""
    customer = Customer.objects.create(id=BIG, name="c")
    Order.objects.create(id=SEED, customer=customer, parent_id=BIG)
    rows = json.loads(serializers.serialize("json", Order.objects.filter(id=SEED), cls=encoder))
    assert rows[0]["pk"] == str(SEED)
    assert rows[0]["fields"]["customer"] == str(BIG)
    assert rows[0]["fields"]["parent_id"] == str(BIG)
