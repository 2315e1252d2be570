"""Issue 18 §8: one rule for input, one wording for each mistake, over every entry point.

Three tiers: strict (``SnowId.from_str``), lenient for programs (``SnowId.parse``,
``snowid.decode``, pydantic, Django's model and form fields, DRF's field) and lenient for people
(``snowid.ids.read_id``, the CLI's arguments, the HTTP API's text). The table says, for each
input, which entry points take it; every other entry point must refuse it with the same
error code and the same English wording, with the entry point's own field name as the
label. A second test checks that no tier accepts less than the one above it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from urllib.parse import quote

import pytest
from pydantic import BaseModel, ValidationError
from starlette.testclient import TestClient

import snowid
import snowid.errors
from snowid import SnowId
from snowid.cli import main
from snowid.ids import read_id
from snowid.web import Settings, create_app
from tests.support import django_site
from tests.support.web import error_of, fixed_identity_service

django_site.setup()  # before anything imports a model

from django.core.exceptions import ValidationError as DjangoValidationError  # noqa: E402

from tests.integrations.djangoapp.models import Order  # noqa: E402

MAX = "9223372036854775807"


class Post(BaseModel):
    author_id: SnowId


# The entry points, each: (tier, label its messages use, reader). A reader returns the id's
# int, or raises RefusedError(code, English message).
class RefusedError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)
        self.code, self.message = code, message


def _library(read: Callable[[str], object]) -> Callable[[str], int]:
    def reader(text: str) -> int:
        try:
            made = read(text)
        except snowid.errors.InvalidValueError as error:
            raise RefusedError(error.code, error.message("en")) from None
        return int(made.id if isinstance(made, snowid.Decoded) else made)  # type: ignore[call-overload]

    return reader


def _pydantic(text: str) -> int:
    try:
        return int(Post(author_id=text).author_id)
    except ValidationError as error:
        detail = error.errors()[0]
        raise RefusedError(detail["type"].removeprefix("snowid."), detail["msg"]) from None


def _django_model(text: str) -> int:
    try:
        return int(Order._meta.get_field("parent_id").to_python(text))
    except DjangoValidationError as error:
        raise RefusedError(str(error.code), error.messages[0]) from None


def _django_form(text: str) -> int:
    """The form field a ModelForm (and the admin) gets for the model field."""
    field = Order._meta.get_field("parent_id").formfield()
    try:
        return int(field.clean(text))
    except DjangoValidationError as error:
        raise RefusedError(str(error.code), error.messages[0]) from None


def _drf(text: str) -> int:
    """A ModelSerializer's field for the model field, as a DRF API reads a JSON body."""
    from tests.integrations.djangoapp.api import OrderSerializer

    serializer = OrderSerializer(data={"parent_id": text})
    if serializer.is_valid():
        return int(serializer.validated_data["parent_id"])
    (detail,) = serializer.errors["parent_id"]
    raise RefusedError(str(detail.code), str(detail))


def _cli(text: str) -> int:
    import contextlib
    import io
    import json

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["--lang", "en", "decode", "--json", "--", text])
    if code == 0:
        return int(json.loads(out.getvalue())["id"])
    message = err.getvalue().strip().removeprefix("Error: ")
    assert code == 1, err.getvalue()
    raise RefusedError("", message)  # the CLI shows the message only


@pytest.fixture(scope="module")
def api() -> Iterator[TestClient]:
    app = create_app(Settings(max_count=10), service=fixed_identity_service())
    with TestClient(app) as client:  # in process: the same app snowid serve runs
        yield client


ENTRY_POINTS = {
    "from_str": ("strict", "ID", _library(SnowId.from_str)),
    "parse": ("programs", "ID", _library(SnowId.parse)),
    "decode": ("programs", "ID", _library(snowid.decode)),
    "pydantic": ("programs", "author_id", _pydantic),
    "django_model": ("programs", "parent_id", _django_model),
    "django_form": ("programs", "parent_id", _django_form),
    "drf": ("programs", "parent_id", _drf),
    "read_id": ("people", "ID", _library(read_id)),
    "cli": ("people", "ID", _cli),
    "http_api": ("people", "ID", None),  # needs the client fixture: see _read
}
TIERS = ("strict", "programs", "people")

NEGATIVE = ("id_negative", "{label} -5 is negative; Twitter IDs are in range 0..{max}")
SPACES = ("contains_spaces", "{label} ' 4194439168' contains spaces; give the digits alone")
NOT_WHOLE = ("not_an_integer", "{label} {text} is not a whole number")
EMPTY = ("empty_value", "{label} is empty; a whole number is required")
SIGN_BIT = (
    "id_sign_bit_set",
    "{label} 9223372036854775808 has the sign bit (bit 63) set; Twitter IDs are in range"
    " 0..{max} (Discord, Instagram and Mastodon IDs use bit 63 for time and can be this large)",
)
EVERYWHERE = frozenset(ENTRY_POINTS)
PARSE_AND_PEOPLE = frozenset({"parse", "decode", "read_id", "cli", "http_api"})

