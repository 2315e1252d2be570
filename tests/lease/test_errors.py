"""Lease errors: every refusal has its own code and an en + vi message, names the field,
the URL without its password and what is allowed; OS failures of the state directory are
lease errors (never a traceback, never an HTTP 500)."""

from __future__ import annotations

import inspect
import shutil
import string
import time
from pathlib import Path

import httpx
import pytest

from snowid import Generator, errors
from snowid.cli import main
from snowid.errors import (
    LEASE_URL_REASONS,
    InvalidLeaseUrlError,
    LeaseError,
    LeaseLostError,
    StateDirUnusableError,
)
from snowid.i18n import catalog
from snowid.lease import FileLease, Lease, open_lease
from snowid.lease._url import parse_lease_url, redact
from snowid.web import IdService, Settings, create_app
from tests.support.web import serving

# --- every lease URL refusal has a reason with its message in both catalogs ---------


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _lease_messages() -> list[str]:
    """The catalog key of every error that names a lease URL: each reason's, the state dir's."""
    return [f"invalid_lease_url.{reason}" for reason in LEASE_URL_REASONS] + [
        StateDirUnusableError.code
    ]


def test_the_reasons_cover_each_refusal_the_lease_package_raises() -> None:
    assert "unknown_scheme" in LEASE_URL_REASONS
    assert len(LEASE_URL_REASONS) >= 13
    assert len(set(LEASE_URL_REASONS)) == len(LEASE_URL_REASONS)


@pytest.mark.parametrize("key", _lease_messages())
def test_each_lease_url_refusal_has_its_message_in_both_catalogs(key: str) -> None:
    en, vi = catalog("en"), catalog("vi")
    assert key in en
    assert key in vi
    assert _placeholders(en[key]) == _placeholders(vi[key])
    assert {"field", "value"} <= _placeholders(en[key])
    assert en[key] != vi[key]


def test_one_class_for_every_lease_url_refusal() -> None:
    """The 13 near-identical classes are gone: one InvalidLeaseUrlError, told apart by reason."""
    subclasses = [
        cls
        for _, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, InvalidLeaseUrlError) and cls is not InvalidLeaseUrlError
    ]
    assert subclasses == []


# --- each bad URL: its reason, the field, the redacted URL, both languages ----------

