"""The raw ``POST /api/ids`` route in front of Starlette (issue 20 §6): it answers the usual
request with exactly the Starlette route's headers and body shape, and hands every other
request, every error among them, to the Starlette route.

Each request goes to two apps built alike: ``create_app``'s own (raw route on, with a spy
on what it hands on) and one with the raw route off (``fast_ids = None``: the Starlette
route answers everything). Called in-process through ASGI, so the header lists are
compared as sent, in order, byte for byte.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from snowid import Generator
from snowid.errors import NoFreeIdentityError
from snowid.web import IdService, Settings, create_app
from snowid.web._fast_ids import FastIds, ids_body, usual_count
from snowid.web._headers import SecurityHeaders
from tests.support.web import fixed_identity_service, serving

TOKEN = "fast-route-token"
GOOD = {"Authorization": f"Bearer {TOKEN}"}


@dataclass
class Answer:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes
    raised: str | None = None  # the exception the app let out (Starlette re-raises a 500's)


@dataclass
class Pair:
    """The app as built (raw route on) and the same app with the Starlette route only."""

    fast: ASGIApp
    routed: ASGIApp
    handed: list[str] = field(default_factory=list)  # what the raw route handed on


def build_pair(settings: Settings, service: IdService) -> Pair:
    fast = create_app(settings, service=service)
    routed = create_app(settings, service=service)
    routed.fast_ids = None  # type: ignore[attr-defined]
    pair = Pair(fast, routed)
    make_fast_route: Callable[[ASGIApp], ASGIApp] = fast.fast_ids  # type: ignore[attr-defined]

    def spied(inner: ASGIApp) -> ASGIApp:
        async def starlette(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http":
                pair.handed.append(f"{scope['method']} {scope['path']}")
            await inner(scope, receive, send)

        return make_fast_route(starlette)

    fast.fast_ids = spied  # type: ignore[attr-defined]
    return pair


def call(app: ASGIApp, method: str, target: str, headers: dict[str, str] | None = None) -> Answer:
    path, _, query = target.partition("?")
    scope: Scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [
            (b"host", b"test"),
            *((k.lower().encode(), v.encode()) for k, v in (headers or {}).items()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    async def run() -> None:
        await app(scope, receive, send)

    raised = None
    try:
        asyncio.run(run())
    except Exception as error:  # compared between the two apps
        raised = f"{type(error).__name__}: {error}"
    start, *bodies = sent
    body = b"".join(message.get("body", b"") for message in bodies)
    return Answer(start["status"], list(start["headers"]), body, raised)


def assert_same_answer(fast: Answer, routed: Answer) -> None:
    assert fast.status == routed.status
    assert fast.headers == routed.headers  # every header, in order, byte for byte
    names = [name for name, _ in fast.headers]
    assert b"content-security-policy" in names  # not two empty lists
    assert fast.raised == routed.raised
    if fast.status == 200:  # fresh ids: the same shape, one decimal string each
        fast_ids, routed_ids = json.loads(fast.body)["ids"], json.loads(routed.body)["ids"]
        assert len(fast_ids) == len(routed_ids)
        assert all(isinstance(i, str) and i.isdigit() for i in fast_ids + routed_ids)
    else:
        assert fast.body == routed.body
        assert set(json.loads(fast.body)) == {"error"}


@pytest.fixture(scope="module")
def open_pair() -> Pair:
    return build_pair(Settings(max_count=4096), fixed_identity_service(2, 3))


@pytest.fixture(scope="module")
def token_pair(tmp_path_factory: pytest.TempPathFactory) -> Pair:
    path = tmp_path_factory.mktemp("tokens") / "tokens"
    path.write_text(f"# clients\n{TOKEN}\n")
    return build_pair(Settings(auth_token_file=str(path)), fixed_identity_service(2, 4))


ANSWERED_OPEN = ["/api/ids", "/api/ids?count=1", "/api/ids?count=7", "/api/ids?count=4096"]


@pytest.mark.parametrize("target", ANSWERED_OPEN)
def test_the_raw_route_answers_the_usual_request_as_starlette_would(
    open_pair: Pair, target: str
) -> None:
    open_pair.handed.clear()
    fast = call(open_pair.fast, "POST", target)
    assert open_pair.handed == []  # answered in front of Starlette
    assert fast.status == 200
    assert (b"cache-control", b"no-store") in fast.headers
    assert_same_answer(fast, call(open_pair.routed, "POST", target))


def test_an_empty_body_with_its_length_is_still_the_usual_request(open_pair: Pair) -> None:
    """``Content-Length: 0`` (what snowid's own client and most HTTP clients send on a POST
    with no body) stays on the raw route: only a body hands the request on."""
    open_pair.handed.clear()
    fast = call(open_pair.fast, "POST", "/api/ids?count=3", {"Content-Length": "0"})
    assert open_pair.handed == []
    assert len(json.loads(fast.body)["ids"]) == 3


HANDED_OPEN = [
    ("POST", "/api/ids?count=0", {}),
    ("POST", "/api/ids?count=4097", {}),
    ("POST", "/api/ids?count=abc", {}),
    ("POST", "/api/ids?count=", {}),
    ("POST", "/api/ids?count=-1", {}),
    ("POST", "/api/ids?count=99999999999999999999", {}),
    ("POST", "/api/ids?count=1&count=2", {}),
    ("POST", "/api/ids?count=0", {"Accept-Language": "vi"}),
    ("POST", "/api/ids?count=0&lang=vi", {}),
    ("POST", "/api/ids?count=2&lang=vi", {}),
    ("POST", "/api/ids?lang=en", {}),
    ("POST", "/api/ids?COUNT=5", {}),  # issue 25: an unknown parameter is the route's 400
    ("POST", "/api/ids?count=2&bogus=1", {}),
    ("POST", "/api/ids", {"Content-Type": "application/x-www-form-urlencoded"}),  # a form
    ("POST", "/api/ids?count=2", {"Content-Type": "multipart/form-data; boundary=x"}),
    ("POST", "/api/ids", {"Content-Type": "application/json", "Content-Length": "12"}),
    ("POST", "/api/ids?count=2", {"Transfer-Encoding": "chunked"}),  # a body of unknown length
    ("GET", "/api/ids?count=1", {}),
    ("PUT", "/api/ids", {}),
    ("HEAD", "/api/ids", {}),
    ("POST", "/api/ids/x", {}),
]


@pytest.mark.parametrize(("method", "target", "headers"), HANDED_OPEN)
def test_anything_else_goes_to_the_starlette_route(
    open_pair: Pair, method: str, target: str, headers: dict[str, str]
) -> None:
    """Bad counts, other queries, other methods and paths: the answer, errors included,
    is the Starlette route's own."""
    open_pair.handed.clear()
    fast = call(open_pair.fast, method, target, headers)
    assert open_pair.handed == [f"{method} {target.partition('?')[0]}"]
    routed = call(open_pair.routed, method, target, headers)
    if method == "HEAD":  # no body to read: the headers still match
        assert (fast.status, fast.headers) == (routed.status, routed.headers)
        return
    assert_same_answer(fast, routed)