# input, its id, the entry points that take it, how every other one refuses it
TABLE: list[tuple[str, int, frozenset[str], tuple[str, str] | None]] = [
    ("4194439168", 4194439168, EVERYWHERE, None),
    (MAX, int(MAX), EVERYWHERE, None),
    ("-5", 0, frozenset(), NEGATIVE),
    # Issue 25 §3: the Django form and DRF trimmed it, as Django's own fields do; one rule
    # for the programs tier now, the one pydantic and the model field keep.
    (" 4194439168", 4194439168, PARSE_AND_PEOPLE, SPACES),
    ("abc", 0, frozenset(), NOT_WHOLE),
    ("12 34", 0, frozenset(), NOT_WHOLE),
    ("4194439168.0", 0, frozenset(), NOT_WHOLE),
    ("１２３", 0, frozenset(), NOT_WHOLE),  # full-width digits: no ASCII digit in them
    ("1_000", 1000, PARSE_AND_PEOPLE, NOT_WHOLE),
    ("0x10", 16, PARSE_AND_PEOPLE, NOT_WHOLE),
    ("   ", 0, frozenset(), EMPTY),  # a Django form's blank is no value (None): skipped
    ("9223372036854775808", 0, frozenset(), SIGN_BIT),
]

# Where the people tier refuses with more specific words (issue 19 §1, §2): it tried the
# text as digit groups (the separator is named) or, in `snowid decode`, as a pasted link.
GROUPS = (
    "digit_groups.irregular",
    "{label} {text}: the digit groups split by {separator} are not regular (1 to 3 digits,"
    " then groups of three); write the digits without {separator}",
)
NOT_A_LINK = (
    "not_an_id_or_link",
    "{label} {text} is not an ID snowid can read: paste an ID, or a tweet, Discord, Mastodon"
    " or Instagram link",
)
PEOPLE_WORDS: dict[str, dict[str, tuple[str, str]]] = {
    "12 34": {"read_id": GROUPS, "cli": GROUPS},
    "4194439168.0": {"read_id": GROUPS, "cli": GROUPS},
    "abc": {"cli": NOT_A_LINK},
    "１２３": {"cli": NOT_A_LINK},
}
SEPARATOR = {"12 34": "' '", "4194439168.0": "'.'"}


def _read(name: str, text: str, api: TestClient) -> int:
    reader = ENTRY_POINTS[name][2]
    if reader is not None:
        return reader(text)
    response = api.get("/api/decode/" + quote(text, safe=""))
    if response.status_code == 200:
        return int(response.json()["id"])
    assert response.status_code in (400, 422), response.text
    error = error_of(response)  # type: ignore[arg-type]  # starlette's own httpx
    raise RefusedError(error["code"], error["message"])


@pytest.mark.parametrize(("text", "number", "takers", "refusal"), TABLE, ids=[t[0] for t in TABLE])
@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_each_entry_point_takes_or_refuses_alike(  # noqa: PLR0917 - the table's columns
    api: TestClient,
    name: str,
    text: str,
    number: int,
    takers: frozenset[str],
    refusal: tuple[str, str] | None,
) -> None:
    if name == "django_form" and not text.strip():
        pytest.skip("a blank form field is no value (None), Django's rule for every field")
    if name in takers:
        assert _read(name, text, api) == number
        return
    refusal = PEOPLE_WORDS.get(text, {}).get(name, refusal)
    assert refusal is not None
    with pytest.raises(RefusedError) as caught:
        _read(name, text, api)
    code, wording = refusal
    label = ENTRY_POINTS[name][1]
    expected = wording.format(label=label, text=text, max=MAX, separator=SEPARATOR.get(text))
    assert caught.value.message == expected
    if caught.value.code:  # the CLI prints the message alone
        assert caught.value.code.partition(".")[0] == code.partition(".")[0]


def test_no_tier_accepts_less_than_the_one_above_it() -> None:
    """What any entry point of a tier takes, every entry point of each tier below takes
    (within the programs tier, ``parse`` takes more than pydantic and Django: spaces,
    ``_``, hex)."""
    for text, _, takers, _ in TABLE:
        for rank, upper in enumerate(TIERS):
            if not any(ENTRY_POINTS[name][0] == upper for name in takers):
                continue
            below = {
                name for name, (tier, _, _) in ENTRY_POINTS.items() if tier in TIERS[rank + 1 :]
            }
            assert below <= takers, (text, upper, sorted(below - takers))
