"""The Django admin with a SnowIdField key: ids shown as decimal strings (never in a number
box a browser would round), the key shown read-only with its time and never taken from the
form (issue 18: a typed key used to be saved, and a changed one saved a copy of the row),
bad ids in the URL answered without an error page."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import django_site

django_site.setup()  # before anything imports a model

from django.contrib.auth.models import User  # noqa: E402
from django.test import Client  # noqa: E402

import snowid  # noqa: E402
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


def test_the_change_form_shows_the_key_read_only_with_its_time(staff: Client) -> None:
    """Issue 18 §5 changed this on purpose: the key was a text box; now it is text."""
    Order.objects.create(id=MAX, parent_id=SEED, note="last")
    page = _text(staff.get(f"/admin/djangoapp/order/{MAX}/change/"))
    assert 'name="id"' not in page  # no input for the key
    assert 'name="initial-id"' not in page  # nor Django's hidden copy of it
    assert f'<span class="snowid-id">{MAX}</span>' in page
    assert f'<time class="snowid-time" datetime="{MAX_TIME}"' in page
    box = page[page.index('name="parent_id"') - 200 : page.index('name="parent_id"') + 300]
    assert f'value="{SEED}"' in box  # another row's id stays a text box of digits
    assert 'type="text"' in box
    assert 'type="number"' not in page  # the admin's own number box is replaced


def test_editing_the_key_on_the_change_form_changes_nothing_and_copies_nothing(
    process_wide: str, staff: Client
) -> None:
    """Issue 18 §5: a posted key is ignored; the row is updated in place, not copied."""
    Order.objects.create(id=MAX, parent_id=SEED, note="old")
    response = staff.post(
        f"/admin/djangoapp/order/{MAX}/change/",
        {"id": str(SEED), "parent_id": "", "note": "new", "customer": ""},
    )
    assert response.status_code == 302, _text(response)
    assert list(Order.objects.values_list("id", "note")) == [(SnowId(MAX), "new")]


def test_the_add_form_draws_the_id_when_saved_and_ignores_a_typed_one(
    process_wide: str, staff: Client
) -> None:
    """Issue 18 §5 changed this on purpose: the add form used to save the id typed (or the
    one drawn when the page was opened); now it shows no id and the save draws one."""
    page = _text(staff.get("/admin/djangoapp/order/add/"))
    assert 'name="id"' not in page
    assert 'name="initial-id"' not in page
    assert "a new id, drawn when this is saved" in page
    before = snowid.next_id()
    response = staff.post(
        "/admin/djangoapp/order/add/",
        {"id": str(MAX), "parent_id": "", "note": "typed", "customer": ""},
    )
    assert response.status_code == 302, _text(response)
    saved = Order.objects.get(note="typed").id
    assert before < saved < snowid.next_id()  # drawn by the POST, not taken from it


def test_a_bad_typed_key_on_the_add_form_is_ignored_too(process_wide: str, staff: Client) -> None:
    """Issue 18 §5 changed this on purpose: "12abc" was refused; a key is no longer read."""
    response = staff.post(
        "/admin/djangoapp/order/add/",
        {"id": "12abc", "parent_id": "", "note": "typed", "customer": ""},
    )
    assert response.status_code == 302, _text(response)
    assert Order.objects.get(note="typed").id != SnowId(0)


def test_a_bad_id_column_on_the_add_form_is_refused_with_snowids_message(
    process_wide: str, staff: Client
) -> None:
    response = staff.post(
        "/admin/djangoapp/order/add/",
        {"parent_id": "12abc", "note": "typed", "customer": ""},
    )
    assert response.status_code == 200
    assert "12abc is not a whole number" in _text(response)
    assert not Order.objects.exists()


@pytest.mark.parametrize("bad", ["12abc", "-1", str(2**63), "9" * 30])
def test_a_bad_id_in_the_url_is_not_found_not_an_error(staff: Client, bad: str) -> None:
    response = staff.get(f"/admin/djangoapp/order/{bad}/change/", follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == "/admin/"  # "… doesn't exist. Perhaps it was deleted?"
