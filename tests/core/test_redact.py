"""No secret of a lease URL or connection string ever reaches an output (issue 8, item 1).

The property: a password is written with "marker" characters (Greek letters) that
appear nowhere else in the generated URL (scheme, user, hosts, database and other
options are lower-case ASCII and digits) nor in any message text, mixed
with the characters that break naive splitting (/ ? # @ : % & = space quote backslash).
If any marker shows up in an output, raw or percent-encoded, a piece of the password
leaked. The password sits
in every position libpq reads one from: the user-information (raw and percent-encoded),
``?password=`` / ``sslpassword=`` / other secret-named options (raw and encoded), and
libpq ``key=value`` strings (plain and single-quoted with escapes).

Issue 24 §4 widened the URLs to every documented form (each store's, PostgreSQL's host
lists, the multi-host ``redis+sentinel:``, ``etcd:`` and ``zookeeper:`` to come) and to the
forms the strict reader refuses: a raw ``@ / ? #`` in the password, bad ports and brackets,
an unknown scheme, misspelt and unknown options, a raw ``&`` cutting a query password short,
an empty libpq value.

Outputs checked: the display form (``redact``), the kind (``url_kind``), a library
message about the URL after ``scrub`` (libpq's own parse errors, and any quoted or
whole-password piece of the URL), and every message ``open_lease`` gives for the URL
(or the URL of the lease it opens).
"""

from __future__ import annotations

from urllib.parse import quote

import psycopg
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from snowid.errors import SnowIdError
from snowid.lease import open_lease, url_kind
from snowid.lease._redact import MASK, hide, redact, scrub, secrets_in
from snowid.lease._urltext import split_url

MARKERS = "ΣΔΩΘΛΞΠΦΨ"
ENCODED = [quote(marker) for marker in MARKERS]  # "%CE%A3": two bytes each
BREAKERS = "/?#@:%&= '\\+[],"
LOWER = "abcdefghijklmnopqrstuvwxyz"


def _leaked(text: str) -> set[str]:
    upper = text.upper()
    return {char for char in text if char in MARKERS} | {e for e in ENCODED if e in upper}


passwords = st.text(alphabet=MARKERS + BREAKERS, min_size=1, max_size=24).filter(
    lambda text: bool(_leaked(text))
)
names = st.text(alphabet=LOWER + "0123456789", min_size=1, max_size=8)
ports = st.one_of(
    st.integers(1, 65535).map(str),
    st.sampled_from(["", "0", "65536", "99999", "abc", "\u0665432"]),  # refused
)
one_host = st.one_of(
    names, st.just("127.0.0.1"), st.just("[::1]"), st.just("[::1"), st.just("[nope]")
).flatmap(lambda host: ports.map(lambda port: f"{host}:{port}" if port else host))
hosts = st.lists(one_host, min_size=1, max_size=3).map(",".join)
forms = st.sampled_from(
    [
        # (scheme, path after the hosts): every documented form (docs/leases.md,
        # lease-redis.md, lease-mysql.md, lease-k8s.md) and the multi-host ones to come
        ("postgresql", "/db"),
        ("postgres", ""),
        ("POSTGRESQL", "/db"),
        ("redis", "/0"),
        ("rediss", "/3"),
        ("mysql", "/db"),
        ("mariadb", "/db"),
        ("redis+sentinel", "/mymaster/0"),
        ("etcd", "/snowid"),
        ("zookeeper", "/snowid/leases"),
        ("file", "/var/lib/snowid"),  # refused: another host
        ("static", "/2"),
        ("k8s", ""),  # refused: no location
        ("ftp", "/x"),  # refused: unknown scheme
    ]
)
plain_options = st.lists(
    st.tuples(
        st.sampled_from(
            ["sslmode", "sslmdoe", "application_name", "ttl", "range", "rnage", "colour", "key"]
        ),
        names,
    ),
    max_size=3,
    unique_by=lambda pair: pair[0],
).map(lambda pairs: "".join(f"&{key}={value}" for key, value in pairs))
secret_keys = st.sampled_from(
    ["password", "sslpassword", "passfile", "sslkey", "token", "pass%77ord"]
)


@st.composite
def userinfo_urls(draw: st.DrawFn) -> str:
    """``scheme://user:PASSWORD@hosts/path?options``, the password raw (a raw ``@ / ? #``
    makes it ambiguous: refused) or encoded; the hosts a list, ports and brackets maybe bad."""
    password = draw(passwords)
    if draw(st.booleans()):
        password = quote(password, safe="")
    user = draw(st.one_of(st.just(""), names))
    scheme, path = draw(forms)
    query = draw(plain_options)
    return f"{scheme}://{user}:{password}@{draw(hosts)}{path}{'?' + query[1:] if query else ''}"


