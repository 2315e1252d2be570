"""snowid.django.SnowIdField on SQLite and PostgreSQL (pytest-django): values in and out,
refusals, forms, and defaults from the process-wide generator across threads and a fork."""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path

import pytest

from tests.support import django_site

django_site.setup()  # before anything imports a model

from django import forms  # noqa: E402
from django.core import serializers  # noqa: E402
from django.core.exceptions import ValidationError  # noqa: E402
from django.db import connections  # noqa: E402
from django.db.models import Max  # noqa: E402
from django.test import override_settings  # noqa: E402
from django.utils import translation  # noqa: E402

from snowid import SnowId  # noqa: E402
from snowid.django import SnowIdField, SnowIdFormField, created_between, new_id  # noqa: E402
from snowid.errors import (  # noqa: E402
    AlreadyConfiguredError,
    FloatIdError,
    IdTooLargeError,
    InvalidValueError,
    NegativeIdError,
    NotAnIntegerError,
    NotConfiguredError,
    SignBitSetError,
)
from snowid.process import _default  # noqa: E402
from tests.integrations.djangoapp.models import Customer, Order  # noqa: E402
from tests.support.process_wide import run_in_child, worker_of  # noqa: E402

SEED = 4194439168
MAX = 2**63 - 1
MAX_TIME = "2080-07-10T17:30:30.208Z"

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True, databases="__all__")]


@pytest.fixture(params=django_site.ALIASES)
def alias(request: pytest.FixtureRequest) -> str:
    """Each test runs on SQLite ("default") and PostgreSQL ("postgres")."""
    django_site.need_alias(request.param)
    return str(request.param)


class OrderForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = Order
        fields = ("id", "parent_id", "note")


# --- values in, values out ----------------------------------------------------------------


@pytest.mark.parametrize("value", [SEED, MAX])
def test_round_trip_of_the_seed_example_and_2_63_minus_1_given_as_strings(
    alias: str, value: int
) -> None:
    Order.objects.using(alias).create(id=str(value), parent_id=str(value), note="x")
    found = Order.objects.using(alias).get(id=str(value))
    assert type(found.id) is SnowId
    assert type(found.parent_id) is SnowId
    assert str(found.id) == str(found.parent_id) == str(value)
    assert list(Order.objects.using(alias).values_list("id", flat=True)) == [SnowId(value)]
    assert Order.objects.using(alias).aggregate(top=Max("id"))["top"] == SnowId(value)
    with connections[alias].cursor() as cursor:  # the column holds the id's value, BIGINT
        cursor.execute(f"SELECT id FROM {Order._meta.db_table}")
        assert cursor.fetchall() == [(value,)]


def test_a_foreign_key_to_a_snowid_key_reads_back_as_snowid(alias: str) -> None:
    customer = Customer.objects.using(alias).create(id=str(MAX), name="c")
    Order.objects.using(alias).create(id=SEED, customer=customer)
    order = Order.objects.using(alias).select_related("customer").get(id=SEED)
    assert type(order.customer_id) is SnowId
    assert order.customer_id == SnowId(MAX)
    assert order.customer == customer
    assert Order.objects.using(alias).filter(customer__id=str(MAX)).count() == 1


def test_an_assigned_value_is_a_snowid_at_once() -> None:
    """So a new instance has the type of one read back. Since issue 18 a SnowId also
    equals its int (it did not before), so `order.parent_id == SEED` holds either way:
    the type is what this pins."""
    order = Order(id="4194439168", parent_id=SEED)
    assert type(order.id) is SnowId
    assert type(order.pk) is SnowId
    assert order.parent_id == SnowId(SEED)
    assert order.parent_id == SEED
    order.parent_id = None
    assert order.parent_id is None


def test_bulk_create_takes_small_and_large_ids_together(alias: str) -> None:
    """On PostgreSQL an id of 2**31 or more goes to psycopg as a plain int (int8 by itself)
    and a smaller one through Django's Int8: one bulk insert (one array a column) takes
    both kinds, and every id reads back as it was."""
    ids = [1, 2**15, 2**31 - 1, 2**31, SEED, MAX]
    Order.objects.using(alias).bulk_create(
        [Order(id=value, parent_id=ids[-1 - i]) for i, value in enumerate(ids)]
    )
    rows = Order.objects.using(alias).order_by("id").values_list("id", "parent_id")
    assert list(rows) == [(SnowId(v), SnowId(ids[-1 - i])) for i, v in enumerate(ids)]
    with connections[alias].cursor() as cursor:  # the column holds the id's value, BIGINT
        cursor.execute(f"SELECT id FROM {Order._meta.db_table} ORDER BY id")
        assert cursor.fetchall() == [(value,) for value in ids]