def test_a_count_out_of_range_is_the_same_localized_422(open_pair: Pair) -> None:
    answer = call(open_pair.fast, "POST", "/api/ids?count=0", {"Accept-Language": "vi"})
    error = json.loads(answer.body)["error"]
    assert answer.status == 422
    assert error["code"] == "out_of_range"
    assert "1..4096" in error["message"]
    english = json.loads(call(open_pair.fast, "POST", "/api/ids?count=0").body)["error"]
    assert error["message"] != english["message"]
    assert (b"vary", b"Accept-Language, Cookie") in answer.headers


@pytest.mark.parametrize("target", ["/api/ids", "/api/ids?count=3"])
def test_with_tokens_a_good_token_is_answered_by_the_raw_route(
    token_pair: Pair, target: str
) -> None:
    token_pair.handed.clear()
    fast = call(token_pair.fast, "POST", target, GOOD)
    assert token_pair.handed == []
    assert fast.status == 200
    assert_same_answer(fast, call(token_pair.routed, "POST", target, GOOD))


HANDED_TOKENS = [
    ("POST", "/api/ids?count=1", {}),  # missing
    ("POST", "/api/ids?count=1", {"Authorization": "Bearer nope"}),
    ("POST", "/api/ids?count=1", {"Authorization": f"Basic {TOKEN}"}),
    ("POST", "/api/ids?count=1", {"Authorization": f"Bearer {TOKEN}x"}),
    ("POST", "/api/ids", {"Accept-Language": "vi"}),
    ("POST", "/api/ids?count=0", {}),  # missing token and a bad count: the 401 first
    ("POST", "/api/ids?count=0", GOOD),
    ("POST", "/api/ids?count=x", GOOD),
    ("GET", "/api/ids", GOOD),
]


@pytest.mark.parametrize(("method", "target", "headers"), HANDED_TOKENS)
def test_with_tokens_every_refusal_is_the_starlette_routes(
    token_pair: Pair, method: str, target: str, headers: dict[str, str]
) -> None:
    token_pair.handed.clear()
    fast = call(token_pair.fast, method, target, headers)
    assert token_pair.handed == [f"{method} /api/ids"]
    assert fast.status in (401, 405, 400, 422)
    assert_same_answer(fast, call(token_pair.routed, method, target, headers))


