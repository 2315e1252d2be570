"""No piece of a password in any output, for every documented lease URL form and for the
forms the strict reader refuses (issue 24 §4).

The forms: each store's URL as docs/leases.md, lease-redis.md, lease-mysql.md and
lease-k8s.md write it (PostgreSQL's Unix-socket and host-list forms included), the
multi-host forms coming next (``redis+sentinel://H:P,H:P/SERVICE/DB``,
``etcd://H:P,H:P/PREFIX``, ``zookeeper://H:P,H:P/PATH``), and libpq ``key=value`` strings.
Each is also drawn refused: a raw ``@ / ? #`` in the password, a bad port or bracket, an
unknown scheme, misspelt and unknown options, a raw ``&`` cutting a query password short.

The password is written with marker characters (Greek letters) found nowhere else in the
URL or in any message (as in tests/core/test_redact.py), mixed with the characters that
break naive splitting; a marker in an output, raw or percent-encoded, is a leak. Outputs:
the display form, the kind, every message and attribute of the error ``open_lease`` raises
(both languages, the repr), or the URL and repr of the lease it opens, and a libpq error
about the URL once scrubbed.
"""

from __future__ import annotations

from urllib.parse import quote

import psycopg
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from snowid.errors import SnowIdError
from snowid.lease import open_lease, redact, scrub, url_kind

MARKERS = "ΣΔΩΘΛΞΠΦΨ"
ENCODED = [quote(marker) for marker in MARKERS]
BREAKERS = "/?#@:%&= '\\+[],;"
LOWER = "abcdefghijklmnopqrstuvwxyz"


def _leaked(text: str) -> set[str]:
    upper = text.upper()
    return {char for char in text if char in MARKERS} | {e for e in ENCODED if e in upper}


passwords = st.text(alphabet=MARKERS + BREAKERS, min_size=1, max_size=20).filter(
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

# (scheme, path after the hosts): the documented forms and the coming multi-host ones
FORMS = st.sampled_from(
    [
        ("postgresql", "/db"),
        ("postgres", "/db"),
        ("redis", "/0"),
        ("rediss", "/3"),
        ("mysql", "/db"),
        ("mariadb", "/db"),
        ("redis+sentinel", "/mymaster/0"),
        ("etcd", "/snowid"),
        ("zookeeper", "/snowid/leases"),
        ("file", "/var/lib/snowid"),  # refused: file slots live on this host
        ("static", "/2"),
        ("k8s", ""),  # refused: no location
        ("memcached", "/x"),  # refused: unknown scheme
        ("POSTGRESQL", "/db"),
    ]
)
options = st.lists(
    st.tuples(
        st.sampled_from(
            ["range", "rnage", "ttl", "sslmode", "sslmdoe", "colour", "table", "key", "durability"]
        ),
        names,
    ),
    max_size=3,
    unique_by=lambda pair: pair[0],
).map(lambda pairs: [f"{key}={value}" for key, value in pairs])
secret_keys = st.sampled_from(["password", "sslpassword", "token", "pass%77ord"])


@st.composite
def userinfo_urls(draw: st.DrawFn) -> str:
    """``scheme://user:PASSWORD@hosts/path?options``: the password raw (``@ / ? #`` and
    all) or percent-encoded."""
    password = draw(passwords)
    if draw(st.booleans()):
        password = quote(password, safe="")
    scheme, path = draw(FORMS)
    user = draw(st.one_of(st.just(""), names))
    query = "&".join(draw(options))
    return f"{scheme}://{user}:{password}@{draw(hosts)}{path}{'?' + query if query else ''}"


@st.composite
def query_urls(draw: st.DrawFn) -> str:
    """``scheme://user@hosts/path?…&password=PASSWORD&…``, the password raw (a raw ``&``
    cuts it short: the rest reads as options, which may be misspelt or unknown) or
    percent-encoded."""
    password = draw(passwords)
    if draw(st.booleans()):
        password = quote(password, safe="")
    scheme, path = draw(FORMS)
    user = draw(st.one_of(st.just(""), names.map(lambda name: name + "@")))
    before, after = draw(options), draw(options)
    query = "&".join([*before, f"{draw(secret_keys)}={password}", *after])
    return f"{scheme}://{user}{draw(hosts)}{path}?{query}"


@st.composite
def conninfo_strings(draw: st.DrawFn) -> str:
    """libpq ``key=value`` strings; the secret quoted when it must be (or by choice)."""
    password = draw(passwords)
    needs_quotes = any(char.isspace() or char in "'\\" for char in password)
    if needs_quotes or draw(st.booleans()):
        password = "'" + password.replace("\\", "\\\\").replace("'", "\\'") + "'"
    key = draw(st.sampled_from(["password", "sslpassword"]))
    parts = [f"host={draw(names)}", f"port={draw(ports)}", f"{key}={password}"]
    return " ".join(draw(st.permutations([*parts, f"dbname={draw(names)}"])))


any_form = st.one_of(userinfo_urls(), query_urls(), conninfo_strings())


def _everything_said(error: SnowIdError) -> str:
    """Both languages, the repr and every attribute of the error."""
    return " ".join([error.message("en"), error.message("vi"), repr(error), repr(vars(error))])


@given(any_form)
@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=400)
@example("postgresql://app:sΣc/ret@h1:5432,h2/db?rnage=1")  # raw "/": refused, hidden
@example("postgresql://app@h/db?password=ΣΔ&ΩΘ=1&rnage=2")  # raw "&": the rest is not named
@example("postgresql://app@h/db?password=Σ&ttl=Δ")  # ... nor read as a value
@example("redis://:Σ@h:abc/0")  # bad port
@example("redis+sentinel://:Σ,Δ@h1:26379,h2:26379/mymaster/0")
@example("etcd://u:Σ@@h1:2379,h2:2379/snowid")  # raw "@" in a host list
@example("memcached://u:Σ@h/x")  # unknown scheme
@example("host=h port=abc password='Σ Δ'")
def test_no_output_holds_a_piece_of_a_password(url: str) -> None:
    said = [redact(url), url_kind(url)]
    try:
        lease = open_lease(url)
    except SnowIdError as error:
        said.append(_everything_said(error))
    else:
        said += [lease.url, repr(lease)]
        lease.close()
    assert not _leaked(" ".join(said))


@given(any_form)
def test_a_libpq_error_about_the_url_is_scrubbed(url: str) -> None:
    message = ""
    try:
        psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.Error as error:
        message = str(error)
    assert not _leaked(scrub(message, url))