@st.composite
def query_urls(draw: st.DrawFn) -> str:
    """``scheme://user@hosts/path?…&password=PASSWORD&…``: raw or percent-encoded. A raw
    ``&`` cuts the password short and the rest reads as options (unknown ones, named
    nowhere); not after a ``…file`` option, whose value is a path, no secret."""
    password, key = draw(passwords), draw(secret_keys)
    if ("&" in password and key.endswith("file")) or draw(st.booleans()):
        password = quote(password, safe="")
    user = draw(st.one_of(st.just(""), names.map(lambda name: name + "@")))
    before, after = draw(plain_options), draw(plain_options)
    query = f"{before[1:]}{'&' if before else ''}{key}={password}{after}"
    scheme, path = draw(forms)
    return f"{scheme}://{user}{draw(hosts)}{path}?{query}"


def _libpq_quote(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


@st.composite
def conninfo_strings(draw: st.DrawFn) -> str:
    """libpq ``key=value`` strings; the secret quoted when it must be (or by choice)."""
    password = draw(passwords)
    needs_quotes = any(char.isspace() or char in "'\\" for char in password)
    shown = _libpq_quote(password) if needs_quotes or draw(st.booleans()) else password
    key = draw(st.sampled_from(["password", "sslpassword", "sslkey"]))
    parts = [f"host={draw(names)}", f"port={draw(ports)}", f"{key}={shown}"]
    parts.append(f"dbname={draw(names)}")
    return " ".join(draw(st.permutations(parts)))


any_secret_url = st.one_of(userinfo_urls(), query_urls(), conninfo_strings())


@given(any_secret_url)
@example("postgres://u:sΣc/ret@127.0.0.1:1/x")
@example("postgresql://u@127.0.0.1:1/x?password=sΣcret")
@example("host=127.0.0.1 password=sΣcret")
@example("host=127.0.0.1 password='sΣ cr\\'et'")
@example("postgresql://u:sΣ@cret@h/db")
@example("postgresql://u:sΣ?c#ret@h/db")
@example("postgresql://h/db?password=sΣ@cret")
def test_the_display_form_holds_no_piece_of_a_password(url: str) -> None:
    assert not _leaked(redact(url))
    assert not _leaked(url_kind(url))


@given(any_secret_url)
def test_a_libpq_parse_error_about_the_url_is_scrubbed(url: str) -> None:
    message = ""
    try:
        psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.Error as error:
        message = str(error)
    assert not _leaked(scrub(message, url))


@given(any_secret_url, st.data())
def test_any_quoted_piece_of_the_url_is_scrubbed(url: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(url)))
    end = data.draw(st.integers(start, len(url)))
    piece = url[start:end]
    quote_char = data.draw(st.sampled_from([q for q in "\"'" if q not in piece] or ['"']))
    assume(quote_char not in piece)  # libpq writes "token", psycopg 'token'; never escaped
    message = f"could not read {quote_char}{piece}{quote_char} in the connection string"
    assert not _leaked(scrub(message, url))


@given(any_secret_url)
def test_a_whole_password_anywhere_in_a_message_is_scrubbed(url: str) -> None:
    for secret in secrets_in(url):
        if len(secret) >= 3:
            assert secret not in scrub(f"failed: {secret} (at {secret})", url)


@given(any_secret_url)
@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=300)
@example("postgresql://app:sΣc/ret@h1:5432,h2/db?rnage=1")  # raw "/": refused, hidden
@example("postgresql://app@h/db?password=ΣΔ&ΩΘ=1&rnage=2")  # raw "&": the rest not named
@example("postgresql://app@h/db?password=Σ&ttl=Δ")  # ... nor read as a value
@example("redis://:Σ@h:abc/0")  # a bad port
@example("redis+sentinel://:Σ,Δ@h1:26379,h2:26379/mymaster/0")
@example("etcd://u:Σ@@h1:2379,h2:2379/snowid")  # a raw "@" before a host list
@example("host=h port= password=Σ")  # libpq reads the port as "password=Σ"
def test_no_lease_message_holds_a_piece_of_a_password(url: str) -> None:
    """Whatever open_lease says about such a URL (its refusal: both languages, its repr
    and every attribute; or the URL and repr of the lease it opens) shows no piece of
    the password."""
    try:
        lease = open_lease(url)
    except SnowIdError as error:
        said = [error.message("en"), error.message("vi"), repr(error), repr(vars(error))]
    else:
        said = [lease.url, repr(lease)]
        lease.close()
    assert not _leaked(" ".join(said))