BAD_URLS: list[tuple[str, str, str]] = [
    ("postgresql://u:s3cret@[::1/db", "syntax", "[brackets]"),
    ("ftp://u:s3cret@x", "unknown_scheme", "static:, file:, postgresql:"),
    ("redis://:s3cret@h/0?durability=maybe", "choice", "strict, best_effort"),
    ("static://1/1?x=1", "unknown_option", "state_dir"),
    ("static://1/1?delta=0.1", "unknown_option", "state_dir"),  # slot tuning needs state_dir
    ("file:///tmp/x?colour=red", "unknown_option", "allow_volatile"),
    ("file:///tmp/x?rnage=0-7", "unknown_option", "rnage; did you mean range?"),
    ("postgresql://u:s3cret@h/db?rnage=200-203", "unknown_option", "did you mean range?"),
    ("postgresql://u:s3cret@h/db?sslmdoe=require", "unknown_option", "did you mean sslmode?"),
    ("postgresql://u:s3cret@h/db?colour=red", "unknown_option", "libpq's connection param"),
    ("redis://:s3cret@h1:6379,h2:6379/0", "host_list", "one HOST:PORT"),
    ("file:///tmp/x?range=1-2&range=3-4", "duplicate_option", "range"),
    ("postgresql://u:s3cret@h/db?ttl=1&ttl=2", "duplicate_option", "ttl"),
    ("static:?worker=\u0661", "integer", "0..1023"),
    ("static:?worker=1024", "range", "0..1023"),
    ("static://\u0661/\u0662", "integer", "0..31"),
    ("static://a/b", "integer", "0..31"),
    ("static://32/0", "range", "0..31"),
    ("static:?datacenter=1&machine=99", "range", "0..31"),
    ("static:?worker=" + "9" * 5000, "range", "0..1023"),
    ("file:///tmp/x?datacenter=\u0663", "integer", "0..31"),
    ("file:///tmp/x?range=\u0661-\u0662", "worker_range", "1023"),
    ("file:///tmp/x?range=5-2", "worker_range", "1023"),
    ("file:///tmp/x?range=0-1024", "worker_range", "1023"),
    ("file:///tmp/x?range=-1-2", "worker_range", "1023"),
    ("file:///tmp/x?delta=abc", "seconds", "0.001"),
    ("file:///tmp/x?delta=\u0661", "seconds", "0.001"),
    ("file:///tmp/x?delta=1", "range", "0.001..0.25"),  # above the write-ahead horizon
    ("file:///tmp/x?max_wait=nan", "seconds", "0"),
    ("postgresql://u:s3cret@h/db?ttl=-1", "seconds", "0.05"),
    ("postgresql://u:s3cret@h/db?ttl=inf", "seconds", "0.05"),
    ("file:///tmp/x?allow_volatile=maybe", "bool", "yes"),
    ("static:", "static_identity_missing", "static:?worker="),
    ("file://otherhost/tmp/x", "file_host", "otherhost"),
    ("file://u:s3cret@otherhost/tmp/x", "file_host", "file:///path"),
    ("postgresql://u:s3cret@127.0.0.1:abc/db", "port", "1..65535"),
    ("postgresql://u:s3cret@127.0.0.1:99999/db", "port", "1..65535"),
    ("postgresql://u:s3cret@127.0.0.1:0/db", "port", "1..65535"),
    ("postgresql://u:s3cret@127.0.0.1:\u0665432/db", "port", "1..65535"),
    ("postgresql://u:s3cret@h1:5432,h2:x/db", "port", "1..65535"),
    ("postgresql://u:s3cret@[::1]:70000/db", "port", "1..65535"),
    ("postgresql://u:s3cret@h/db?table=Robert';drop", "identifier", "lower-case"),
    ("file:///tmp/snowid%0Astate", "control_character", "U+000A"),
    ("file:///tmp/snowid%7F", "control_character", "U+007F"),
    ("static://1/2?state_dir=/tmp/snowid%0D", "control_character", "U+000D"),
    ("mysql://u:s3cret@h:3306/?ttl=1", "database_missing", "mysql://USER"),
    ("k8s:?ordinal_env=POD-INDEX", "env_name", "ASCII letters"),
    ("redis://:s3cret@h/0?password_file=/run/pw", "password_twice", "password_file="),
    ("mysql://u:s3cret@h/db?password_file=/run/pw", "password_twice", "password_file="),
    ("host=h dbname=db password=s3cret", "not_a_url", "postgresql://HOST"),
    ("k8s://u:s3cret@h/var/lib", "no_location", "state_dir="),
    ("etcd://u:s3cret@127.0.0.1:2379/fleet", "password_inline", "password_file="),
    ("etcd://127.0.0.1:2379/a//b?password_file=/run/s3cret", "key_prefix", "ASCII letters"),
    ("redis+sentinel://:s3cret@h1:26379,h2:26379/", "sentinel_service", "/SERVICE/DB"),
    ("redis+sentinel://:s3cret@h1:26379/a/0/b", "sentinel_service", "redis+sentinel://HOST"),
    ("redis+sentinel://:s3cret@h1:26379,h2/mymaster/x", "integer", "0..65535"),
    ("redis+sentinel://:s3cret@h1:26379/mymaster/65536", "range", "0..65535"),
    ("redis+sentinel://:s3cret@h1:26379,h2:0/mymaster/0", "port", "1..65535"),
    ("redis+sentinel://:s3cret@h1/m/0?password_file=/run/pw", "password_twice", "password_file="),
    (
        "redis+sentinel://h1/m/0?sentinel_pasword_file=/run/s3cret",
        "unknown_option",
        "did you mean sentinel_password_file?",
    ),
    ("redis://:s3cret@h/0?replication=sync", "replication_sync", "WAIT"),
    ("zookeeper://app:s3cret@127.0.0.1:2181/fleet", "password_inline", "password_file="),
    ("zookeeper://127.0.0.1:2181/fleet/../x?password_file=/run/s3cret", "key_prefix", "no name"),
]


def test_the_bad_urls_cover_every_reason_of_the_parser() -> None:
    assert {reason for _, reason, _ in BAD_URLS} == set(LEASE_URL_REASONS) - {"static_workers"}


