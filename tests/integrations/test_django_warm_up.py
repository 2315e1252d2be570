"""``snowid.django.warm_up()`` in ``AppConfig.ready()``, as documented (issue 25 §3).

``ready()`` runs in every process that loads Django, each ``manage.py`` command included.
Management commands that make no id never reach the lease store: the store here is a
socket of the test's own that counts the connections it gets, and every command must pass
with none. A serving process still claims before its first request: building Django's WSGI
or ASGI handler (what runserver, gunicorn, uvicorn, daphne and mod_wsgi do at start) claims
the identity. A command that does make an id claims at that id.

Each Django process runs as ``python -m django`` in a project of its own in a temporary
directory (SQLite, a ``file:`` lease there), so nothing touches the test run's own setup.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

SETTINGS = """
SECRET_KEY = "snowid-tests-only"
USE_TZ = True
INSTALLED_APPS = ["django.contrib.contenttypes", "django.contrib.auth", "shop"]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "db.sqlite3"}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
ROOT_URLCONF = "urls"
SNOWID_LEASE = os.environ["TEST_LEASE"]
"""

APPS = """
from django.apps import AppConfig

import snowid.django


class ShopConfig(AppConfig):
    name = "shop"

    def ready(self):
        snowid.django.warm_up()  # as the docs advise
"""

MODELS = """
from django.db import models

from snowid.django import SnowIdField


class Order(models.Model):
    id = SnowIdField(primary_key=True)
    note = models.CharField(max_length=40, blank=True, default="")
"""

STATE = """
from snowid.process import _default

lease = _default._state.lease
print("claimed" if lease is not None and lease.state == "held" else "not claimed")
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shop = tmp_path / "shop"
    shop.mkdir()
    (shop / "__init__.py").write_text("")
    (shop / "apps.py").write_text(textwrap.dedent(APPS))
    (shop / "models.py").write_text(textwrap.dedent(MODELS))
    (tmp_path / "settings.py").write_text("import os\n" + textwrap.dedent(SETTINGS))
    (tmp_path / "urls.py").write_text("urlpatterns = []\n")
    return tmp_path


class CountingStore:
    """A TCP port that stands for the lease store: it takes connections, counts them and
    never answers (a store that is down, as seen from a client that got through)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.1)  # so that the thread sees the test end
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._closed.set()
        self._thread.join(10)
        self.sock.close()


@pytest.fixture
def store() -> Iterator[CountingStore]:
    counting = CountingStore()
    try:
        yield counting
    finally:
        counting.close()


def _run(project: Path, lease: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "settings",
        "PYTHONPATH": str(project),
        "TEST_LEASE": lease,
    }
    env.pop("SNOWID_LEASE", None)
    return subprocess.run(
        [sys.executable, *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_management_commands_that_make_no_id_never_reach_the_store(
    project: Path, store: CountingStore
) -> None:
    """With the store down, ``makemigrations --check`` (CI's check), ``check``,
    ``migrate`` and ``showmigrations`` pass; not one connection reaches the store."""
    lease = f"postgresql://127.0.0.1:{store.port}/test"
    for command in (
        ("makemigrations", "shop"),
        ("makemigrations", "--check", "--dry-run"),
        ("check",),
        ("migrate",),
        ("showmigrations", "shop"),
    ):
        done = _run(project, lease, "-m", "django", *command)
        assert done.returncode == 0, (command, done.stdout + done.stderr)
    assert store.connections == 0


def test_a_serving_process_claims_when_django_builds_its_handler(project: Path) -> None:
    """Loading Django (what a command does) claims nothing; building the WSGI or the ASGI
    handler (what a server does before it serves) claims the identity."""
    lease = f"file://{project}/slots"
    loaded = _run(project, lease, "-c", "import django; django.setup()\n" + STATE)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "not claimed"
    for handler in ("wsgi", "asgi"):
        build = f"from django.core.{handler} import get_{handler}_application\n"
        served = _run(project, lease, "-c", f"{build}get_{handler}_application()\n{STATE}")
        assert served.returncode == 0, (handler, served.stderr)
        assert served.stdout.strip() == "claimed", handler


def test_a_command_that_makes_an_id_claims_at_that_id(project: Path) -> None:
    lease = f"file://{project}/slots"
    for command in (("makemigrations", "shop"), ("migrate",)):
        done = _run(project, lease, "-m", "django", *command)
        assert done.returncode == 0, (command, done.stderr)
    code = "from shop.models import Order; print(int(Order.objects.create().id) > 0)"
    made = _run(project, lease, "-m", "django", "shell", "--no-imports", "-c", code)
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == "True"