# --- what the display form keeps ---------------------------------------------------


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:pw@h:5432/db?sslmode=require&password=x", "postgresql://h:5432/db"),
        ("postgresql://u@127.0.0.1:1/x?password=secret", "postgresql://127.0.0.1:1/x"),
        ("postgres://u:sec/ret@127.0.0.1:1/x", f"postgres://{MASK}"),
        ("postgresql://u:s3c@ret@h/db", f"postgresql://{MASK}"),
        ("postgresql://u@h1:1,[::1]:2/db#frag", "postgresql://h1:1,[::1]:2/db"),
        ("postgresql:///db?host=/var/run/postgresql", "postgresql:///db"),
        ("postgresql://h/db?application_name=a@b", "postgresql://h/db"),
        ("file:///var/lib/snowid?range=0-7", "file:///var/lib/snowid"),
        ("file:/var/lib/snowid", "file:/var/lib/snowid"),
        ("static://1/2", "static://1/2"),
        ("static:?worker=3", "static:"),
        ("host=127.0.0.1 password=secret dbname=x", "host=127.0.0.1 dbname=x"),
        ("host='a b' password='x y'", "host='a b'"),
        ("dbname=postgresql://u:pw@h/db", MASK),
        ("user:hunter2", "user:"),
        ("garbage", MASK),
        ("password=x", MASK),
        ("  ", ""),
    ],
)
def test_the_display_form_keeps_scheme_hosts_and_database(url: str, shown: str) -> None:
    assert redact(url) == shown


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("postgres://u:pw@h/db", "postgresql"),
        ("POSTGRESQL://h/db", "postgresql"),
        ("host=h password=x", "postgresql"),
        ("file:///tmp/x", "file"),
        ("static://1/2", "static"),
        (None, "static"),
        ("rediss://u:pw@h", "redis"),
        ("mariadb://u:pw@h/db", "mysql"),
        ("k8s:?offset=2", "k8s"),
        ("ftp://u:pw@h", "other"),
        ("garbage", "other"),
    ],
)
def test_the_kind_names_only_the_backend(url: str | None, kind: str) -> None:
    assert url_kind(url) == kind


def test_a_newly_registered_backend_has_its_kind_without_another_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Adding a backend is one line in the lease registry: its kind follows from there."""
    from snowid.lease import _registry

    monkeypatch.setitem(_registry.BACKENDS, "oneslot", "never.imported:Backend")
    monkeypatch.setitem(_registry.BACKENDS, "oneslots", "never.imported:Backend")
    assert url_kind("oneslot://h/x") == "oneslot"
    assert url_kind("ONESLOTS:?a=1") == "oneslot"


def test_a_password_with_a_raw_slash_question_mark_or_hash_is_ambiguous() -> None:
    for url in ("postgres://u:a/b@h/db", "postgres://u:a?b@h", "postgres://u:a#b@h", "x://u:a@b@h"):
        assert split_url(url).ambiguous, url
    for url in ("postgres://u:ab@h/db", "postgresql:///db?x=a@b", "postgres://h/db?x=a@b"):
        assert not split_url(url).ambiguous, url


def test_scrub_keeps_hosts_ports_users_and_databases() -> None:
    url = "postgresql://alice:pw@db.example:5433/app"
    message = 'connection to server at "db.example", port 5433 failed: FATAL: role "alice"'
    assert scrub(message, url) == message
    assert scrub('database "app" does not exist', url) == 'database "app" does not exist'
    assert scrub('invalid token "pw%zz"', url) == f'invalid token "{MASK}"'
    assert scrub("failed to resolve host 'pw@h'", url) == f"failed to resolve host '{MASK}'"
    socket_url = "postgresql:///app?host=/run/postgresql"
    socket = 'connection to server on socket "/run/postgresql/.s.PGSQL.5432" failed'
    assert scrub(socket, socket_url) == socket


def test_scrub_drops_a_secret_the_caller_holds_apart() -> None:
    message = "WRONGPASS for 'hunter2' at 127.0.0.1:6379"
    assert scrub(message, "redis://127.0.0.1:6379/0", ["hunter2"]) == (
        f"WRONGPASS for '{MASK}' at 127.0.0.1:6379"
    )


def test_scrub_masks_a_quoted_short_secret_even_when_it_is_also_a_known_name() -> None:
    """A password too short to cut out of the text (fewer than 3 characters) that is also
    the user or a host: quoted, it is masked, never kept as a known name."""
    message = 'password authentication failed for user "ab"'
    assert (
        scrub(message, "postgresql://ab:ab@h/db")
        == f'password authentication failed for user "{MASK}"'
    )
    assert scrub('host "h1" is down', "redis://h1:6379/0", ["h1"]) == f'host "{MASK}" is down'


def test_hide_drops_a_piece_that_holds_a_secret() -> None:
    url = "static://u:hunter2@1/2"
    assert hide("u:hunter2@1", url) == MASK
    assert hide("ttl", url) == "ttl"


def test_scrub_masks_a_name_that_may_be_the_rest_of_a_password() -> None:
    """``password=ab&host=cd``: a raw ``&`` may have cut the password ``ab&host=cd``, so
    ``cd`` is no known host to keep; a host before the password still is."""
    url = "postgresql://h/db?host=h2&password=ab&host=cd"
    message = 'could not connect to "cd", "h2" or "h"'
    assert scrub(message, url) == f'could not connect to "{MASK}", "h2" or "h"'
