"""A misspelt or unknown lease option is refused by name, everywhere alike (issue 25 §3).

Before, ``postgresql://…?rnage=200-203`` passed ``snowid.configure`` and ``manage.py
check`` (every unknown option went to libpq) and failed at the first claim as "unreachable:
invalid URI query parameter: "…"", the name hidden by the scrubber. Now the strict reader
refuses it when the URL is read, naming it and the option it is close to; libpq's own
parameters still go to libpq.
"""

from __future__ import annotations

import pytest

import snowid
from snowid.cli import main
from snowid.errors import InvalidLeaseUrlError
from snowid.lease import _pgconn, open_lease, postgres
from snowid.lease._redact import MASK
from snowid.lease.postgres import PostgresLease
from snowid.web import Settings, preflight

STORES = [
    "postgresql://app:s3cret@127.0.0.1:1/db",
    "postgres://app@127.0.0.1:1/db",
    "redis://:s3cret@127.0.0.1:1/0",
    "rediss://u:s3cret@127.0.0.1:1/0",
    "mysql://app:s3cret@127.0.0.1:1/db",
    "mariadb://app@127.0.0.1:1/db",
    "file:///nonexistent/snowid-unknown-options",
    "static://1/2?state_dir=/nonexistent/snowid-unknown-options",
    "k8s:?state_dir=/nonexistent/snowid-unknown-options",
]


def _refusal(url: str) -> InvalidLeaseUrlError:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(url).close()
    return caught.value


@pytest.mark.parametrize("base", STORES)
def test_a_misspelt_option_is_named_with_the_one_it_is_close_to(base: str) -> None:
    """On every store, in both languages; the password stays hidden."""
    glue = "&" if "?" in base else "?"
    misspelt = {"static": "worker", "k8s": "offset"}.get(base.partition(":")[0], "range")
    typo = misspelt[1] + misspelt[0] + misspelt[2:]  # rnage, owrker, fofset
    error = _refusal(f"{base}{glue}{typo}=1")
    assert (error.reason, error.options, error.suggestion) == ("unknown_option", typo, misspelt)
    assert str(error).endswith(f"unknown option {typo}; did you mean {misspelt}?")
    assert error.message("vi").endswith(f"không có tùy chọn {typo}; có phải ý bạn là {misspelt}?")
    assert "s3cret" not in f"{error}{error.message('vi')}{error!r}"


def test_an_option_close_to_nothing_is_named_with_what_is_allowed() -> None:
    error = _refusal("redis://127.0.0.1:1/0?colour=red")
    assert (error.options, error.suggestion) == ("colour", "")
    assert "unknown option colour; allowed: claim_wait, connect_timeout" in str(error)


def test_several_unknown_options_are_all_named_without_a_guess() -> None:
    error = _refusal("mysql://app@127.0.0.1:1/db?rnage=1-2&colour=red&range=0-3")
    assert (error.options, error.suggestion) == ("rnage, colour", "")
    assert "unknown option rnage, colour; allowed:" in str(error)


def test_a_keyword_option_is_named_too() -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease("redis://127.0.0.1:1/0", rnage=(0, 3))
    assert (caught.value.options, caught.value.suggestion) == ("rnage", "range")


def test_an_option_name_is_shown_even_when_the_password_holds_it() -> None:
    """Redaction hides secrets, not option names: ``rnage`` is a key of the query, not a
    piece of the password ``rnage12`` (masking it would even tell that it is one)."""
    error = _refusal("redis://:rnage12@127.0.0.1:1/0?rnage=1")
    assert (error.options, error.suggestion) == ("rnage", "range")
    assert "rnage12" not in str(error)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://app@127.0.0.1:1/db?password=pw&cd=1",  # password "pw&cd=1" unencoded
        "postgresql://app@127.0.0.1:1/db?sslpassword=pw&cd",
        "redis://127.0.0.1:1/0?password_file=/run/pw&token=t0&cd=1",  # token, then …
    ],
)
def test_an_option_that_may_be_the_rest_of_a_secret_is_not_named(url: str) -> None:
    """A raw ``&`` in a password cuts it short, and what follows reads as an option: after
    a secret-named option, an unknown name is shown as … and nothing is guessed for it."""
    error = _refusal(url)
    assert error.options.endswith(MASK)
    assert error.suggestion == ""
    assert "cd" not in str(error).partition("cannot be used")[2]