@pytest.mark.parametrize(("url", "reason", "allowed"), BAD_URLS)
def test_a_bad_url_says_its_reason_in_english_and_vietnamese(
    url: str, reason: str, allowed: str
) -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(url).close()
    error = caught.value
    assert type(error) is InvalidLeaseUrlError
    assert error.reason == reason
    assert error.code == "invalid_lease_url"
    assert error.field == "lease"
    assert error.value == redact(url.strip())
    english, vietnamese = str(error), error.message("vi")
    assert english.startswith("lease URL ")
    assert vietnamese.startswith("không dùng được URL cấu hình thuê ")
    for text in (english, vietnamese):
        assert "s3cret" not in text
        assert "{" not in text  # every placeholder filled
        assert str(error.value)[:30] in text
        assert len(text) < 600  # a huge value is shortened
    assert allowed in english
    assert english != vietnamese


@pytest.mark.parametrize(
    "url",
    [
        "file:///tmp/snowid\tstate?range=0-3",  # urlsplit silently dropped tabs...
        "file:///tmp/snowid\nstate",  # ...and line breaks: /tmp/snowidstate was used
        "file:///tmp/snowid\x00state",
        "file:///tmp/snowid\x85state",
        "static://1/2?state_dir=/tmp/snowid\rstate",
        "postgresql://u:s3cret@h/db\n?ttl=1",
    ],
)
def test_a_control_character_in_the_url_is_refused_not_stripped(url: str) -> None:
    """Issue 8 item 13: ``file:///tmp/a<TAB>b`` opened the slots in ``/tmp/ab``."""
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease(url).close()
    error = caught.value
    assert (error.reason, error.value) == ("control_character", redact(url))
    english, vietnamese = str(error), error.message("vi")
    char = next(c for c in url if not c.isprintable())
    for text in (english, vietnamese):
        assert f"U+{ord(char):04X}" in text
        assert char not in text  # shown escaped, never printed raw
        assert "s3cret" not in text


def test_a_control_character_in_a_keyword_state_dir_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease("static://1/2", state_dir=f"{tmp_path}/a\nb")
    assert caught.value.reason == "control_character"
    assert not (tmp_path / "a\nb").exists()


def test_a_keyword_option_overrides_the_query_and_is_not_a_duplicate(tmp_path: Path) -> None:
    lease = open_lease(f"file://{tmp_path}?range=0-3", range=(8, 9))
    assert isinstance(lease, FileLease)
    assert (lease.first, lease.last) == (8, 9)


def test_numbers_follow_the_core_rules(tmp_path: Path) -> None:
    lease = open_lease(f"file://{tmp_path}?range= 4 - 5 &delta=0.2&max_wait=.25")
    assert isinstance(lease, FileLease)
    assert (lease.first, lease.last, lease.delta_ms, lease.max_wait_ms) == (4, 5, 200, 250)
    with pytest.raises(InvalidLeaseUrlError) as caught:
        parse_lease_url("static:?worker=\u0661").integer("worker", 0, 1023)
    assert caught.value.reason == "integer"


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://u:pw@127.0.0.1:5432/db",
        "postgresql://u:pw@127.0.0.1:65535/db",
        "postgresql://u:pw@[::1]:5432/db",
        "postgresql://u:pw@h1:5432,h2:5433/db",
        "postgresql://u:pw@h1,h2/db",
        "postgresql:///db?host=/run/postgresql",
    ],
)
def test_good_ports_and_host_lists_are_accepted(url: str) -> None:
    with open_lease(url) as lease:  # nothing is claimed: no connection is made
        assert type(lease).__name__ == "PostgresLease"


# --- redaction never leaks a password --------------------------------------------------


def test_the_status_command_never_prints_a_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lease", "status", "postgresql://u:s3cret@127.0.0.1:0/db"]) == 1
    assert "s3cret" not in capsys.readouterr().err


# --- the state directory ------------------------------------------------------------


def _blocker(tmp_path: Path) -> Path:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    return blocker


@pytest.mark.parametrize("where", ["file", "below-a-file", "proc"])
def test_a_state_dir_that_cannot_be_a_directory_is_a_lease_error(
    tmp_path: Path, where: str
) -> None:
    path = {
        "file": _blocker(tmp_path),
        "below-a-file": _blocker(tmp_path) / "slots",
        "proc": Path("/proc/snowid-cannot-be-here"),
    }[where]
    lease = open_lease(f"file://{path}")
    assert isinstance(lease, FileLease)
    with lease:
        with pytest.raises(StateDirUnusableError) as caught:
            lease.acquire(0)
        assert lease.state == "unclaimed"
        assert lease.ceiling_ms == -1
        with pytest.raises(StateDirUnusableError):
            lease.prepare()
    error = caught.value
    assert isinstance(error, LeaseError)
    assert (error.field, error.path) == ("lease", str(path))
    assert str(path) in str(error)
    assert str(path) in error.message("vi")
    assert "(E" in str(error)  # the OS reason, e.g. "File exists (EEXIST)"


