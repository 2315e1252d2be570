"""Optional bearer tokens for issuing ids and for /metrics (issue 8 item 9)."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from snowid.cli import main
from snowid.errors import AuthTokenFileEmptyError, AuthTokenFileError
from snowid.web import Settings, create_app
from snowid.web._auth import CHECK_INTERVAL_S, TokenFile
from snowid.web.openapi import document
from tests.support.web import fixed_identity_service, serving

TOKEN = "s3cret-token-A"
OTHER = "tok_B/with+chars=="


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "tokens"
    path.write_text(f"# issuing clients\n\n  {TOKEN}  \n{OTHER}\n")
    return path


@pytest.fixture
def client(token_file: Path) -> Iterator[httpx.Client]:
    settings = Settings(auth_token_file=str(token_file))
    app = create_app(settings, service=fixed_identity_service(1, 1))
    with serving(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        yield http


def test_issuing_needs_a_token_from_the_file(client: httpx.Client) -> None:
    missing = client.post("/api/ids?count=2")
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert missing.json()["error"]["code"] == "auth_required"
    assert "Authorization: Bearer" in missing.json()["error"]["message"]
    wrong = client.post("/api/ids", headers=bearer("nope"))
    assert wrong.status_code == 401
    assert wrong.json()["error"]["code"] == "auth_invalid"
    assert 'error="invalid_token"' in wrong.headers["www-authenticate"]
    for token in (TOKEN, OTHER):
        response = client.post("/api/ids?count=2", headers=bearer(token))
        assert response.status_code == 200
        assert len(response.json()["ids"]) == 2
    assert client.post("/api/ids", headers={"Authorization": f"bearer  {TOKEN}"}).is_success


@pytest.mark.parametrize(
    "header",
    [
        f"Basic {TOKEN}",
        "Bearer",
        f"Bearer\t{TOKEN}",
        f"Bearer {TOKEN}x",
        f"Bearer {TOKEN[:-1]}",
        "Bearer # issuing clients",
        "Bearer #",
    ],
)
def test_anything_but_a_listed_token_is_refused(client: httpx.Client, header: str) -> None:
    response = client.post("/api/ids", headers={"Authorization": header})
    assert response.status_code == 401
    assert set(response.json()["error"]) == {"code", "message"}


def test_the_401_is_localized(client: httpx.Client) -> None:
    message = client.post("/api/ids?lang=vi").json()["error"]["message"]
    assert message.startswith("Điểm cuối này cần token")


def test_the_page_and_the_read_only_api_stay_open(client: httpx.Client) -> None:
    for path in ("/", "/decode?id=1", "/api/decode/4194439168", "/healthz", "/openapi.json"):
        assert client.get(path).status_code == 200, path
    assert client.get("/api/compose?datacenter=1&machine=1").status_code == 200
    assert client.get("/metrics").status_code == 200  # open unless --auth-metrics


def test_metrics_need_a_token_with_auth_metrics(token_file: Path) -> None:
    settings = Settings(auth_token_file=str(token_file), auth_metrics=True)
    app = create_app(settings, service=fixed_identity_service(1, 1))
    with serving(app) as url:
        refused = httpx.get(f"{url}/metrics")
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"].startswith("Bearer")
        assert httpx.get(f"{url}/metrics", headers=bearer(TOKEN)).status_code == 200
        assert httpx.get(f"{url}/healthz").status_code == 200


def test_the_file_is_re_read_when_it_changes_while_serving(
    token_file: Path, client: httpx.Client
) -> None:
    assert client.post("/api/ids", headers=bearer(TOKEN)).status_code == 200
    token_file.write_text("fresh-token\n")  # TOKEN revoked, a new one added
    deadline = CHECK_INTERVAL_S * 3
    waited = 0.0
    while client.post("/api/ids", headers=bearer(TOKEN)).status_code != 401:
        assert waited < deadline, "the revoked token was still accepted"
        waited += 0.1
        time.sleep(0.1)
    assert client.post("/api/ids", headers=bearer("fresh-token")).status_code == 200
    token_file.unlink()  # gone: fail closed
    time.sleep(CHECK_INTERVAL_S * 1.5)
    assert client.post("/api/ids", headers=bearer("fresh-token")).status_code == 401


class Ticker:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_file_is_checked_at_most_once_a_second(
    token_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ticker = Ticker()
    tokens = TokenFile(str(token_file), monotonic=ticker)
    stats: list[str] = []
    real_stat = os.stat
    monkeypatch.setattr(
        "snowid.web._auth.os.stat", lambda p, *a, **k: stats.append(p) or real_stat(p, *a, **k)
    )
    for _ in range(100):
        assert tokens.accepts(f"Bearer {TOKEN}")
    assert stats == []
    token_file.write_text("other\n")
    ticker.now += 0.5
    assert tokens.accepts(f"Bearer {TOKEN}")  # within the second: the old tokens hold
    ticker.now += 0.6
    assert not tokens.accepts(f"Bearer {TOKEN}")
    assert tokens.accepts("Bearer other")
    assert len(stats) == 1


def test_tokens_are_never_logged(token_file: Path, caplog: pytest.LogCaptureFixture) -> None:
    ticker = Ticker()
    tokens = TokenFile(str(token_file), monotonic=ticker)
    caplog.set_level(logging.DEBUG)
    token_file.write_text(f"{TOKEN}\nnew-secret-token\n")
    ticker.now += 2
    assert tokens.accepts("Bearer new-secret-token")
    token_file.write_text("")
    ticker.now += 2
    assert not tokens.accepts(f"Bearer {TOKEN}")
    assert "re-read" in caplog.text
    assert "holds no token" in caplog.text
    assert TOKEN not in caplog.text
    assert "new-secret-token" not in caplog.text


def test_an_empty_or_unreadable_file_is_a_startup_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.write_text("# only a comment\n\n   \n")
    with pytest.raises(AuthTokenFileEmptyError, match="holds no token"):
        create_app(Settings(auth_token_file=str(empty)), service=fixed_identity_service())
    with pytest.raises(AuthTokenFileError, match="cannot be read"):
        create_app(
            Settings(auth_token_file=str(tmp_path / "missing")), service=fixed_identity_service()
        )


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_serve_refuses_an_unusable_token_file_before_starting(
    tmp_path: Path, lang: str, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.write_text("\n# nothing\n")
    unreadable = tmp_path / "unreadable"
    unreadable.write_text(f"{TOKEN}\n")
    unreadable.chmod(0)
    cases = [(empty, "holds no token", "không chứa token")]
    if not os.access(unreadable, os.R_OK):  # root reads anything
        cases.append((unreadable, "cannot be read", "không đọc được"))
    for path, english, vietnamese in cases:
        argv = ["--lang", lang, "serve", "--lease", "static://1/1", "--auth-token-file", str(path)]
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert err.startswith("Error: " if lang == "en" else "Lỗi: ")
        assert (english if lang == "en" else vietnamese) in err
        assert str(path) in err
        assert "Traceback" not in err
        assert TOKEN not in err


def test_the_openapi_document_declares_the_bearer_scheme(client: httpx.Client) -> None:
    doc = client.get("/openapi.json").json()
    assert doc["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "One of the tokens in the server's --auth-token-file.",
    }
    issue = doc["paths"]["/api/ids"]["post"]
    assert issue["security"] == [{"bearer": []}]
    assert "401" in issue["responses"]
    assert "security" not in doc["paths"]["/metrics"]["get"]
    assert "security" not in doc["paths"]["/api/compose"]["get"]
    both = document(auth=True, auth_metrics=True)
    assert both["paths"]["/metrics"]["get"]["security"] == [{"bearer": []}]
    assert "securitySchemes" not in document()["components"]