def test_a_file_s_path_is_no_secret_so_what_follows_it_is_named() -> None:
    error = _refusal("redis://127.0.0.1:1/0?password_file=/run/pw&rnage=1")
    assert (error.options, error.suggestion) == ("rnage", "range")


# --- PostgreSQL: libpq's parameters go on, anything else is refused -------------------------


@pytest.mark.parametrize(
    "query",
    [
        "passfile=/run/secrets/pgpass",
        "sslmode=verify-full&sslrootcert=/etc/ca.pem&sslcert=/c.pem&sslkey=/k.pem",
        "application_name=ids&target_session_attrs=read-write&options=-c%20x%3D1",
        "host=/var/run/postgresql&port=5433&user=app&dbname=ids",
        "keepalives=1&keepalives_idle=30&tcp_user_timeout=1000&gssencmode=disable",
        "ssl=true",
        "service=ids&channel_binding=prefer&load_balance_hosts=random",
    ],
)
def test_libpq_s_documented_parameters_still_reach_libpq(query: str) -> None:
    lease = open_lease(f"postgresql://app@127.0.0.1:1/db?range=0-3&{query}")
    assert isinstance(lease, PostgresLease)
    assert lease.conninfo.endswith(f"?{query.replace('/', '%2F')}")  # as written, re-encoded
    lease.close()


def test_libpq_s_parameters_are_the_linked_libpq_s() -> None:
    """The list covers every parameter of the libpq psycopg is linked with, so that
    reading a URL never needs psycopg; a newer libpq fails this test, not a user."""
    from psycopg import pq

    linked = {option.keyword.decode() for option in pq.Conninfo.get_defaults()}
    assert linked <= _pgconn.LIBPQ_PARAMETERS


def test_a_parameter_newer_than_the_list_is_asked_of_the_linked_libpq(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shorter = _pgconn.LIBPQ_PARAMETERS - {"sslsni"}
    monkeypatch.setattr(_pgconn, "LIBPQ_PARAMETERS", shorter)
    monkeypatch.setattr(postgres, "LIBPQ_PARAMETERS", shorter)
    assert _pgconn.libpq_takes({"sslsni", "rnage"}) == {"sslsni"}
    lease = open_lease("postgresql://app@127.0.0.1:1/db?sslsni=0")
    assert isinstance(lease, PostgresLease)
    assert lease.conninfo.endswith("?sslsni=0")
    lease.close()


@pytest.mark.parametrize(
    ("typo", "meant"),
    [("rnage", "range"), ("sslmdoe", "sslmode"), ("pasfile", "passfile"), ("ttll", "ttl")],
)
def test_a_misspelt_snowid_or_libpq_option_on_postgresql(typo: str, meant: str) -> None:
    error = _refusal(f"postgresql://app:s3cret@127.0.0.1:1/db?{typo}=x")
    assert (error.options, error.suggestion) == (typo, meant)


def test_an_unknown_postgresql_option_is_told_about_libpq_s_parameters() -> None:
    error = _refusal("postgresql://app@127.0.0.1:1/db?colour=red")
    assert (error.options, error.passes_to) == ("colour", "libpq")
    for text in (str(error), error.message("vi")):
        assert "claim_wait, connect_timeout, datacenter" in text
        assert "libpq" in text
        assert "sslmode" in text
        assert len(text) < 400


# --- the same words wherever the URL is read ---------------------------------------------


URL = "postgresql://app:s3cret@127.0.0.1:1/db?rnage=200-203"


def test_every_entry_point_says_it_the_same_way(capsys: pytest.CaptureFixture[str]) -> None:
    """open_lease, snowid.configure (the claim's way in), ``snowid lease init|status``
    and ``snowid serve`` (its preflight) refuse the URL with one message; ``manage.py
    check`` is proven in tests/integrations/test_django_migrations.py."""
    said = str(_refusal(URL))
    assert said.endswith("unknown option rnage; did you mean range?")
    with pytest.raises(InvalidLeaseUrlError) as configured:
        snowid.configure(lease=URL)
    assert str(configured.value) == said
    with pytest.raises(InvalidLeaseUrlError) as served:
        preflight(Settings(lease_url=URL))
    assert str(served.value) == said
    for argv in (["lease", "status", URL], ["lease", "init", URL]):
        assert main(argv) == 1
        assert capsys.readouterr().err == f"Error: {said}\n"
