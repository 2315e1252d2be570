"""The headers of a service safe to expose (issue 8 item 7) and links that stay on the site
(item 8), over real HTTP."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import httpx
import pytest

from snowid.web import Settings, create_app
from tests.support.web import fixed_identity_service, serving

SEED_QUERY = "timestamp=1288834975657&datacenter=1&machine=1&sequence=0"
HTML = {"Accept": "text/html"}


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    app = create_app(Settings(), service=fixed_identity_service(1, 1))
    with serving(app) as url, httpx.Client(base_url=url, timeout=10) as http:
        yield http


# (method, path, headers): every kind of answer, good and bad, page and API
ANSWERS = [
    ("GET", f"/?{SEED_QUERY}", HTML),
    ("GET", "/decode?id=4194439168", HTML),
    ("GET", "/no/such/page", HTML),
    ("GET", "/static/style.css", {}),
    ("GET", "/api/compose?datacenter=1&machine=1", {}),
    ("GET", "/api/compose?datacenter=99&machine=1", {}),
    ("GET", "/api/decode/4194439168", {}),
    ("POST", "/api/ids?count=2", {}),
    ("POST", "/api/ids?count=0", {}),
    ("GET", "/api/ids", {}),
    ("GET", "/api/nothing", {}),
    ("GET", "/healthz", {}),
    ("GET", "/readyz", {}),
    ("GET", "/metrics", {}),
    ("GET", "/openapi.json", {}),
]


@pytest.mark.parametrize(("method", "path", "headers"), ANSWERS)
def test_every_answer_carries_the_security_headers(
    client: httpx.Client, method: str, path: str, headers: dict[str, str]
) -> None:
    response = client.request(method, path, headers=headers)
    csp = response.headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    default = directives["default-src"]
    assert default == "'self'"
    for kind in ("script-src", "style-src", "img-src", "connect-src", "font-src"):
        assert directives.get(kind, default) == "'self'"  # a missing one falls back
    assert directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in csp
    assert "unsafe-eval" not in csp
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"
    assert "server" not in response.headers


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/api/ids"),
        ("POST", "/api/ids?count=0"),
        ("GET", "/api/compose?timestamp=&datacenter=1&machine=1"),
        ("GET", "/healthz"),
        ("GET", "/readyz"),
        ("GET", "/metrics"),
    ],
)
def test_fresh_answers_are_never_stored(client: httpx.Client, method: str, path: str) -> None:
    assert client.request(method, path).headers["cache-control"] == "no-store"


def test_fixed_answers_may_be_cached(client: httpx.Client) -> None:
    assert "cache-control" not in client.get("/api/decode/4194439168").headers


@pytest.mark.parametrize(
    ("method", "path", "headers"),
    [
        ("GET", f"/?{SEED_QUERY}", HTML),
        ("GET", "/decode", HTML),
        ("GET", "/no/such/page", HTML),
        ("GET", "/api/compose?datacenter=99&machine=1", {}),
        ("GET", "/api/decode/abc", {}),
        ("POST", "/api/ids?count=0", {}),
        ("GET", "/api/ids", {}),
        ("GET", "/api/nothing", {}),
    ],
)
def test_every_localized_answer_varies_on_language_and_cookie(
    client: httpx.Client, method: str, path: str, headers: dict[str, str]
) -> None:
    """Pages and errors are in the negotiated language: a cache must key on both."""
    response = client.request(method, path, headers=headers)
    vary = {part.strip().lower() for part in response.headers["vary"].split(",")}
    assert {"accept-language", "cookie"} <= vary
    assert len(response.headers.get_list("vary")) == 1


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.styles: list[str] = []
        self.scripts: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.urls += [v for k, v in attrs if k in ("href", "src", "action") and v is not None]
        if "style" in found:
            self.styles.append(tag)
        if tag == "script":
            self.scripts.append(found)
        if tag == "style":
            self.styles.append("<style>")
        self.styles += [k for k, _ in attrs if k.startswith("on")]  # onclick= is inline script


@pytest.mark.parametrize(
    "path",
    [f"/?{SEED_QUERY}", "/?timestamp=x&datacenter=99", "/decode?id=4194439168", "/nowhere"],
)
def test_the_page_has_no_inline_style_or_script(client: httpx.Client, path: str) -> None:
    """What the CSP's 'self' needs: every script and style from a file of the site."""
    parser = _Links()
    parser.feed(client.get(path, headers=HTML).text)
    assert parser.styles == []
    assert parser.scripts, "the page loads its script"
    for script in parser.scripts:
        # a JSON-LD data block is never run, so the CSP does not concern it
        assert script.get("src") or script.get("type") == "application/ld+json"


@pytest.mark.parametrize(
    "path",
    [
        "//evil.example/x",
        "//evil.example/x?a=b",
        "/\\evil.example/x",
        "///evil.example/x",
        "/%2F%2Fevil.example/x",
        "//evil.example",
    ],
)
def test_links_on_the_404_page_stay_on_this_site(client: httpx.Client, path: str) -> None:
    """The regression: the language links of the 404 page for ``//evil.example/x`` were
    ``href="//evil.example/x?lang=en"``, a link to another site."""
    url = f"{client.base_url}{path}"
    response = client.get(url, headers=HTML)
    assert response.status_code == 404
    parser = _Links()
    parser.feed(response.text)
    assert parser.urls
    origin = urlsplit(str(client.base_url)).netloc
    for link in parser.urls:
        resolved = urljoin(url, link)
        assert urlsplit(resolved).netloc == origin, (link, resolved)
        assert "evil.example" not in urlsplit(link).netloc
    assert not re.search(r'href="//', response.text)


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/decode/?id=1", "/decode?id=1"),
        ("/api/decode/4194439168/", "/api/decode/4194439168"),
        ("/range//", "/range"),
    ],
)
def test_a_trailing_slash_redirect_is_relative_whatever_the_host_header(
    client: httpx.Client, path: str, location: str
) -> None:
    """The regression: ``Host: evil.example`` gave ``location: http://evil.example/decode?id=1``."""
    answer = client.get(path, headers={"Host": "evil.example"})
    assert answer.status_code == 307
    assert answer.headers["location"] == location


def test_a_path_that_reads_as_another_host_is_not_redirected(client: httpx.Client) -> None:
    request = client.build_request("GET", "/")
    request.url = request.url.copy_with(raw_path=b"//evil.example/")
    answer = client.send(request)
    assert answer.status_code == 404
    assert "location" not in answer.headers