def test_the_key_and_a_deferred_column_read_back_as_snowids(alias: str) -> None:
    """A primary key's attribute has no ``__get__`` (its reads cost no call; Django never
    defers a key): it still reads back, is assigned through the field, and a deferred
    SnowIdField column next to it is still loaded at its first read."""
    Order.objects.using(alias).create(id=SEED, parent_id=MAX, note="x")
    order = Order.objects.using(alias).only("note").get()
    assert order.get_deferred_fields() == {"parent_id", "customer_id"}
    assert type(order.id) is SnowId
    assert order.id == SnowId(SEED)
    assert type(order.parent_id) is SnowId  # loaded now, from the database
    assert order.parent_id == SnowId(MAX)
    assert Order.id.field is Order._meta.pk  # read on the class: the descriptor
    order.pk = str(MAX)
    assert type(order.id) is SnowId
    with pytest.raises(NegativeIdError):
        order.id = -1
    assert order.id == SnowId(MAX)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("12abc", NotAnIntegerError),
        ("", InvalidValueError),
        (-1, NegativeIdError),
        (4194439168.0, FloatIdError),
        (True, NotAnIntegerError),
        (2**63, SignBitSetError),
        (str(2**64), IdTooLargeError),
    ],
)
def test_invalid_values_are_refused_with_the_specific_error(
    alias: str, value: object, error: type[InvalidValueError]
) -> None:
    with pytest.raises(error) as caught:
        Order.objects.using(alias).create(id=value)
    assert caught.value.field == "id"
    with pytest.raises(error):
        Order.objects.using(alias).filter(parent_id=value)
    with pytest.raises(error):
        Order.objects.using(alias).filter(id__in=[SEED, value])
    assert not Order.objects.using(alias).exists()


def test_full_clean_and_the_model_field_give_a_validation_error_with_snowids_message() -> None:
    field = Order._meta.get_field("parent_id")
    with pytest.raises(ValidationError) as caught:
        field.clean("12abc", None)
    expected = NotAnIntegerError(field="parent_id", value="12abc")
    assert caught.value.messages == [str(expected)]
    assert caught.value.error_list[0].code == "not_an_integer"
    assert field.clean(str(MAX), None) == SnowId(MAX)
    Order(id=SEED, parent_id=MAX).full_clean()  # no range validator comparing SnowId to int


def test_a_corrupt_stored_value_is_an_error_not_a_wrong_id(alias: str) -> None:
    """Only PostgreSQL and SQLite could hold a negative BIGINT; it never becomes an id."""
    Order.objects.using(alias).create(id=SEED)
    with connections[alias].cursor() as cursor:
        cursor.execute(f"UPDATE {Order._meta.db_table} SET parent_id = -5")
    with pytest.raises(NegativeIdError):
        Order.objects.using(alias).get(id=SEED)


# --- defaults from the process-wide generator ------------------------------------------


def test_a_new_row_gets_its_id_from_the_process_wide_generator(
    process_wide: str, alias: str
) -> None:
    made = [Order.objects.using(alias).create(note=str(i)) for i in range(5)]
    Order.objects.using(alias).bulk_create([Order(note="bulk") for _ in range(50)])
    ids = list(Order.objects.using(alias).values_list("id", flat=True))
    assert len(ids) == 55 == len(set(ids))
    assert {order.id for order in made} <= set(ids)
    assert all(type(value) is SnowId for value in ids)
    assert Order(note="unsaved").parent_id is None  # default=None: no id drawn for it