def test_init_and_status_report_the_path_in_vietnamese(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = _blocker(tmp_path)
    for argv in (["lease", "init", f"file://{blocker}"], ["lease", "status", f"file://{blocker}"]):
        assert main(["--lang", "vi", *argv]) == 1
        err = capsys.readouterr().err
        assert err.startswith("Lỗi: không dùng được URL cấu hình thuê")
        assert f"thư mục trạng thái {blocker}" in err


def test_status_of_a_state_dir_not_created_yet_is_empty(tmp_path: Path) -> None:
    from snowid.lease import lease_status

    assert lease_status(f"file://{tmp_path / 'not-yet'}") == []


def test_serve_refuses_a_state_dir_that_cannot_be_a_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = _blocker(tmp_path)
    assert main(["--lang", "en", "serve", "--lease", f"file://{blocker}"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: lease URL ")
    assert f"the state directory {blocker} cannot be" in err


def _service(url: str) -> tuple[IdService, list[FileLease]]:
    leases: list[FileLease] = []

    def build() -> tuple[Generator, Lease | None]:
        lease = open_lease(url)
        assert isinstance(lease, FileLease)
        leases.append(lease)
        return Generator(fence=lease), lease

    return IdService(build), leases


def test_service_on_an_unusable_state_dir_starts_not_ready_and_answers_503(
    tmp_path: Path,
) -> None:
    service, _ = _service(f"file://{_blocker(tmp_path)}")
    with serving(create_app(Settings(), service=service)) as url:
        ready = httpx.get(f"{url}/readyz")
        assert ready.status_code == 503
        assert ready.json()["ready"] is False
        response = httpx.post(f"{url}/api/ids")
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "lease_state_dir"


def test_state_dir_replaced_while_held_answers_503_lease_lost_never_500(tmp_path: Path) -> None:
    state = tmp_path / "slots"
    service, leases = _service(f"file://{state}?range=2-2&delta=0.001")
    with serving(create_app(Settings(), service=service)) as url:
        assert httpx.post(f"{url}/api/ids").status_code == 200
        assert httpx.get(f"{url}/readyz").status_code == 200
        shutil.rmtree(state)
        state.write_text("not a directory")
        time.sleep(0.05)  # past the 1 ms ceiling: the next id must extend it
        response = httpx.post(f"{url}/api/ids")
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "lease_lost"
        ready = httpx.get(f"{url}/readyz")
        assert ready.status_code == 503
        assert ready.json()["lease"] == "lost"
        again = httpx.post(f"{url}/api/ids")  # the claim that follows cannot use the path
        assert again.status_code == 503
        assert again.json()["error"]["code"] == "lease_state_dir"
        (lease,) = leases
        assert lease.ceiling_ms == -1
        assert [event.kind for event in lease.events][-1] == "lost"


def test_slot_file_unreachable_while_held_is_lost(tmp_path: Path) -> None:
    state = tmp_path / "slots"
    lease = open_lease(f"file://{state}?range=0-0&delta=0.001")
    assert isinstance(lease, FileLease)
    with lease:
        grant = lease.acquire(0)
        shutil.rmtree(state)
        state.write_text("x")
        with pytest.raises(LeaseLostError):
            lease.acquire(grant.ceiling_ms + 10_000)
        assert (lease.state, lease.ceiling_ms) == ("lost", -1)


# --- regression tests from the first wave's reviews (each failed before its fix) ---


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("url", "english"),
    [
        ("ftp://x", "the scheme must be"),
        ("file:///nonexistent/snowid-review?range=5-2", "must lie in"),
        ("static://1/1?x=1", "unknown option"),
    ],
)
# Adversarial review, finding 7: lease URL reasons stay in English under --lang vi (failed before its fix).
def test_lease_url_errors_are_vietnamese_under_lang_vi(
    capsys: pytest.CaptureFixture[str], url: str, english: str
) -> None:
    code, _, err = run(capsys, "--lang", "vi", "generate", "--lease", url)
    assert code == 1
    assert err.startswith("Lỗi: ")
    assert english not in err
