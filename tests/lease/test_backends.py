"""The backend contract: a scheme registry, one ``from_url`` per backend, ``prepare`` /
``status`` / ``check`` on the one public :class:`Lease` type, and no id-bit maths in
the lease package (the layout owns it)."""

from __future__ import annotations

import ast
import subprocess
import sys
import urllib.parse
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import snowid.lease
from snowid.errors import InvalidLeaseUrlError
from snowid.generate._fence import Grant
from snowid.ids._clock import Clock
from snowid.ids._layout import TWITTER
from snowid.lease import (
    FileLease,
    Lease,
    StaticLease,
    _registry,
    _url,
    init_lease,
    lease_status,
    open_lease,
)
from snowid.lease._url import LeaseUrl

LEASE_PACKAGE = Path(snowid.lease.__file__).parent


class _OneSlot(Lease):
    """A backend made up by the test: it reads ``worker=`` from its URL."""

    def __init__(self, worker: int = 7, *, url: str = "", clock: Clock | None = None) -> None:
        super().__init__(url, clock)
        self.worker_number = worker

    @classmethod
    def from_url(cls, url: LeaseUrl, *, clock: Clock | None = None) -> Lease:
        url.check_known(("worker",))
        worker = url.integer("worker", 0, TWITTER.max_worker)
        given = {} if worker is None else {"worker": worker}
        return cls(url=url.shown, clock=clock, **given)

    def _claim(self, needed_ms: int) -> Grant:
        datacenter, machine = TWITTER.split_worker(self.worker_number)
        return self._set_held(Grant(datacenter, machine, 0, needed_ms + 1000))

    def _extend(self, grant: Grant, needed_ms: int) -> Grant:
        return self._raise_ceiling(needed_ms + 1000)

    def _release(self, grant: Grant) -> None:
        del grant


def test_a_new_backend_is_one_class_and_one_registry_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(_registry.BACKENDS, "oneslot", f"{__name__}:_OneSlot")
    with open_lease("oneslot:?worker=33") as lease:
        assert isinstance(lease, _OneSlot)
        assert lease.acquire(5).machine == 1  # worker 33 = datacenter 1, machine 1
        assert (lease.prepare(), lease.status()) == ({"url": lease.url}, [])
    with open_lease("oneslot:") as lease:  # the default lives in the constructor
        assert isinstance(lease, _OneSlot)
        assert lease.worker_number == 7


def test_an_unregistered_scheme_is_refused_by_name() -> None:
    with pytest.raises(InvalidLeaseUrlError) as caught:
        open_lease("memcached://127.0.0.1:11211")
    error = caught.value
    assert (error.reason, error.scheme) == ("unknown_scheme", "memcached:")
    assert error.allowed == ", ".join(f"{scheme}:" for scheme in _registry.BACKENDS)


def test_every_registered_backend_is_a_lease_with_its_own_from_url() -> None:
    for scheme in _registry.BACKENDS:
        backend = _registry.backend_for(_url.parse_lease_url(f"{scheme}:"))
        assert issubclass(backend, Lease)
        assert "from_url" in vars(backend), f"{backend.__name__} reads its own URL"


def test_file_and_static_leases_never_import_the_postgres_driver(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from snowid.lease import open_lease\n"
        f"open_lease('file://{tmp_path}?range=0-1').acquire(0)\n"
        "open_lease('static://1/2').acquire(0)\n"
        "print(sorted(m for m in sys.modules if 'psycopg' in m or m.endswith('postgres')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def _counting(monkeypatch: pytest.MonkeyPatch, counts: Counter[str]) -> None:
    """Count every call of urllib's URL readers (urlsplit, urlparse, parse_qsl, parse_qs)
    and of the strict reader's split (``_url.split_url``)."""

    def wrap(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            counts[name] += 1
            return real(*args, **kwargs)

        return counted

    for name in ("urlsplit", "urlparse", "parse_qsl", "parse_qs"):
        monkeypatch.setattr(urllib.parse, name, wrap(name, getattr(urllib.parse, name)))
    monkeypatch.setattr(_url, "split_url", wrap("split_url", _url.split_url))


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://u:pw@127.0.0.1:5432/db?sslmode=disable&ttl=2&range=3-4",
        "redis://:pw@127.0.0.1:6379/2?ttl=2&range=3-4",
        "file:///tmp/snowid-never-created?range=0-3",
        "static://1/2",
    ],
)
def test_open_lease_splits_the_url_once(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    """Issue 9: the PostgreSQL (and Redis) backends split their URL a second time.
    Issue 24: and urllib read it beside snowid's own reader; now only ``_urltext`` reads
    lease URLs (the redaction too), and the strict reader splits each one once."""
    import snowid.lease.postgres
    import snowid.lease.redis  # noqa: F401

    counts: Counter[str] = Counter()
    _counting(monkeypatch, counts)
    open_lease(url).close()
    assert counts == Counter({"split_url": 1})


def test_static_and_file_answer_prepare_status_and_check(tmp_path: Path) -> None:
    state = tmp_path / "state"
    static = open_lease("static://1/2")
    assert isinstance(static, StaticLease)
    assert (static.prepare(), static.status()) == ({"url": "static://1/2"}, [])
    static.check()
    slots = open_lease(f"file://{state}?range=2-3")
    assert isinstance(slots, FileLease)
    slots.check()
    assert state.is_dir()  # check() creates the state dir, as a claim would
    assert init_lease(f"file://{state}?range=2-3")["state_dir"] == str(state)
    other = open_lease(f"file://{state}?range=0-0")
    slots.acquire(0)
    other.acquire(0)
    assert [row.worker for row in slots.status()] == [slots.worker]  # its range only
    assert [row.worker for row in lease_status(f"file://{state}")] == [0, slots.worker]
    slots.close()
    other.close()


def _code_of(path: Path) -> tuple[list[ast.AST], list[str]]:
    """The expression nodes and the non-docstring string constants of a module."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    nodes = list(ast.walk(tree))
    strings = [
        node.value
        for node in nodes
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) not in docstrings
    ]
    return nodes, strings


@pytest.mark.parametrize("path", sorted(LEASE_PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_the_lease_package_leaves_id_bits_to_the_layout(path: Path) -> None:
    """Issue 9 item 7: no shift and no worker-count literal (also not in SQL text)."""
    nodes, strings = _code_of(path)
    shifts = [n for n in nodes if isinstance(n, ast.BinOp | ast.AugAssign)]
    assert not [n for n in shifts if isinstance(n.op, ast.LShift | ast.RShift)]
    bounds = {str(TWITTER.max_worker), str(TWITTER.max_worker + 1)}
    assert not [n for n in nodes if isinstance(n, ast.Constant) and str(n.value) in bounds]
    assert not [text for text in strings if any(bound in text for bound in bounds)]