def test_defaults_are_unique_across_4_threads(process_wide: str, alias: str) -> None:
    errors: list[BaseException] = []

    def work(slot: int) -> None:
        try:
            for i in range(25):
                Order.objects.using(alias).bulk_create(
                    [Order(note=f"{slot}/{i}/{j}") for j in range(4)]
                )
        except BaseException as error:  # a duplicate key would land here
            errors.append(error)
        finally:
            connections[alias].close()  # this thread's own connection

    threads = [threading.Thread(target=work, args=(slot,)) for slot in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    ids = list(Order.objects.using(alias).values_list("id", flat=True))
    assert len(ids) == 400 == len(set(ids))


def test_defaults_are_unique_across_a_fork(process_wide: str, alias: str) -> None:
    def insert(tag: str) -> list[str]:
        made = Order.objects.using(alias).bulk_create([Order(note=tag) for _ in range(200)])
        return [str(order.id) for order in made]

    parent_ids = insert("parent")
    connections.close_all()  # the child must not write on the parent's connection

    def child() -> list[str]:
        try:
            return insert("child")
        finally:
            connections.close_all()

    child_ids = run_in_child(child)
    assert set(child_ids).isdisjoint(parent_ids)
    ids = list(Order.objects.using(alias).values_list("id", flat=True))
    assert len(ids) == 400 == len(set(ids))
    assert len({worker_of(value) for value in ids}) == 2  # the child claimed its own identity


def test_settings_snowid_lease_configures_the_generator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(_default.ENV_VAR, raising=False)
    _default._reset()
    url = f"file://{tmp_path}/slots"
    try:
        with override_settings(SNOWID_LEASE=None), pytest.raises(NotConfiguredError):
            Order()
        with override_settings(SNOWID_LEASE=url):
            first, second = Order().id, new_id()
        assert second > first
        assert _default._state.configured == url
    finally:
        _default._reset()


def test_warm_up_claims_at_start_up_with_the_settings_lease(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """snowid.django.warm_up() (for AppConfig.ready) reads SNOWID_LEASE as new_id does."""
    from snowid.django import warm_up

    monkeypatch.delenv(_default.ENV_VAR, raising=False)
    _default._reset()
    url = f"file://{tmp_path}/slots"
    try:
        with override_settings(SNOWID_LEASE=url):
            warm_up()
        lease = _default._state.lease
        assert lease is not None
        assert lease.state == "held"
        assert _default._state.configured == url
    finally:
        _default._reset()


def test_a_different_lease_in_settings_than_in_code_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(_default.ENV_VAR, raising=False)
    _default._reset()
    try:
        _default.configure(lease=f"file://{tmp_path}/a")
        with (
            override_settings(SNOWID_LEASE=f"file://{tmp_path}/b"),
            pytest.raises(AlreadyConfiguredError),
        ):
            Order()
    finally:
        _default._reset()


# --- forms -----------------------------------------------------------------------------


@pytest.mark.parametrize("value", [SEED, MAX])
def test_a_form_takes_the_decimal_string_and_shows_it_back_with_the_time(
    process_wide: str, alias: str, value: int
) -> None:
    """An id column (not the key: issue 18 §5 made the key read-only) is a text box."""
    form = OrderForm(data={"id": "123", "parent_id": f"{value}", "note": "n"})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["parent_id"] == SnowId(value)
    assert form.cleaned_data["id"] == form.instance.id != SnowId(123)  # the key is not read
    order = form.save(commit=False)
    order.save(using=alias)
    shown = str(OrderForm(instance=Order.objects.using(alias).get(id=order.id))["parent_id"])
    when = SnowId(value).datetime.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert f'value="{value}"' in shown
    assert 'type="text"' in shown
    assert 'type="number"' not in shown
    assert f'<time class="snowid-time" datetime="{when}"' in shown


def test_the_form_shows_the_key_read_only_with_the_last_ids_time() -> None:
    order = Order(id=MAX)
    order._state.adding = False  # as read from the database
    shown = str(OrderForm(instance=order)["id"])
    assert f'<span class="snowid-id">{MAX}</span>' in shown
    assert f'datetime="{MAX_TIME}"' in shown
    assert "<input" not in shown


def test_a_new_rows_form_shows_no_key_and_saves_the_one_drawn_when_posted(
    process_wide: str,
) -> None:
    """Issue 18 §5 (b): ``Model()`` still draws an id, but a ModelForm neither shows it as
    an input nor takes one; the row keeps the id of the form built for the POST."""
    shown = str(OrderForm()["id"])
    assert "<input" not in shown
    assert "drawn when this is saved" in shown
    form = OrderForm(data={"id": str(SEED), "note": "n"})
    assert form.is_valid(), form.errors
    assert form.save().id == form.instance.id != SnowId(SEED)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("12abc", NotAnIntegerError(field="parent_id", value="12abc")),
        ("-1", NegativeIdError(field="parent_id", value=-1)),
        (str(2**63), SignBitSetError(field="parent_id", value=2**63, bit=63)),
    ],
)
def test_a_form_refuses_an_invalid_id_with_snowids_message(
    process_wide: str, value: str, error: InvalidValueError
) -> None:
    form = OrderForm(data={"parent_id": value, "note": ""})
    assert not form.is_valid()
    assert form.errors["parent_id"] == [str(error)]  # labelled with its field's name (issue 18 §8)
    assert form.errors.as_data()["parent_id"][0].code == error.code
    with translation.override("vi"):
        form = OrderForm(data={"parent_id": value, "note": ""})
        assert form.errors["parent_id"] == [error.message("vi")]


