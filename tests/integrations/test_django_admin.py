"""The Django admin with a SnowIdField key: ids shown and typed as decimal strings (never
in a number box a browser would round), the id's time shown read-only, bad ids in the URL
answered without an error page."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import django_site

django_site.setup()  # before anything imports a model

from django.contrib.auth.models import User  # noqa: E402
from django.test import Client  # noqa: E402

from snowid import SnowId  # noqa: E402
from tests.integrations.djangoapp.models import Order  # noqa: E402

SEED = 4194439168
MAX = 2**63 - 1
MAX_TIME = "2080-07-10T17:30:30.208Z"

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def staff(client: Client) -> Client:
    user = User.objects.create_superuser("boss", "boss@example.invalid", "pw")
    client.force_login(user)
    return client


def _text(response: Any) -> str:
    return str(response.content.decode())


def test_the_change_list_shows_each_id_as_its_digits(staff: Client) -> None:
    Order.objects.create(id=MAX, parent_id=SEED, note="last")
    page = _text(staff.get("/admin/djangoapp/order/"))
    assert f"/admin/djangoapp/order/{MAX}/change/" in page
    assert f">{MAX}<" in page
    assert f">{SEED}<" in page  # the plain id column too


def test_the_change_form_has_a_text_box_of_digits_and_the_time_read_only(staff: Client) -> None:
    Order.objects.create(id=MAX, parent_id=SEED, note="last")
    page = _text(staff.get(f"/admin/djangoapp/order/{MAX}/change/"))
    box = page[page.index('name="id"') - 200 : page.index('name="id"') + 300]
    assert f'value="{MAX}"' in box
    assert 'type="text"' in box
    assert 'type="number"' not in page  # the admin's own number box is replaced
    assert f'<time class="snowid-time" datetime="{MAX_TIME}"' in page


def test_the_add_form_saves_the_id_typed_as_a_string(process_wide: str, staff: Client) -> None:
    response = staff.post(
        "/admin/djangoapp/order/add/",
        {"id": str(MAX), "parent_id": "", "note": "typed", "customer": ""},
    )
    assert response.status_code == 302, _text(response)
    assert Order.objects.get(note="typed").id == SnowId(MAX)


def test_the_add_form_refuses_a_bad_id_with_snowids_message(
    process_wide: str, staff: Client
) -> None:
    response = staff.post(
        "/admin/djangoapp/order/add/",
        {"id": "12abc", "parent_id": "", "note": "typed", "customer": ""},
    )
    assert response.status_code == 200
    assert "12abc is not a whole number" in _text(response)
    assert not Order.objects.exists()


@pytest.mark.parametrize("bad", ["12abc", "-1", str(2**63), "9" * 30])
def test_a_bad_id_in_the_url_is_not_found_not_an_error(staff: Client, bad: str) -> None:
    response = staff.get(f"/admin/djangoapp/order/{bad}/change/", follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == "/admin/"  # "… doesn't exist. Perhaps it was deleted?"