@pytest.mark.parametrize("target", ["/api/ids?count=3", "/api/ids?count=0"])
def test_while_draining_both_routes_add_connection_close_alike(target: str) -> None:
    """Issue 25 §3: during the drain the raw route's answer carries ``Connection: close``
    as the Starlette route's does (an error's too), and neither does before."""
    service = fixed_identity_service(2, 6)
    pair = build_pair(Settings(), service)
    before = call(pair.fast, "POST", target)
    assert b"connection" not in [name for name, _ in before.headers]
    service.draining = True
    pair.handed.clear()
    fast = call(pair.fast, "POST", target)
    assert pair.handed == ([] if target.endswith("=3") else ["POST /api/ids"])
    assert (b"connection", b"close") in fast.headers
    assert_same_answer(fast, call(pair.routed, "POST", target))


def test_a_missing_token_gets_the_401_with_its_challenge(token_pair: Pair) -> None:
    answer = call(token_pair.fast, "POST", "/api/ids?count=1")
    assert answer.status == 401
    assert json.loads(answer.body)["error"]["code"] == "auth_required"
    assert (b"www-authenticate", b'Bearer realm="snowid"') in answer.headers


class Failing:
    """An id source that cannot issue: ``error`` is raised at every attempt, counted."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.attempts = 0

    def __call__(self) -> tuple[Generator, None]:
        self.attempts += 1
        raise self.error


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (NoFreeIdentityError(first=0, last=1023, store="fake://store"), 503),
        (RuntimeError("a bug in the id source"), 500),
    ],
)
def test_a_failing_service_gets_the_app_error_answer_after_one_attempt(
    error: Exception, status: int
) -> None:
    """The raw route hands the service's error to the Starlette route, which shows it with
    the app's own handlers (503 with Retry-After; a bug's 500, re-raised for the log)
    without asking the service again."""
    source = Failing(error)
    pair = build_pair(Settings(), IdService(source))
    fast = call(pair.fast, "POST", "/api/ids?count=1")
    assert source.attempts == 1
    assert pair.handed == ["POST /api/ids"]
    routed = call(pair.routed, "POST", "/api/ids?count=1")
    assert fast.status == status
    assert_same_answer(fast, routed)
    if status == 503:
        assert (b"retry-after", b"1") in fast.headers
        assert b"fake://store" not in fast.body  # where the store is stays in the log
    else:
        assert fast.raised == "RuntimeError: a bug in the id source"


def test_create_app_puts_the_raw_route_in_front_of_the_headers_and_starlette(
    tmp_path: Path,
) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text(TOKEN)
    settings = Settings(max_count=17, auth_token_file=str(tokens))
    app = create_app(settings, service=fixed_identity_service())
    stack = app.build_middleware_stack()
    assert isinstance(stack, FastIds)
    assert isinstance(stack.app, SecurityHeaders)
    assert stack.max_count == 17
    assert stack.tokens is not None
    assert stack.tokens.path == str(tokens)
    assert stack.service is app.state.service


@pytest.mark.parametrize(
    ("query", "count"),
    [
        (b"", 1),
        (b"count=1", 1),
        (b"count=0", 0),
        (b"count=0004", 4),
        (b"count=999999999", 999999999),
        (b"count=9999999999", None),  # 10 digits: the full reader says what is wrong
        (b"count=", None),
        (b"count=+1", None),
        (b"count=1 ", None),
        (b"count=\xd9\xa1", None),  # ARABIC-INDIC DIGIT ONE: not ASCII
        (b"count=1&lang=vi", None),
        (b"lang=vi", None),
        (b"Count=1", None),
    ],
)
def test_usual_count_takes_only_plain_ascii_digits(query: bytes, count: int | None) -> None:
    assert usual_count(query) == count


def test_ids_body_is_decimal_strings() -> None:
    body = ids_body([4194439168, (1 << 63) - 1])
    assert json.loads(body) == {"ids": ["4194439168", str((1 << 63) - 1)]}


@pytest.fixture
def two_servers(tmp_path: Path) -> Iterator[tuple[httpx.Client, httpx.Client]]:
    tokens = tmp_path / "tokens"
    tokens.write_text(TOKEN)
    pair = build_pair(Settings(auth_token_file=str(tokens)), fixed_identity_service(2, 5))
    with (
        serving(pair.fast) as fast_url,
        serving(pair.routed) as routed_url,
        httpx.Client(base_url=fast_url, timeout=10) as fast,
        httpx.Client(base_url=routed_url, timeout=10) as routed,
    ):
        yield fast, routed


def test_over_http_both_routes_send_the_same_headers(
    two_servers: tuple[httpx.Client, httpx.Client],
) -> None:
    """Through uvicorn, which checks every header byte and adds its own (date)."""
    fast, routed = two_servers
    for headers in (GOOD, {}):
        for target in ("/api/ids?count=2", "/api/ids?count=0"):
            answers = [client.post(target, headers=headers) for client in (fast, routed)]
            lists = [
                [(k, v) for k, v in answer.headers.multi_items() if k != "date"]
                for answer in answers
            ]
            assert answers[0].status_code == answers[1].status_code
            assert lists[0] == lists[1]
            assert ("cache-control", "no-store") in lists[0]