def test_a_form_refuses_digits_with_spaces_around_them_as_the_model_and_pydantic_do(
    process_wide: str,
) -> None:
    """Issue 25 §3: one tier of input for programs. The form trimmed ``" 42 "`` (Django's
    own fields do) where the model field and pydantic refuse it; now it says the same."""
    form = OrderForm(data={"parent_id": f" {SEED} ", "note": ""})
    assert not form.is_valid()
    assert form.errors["parent_id"] == [
        f"parent_id ' {SEED} ' contains spaces; give the digits alone"
    ]
    assert form.errors.as_data()["parent_id"][0].code == "contains_spaces"


def test_an_invalid_value_is_shown_as_typed_without_a_time(process_wide: str) -> None:
    form = OrderForm(data={"parent_id": "12abc", "note": ""})
    shown = str(form["parent_id"])
    assert 'value="12abc"' in shown
    assert "snowid-time" not in shown


def test_the_form_field_alone_cleans_to_snowid_and_refuses_floats() -> None:
    field = SnowIdFormField(required=False)
    assert field.clean(str(MAX)) == SnowId(MAX)
    assert field.clean("") is None
    assert field.clean("   ") is None  # a blank box: no value, as Django reads every field
    with pytest.raises(ValidationError) as caught:
        field.clean(9.2e18)
    assert caught.value.error_list[0].code == FloatIdError.code
    assert not field.has_changed(str(SEED), SnowId(SEED))
    assert field.has_changed(str(SEED), SnowId(MAX))


# --- migrations, serialisation, time ranges --------------------------------------------


def test_deconstruct_names_the_public_path_and_no_default_function() -> None:
    _, path, args, kwargs = Order._meta.get_field("id").deconstruct()
    assert path == "snowid.django.SnowIdField"
    assert kwargs == {"primary_key": True, "serialize": False}
    rebuilt = SnowIdField(*args, **kwargs)
    assert rebuilt.default is new_id
    assert rebuilt.deconstruct()[1:] == (path, args, kwargs)
    _, _, _, plain = Order._meta.get_field("parent_id").deconstruct()
    assert plain == {"null": True, "blank": True, "default": None}


def test_django_serializers_write_ids_as_strings_and_read_them_back(alias: str) -> None:
    Order.objects.using(alias).create(id=MAX, parent_id=SEED, note="s")
    text = serializers.serialize("json", Order.objects.using(alias).all())
    assert f'"pk": "{MAX}"' in text
    assert f'"parent_id": "{SEED}"' in text
    Order.objects.using(alias).all().delete()
    for item in serializers.deserialize("json", text):
        item.save(using=alias)
    assert Order.objects.using(alias).get(id=MAX).parent_id == SnowId(SEED)


def test_created_between_selects_exactly_the_ids_of_the_window(alias: str) -> None:
    start = dt.datetime(2024, 5, 1, tzinfo=dt.UTC)
    end = dt.datetime(2024, 5, 2, tzinfo=dt.UTC)
    one_ms = dt.timedelta(milliseconds=1)

    def made_at(when: dt.datetime, machine: int = 0, sequence: int = 0) -> SnowId:
        return SnowId.from_datetime(when, datacenter=31, machine=machine, sequence=sequence)

    inside = [made_at(start), made_at(end, machine=31, sequence=4095)]
    outside = [made_at(start - one_ms, machine=31, sequence=4095), made_at(end + one_ms)]
    Order.objects.using(alias).bulk_create([Order(id=value) for value in inside + outside])
    found = Order.objects.using(alias).filter(created_between("id", start, end)).order_by("id")
    assert [order.id for order in found] == inside


@override_settings(TIME_ZONE="Asia/Ho_Chi_Minh")
def test_created_between_reads_a_naive_datetime_in_djangos_time_zone(alias: str) -> None:
    """Issue 18 §5: as Django's own lookups do (it was read as UTC: a window 7 hours off);
    ``snowid.id_range`` itself still reads naive as UTC."""
    from snowid import id_range

    ict = dt.timezone(dt.timedelta(hours=7))
    start, end = dt.datetime(2024, 5, 1, 9, 0), dt.datetime(2024, 5, 1, 10, 0)
    morning = SnowId.from_datetime(
        dt.datetime(2024, 5, 1, 9, 30, tzinfo=ict), datacenter=0, machine=0
    )
    utc_morning = SnowId.from_datetime(
        dt.datetime(2024, 5, 1, 9, 30, tzinfo=dt.UTC), datacenter=0, machine=0
    )
    Order.objects.using(alias).bulk_create([Order(id=morning), Order(id=utc_morning)])
    found = Order.objects.using(alias).filter(created_between("id", start, end))
    assert [order.id for order in found] == [morning]
    assert created_between("id", start, end) == created_between(
        "id", start.replace(tzinfo=ict), end.replace(tzinfo=ict)
    )
    assert id_range(start, end) == id_range(
        start.replace(tzinfo=dt.UTC), end.replace(tzinfo=dt.UTC)
    )
