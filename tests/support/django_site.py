"""The Django site of the snowid.django tests, configured in the test process on first use.

Not through DJANGO_SETTINGS_MODULE: only the Django tests load Django, the rest of the
suite never does. pytest-django finds the settings configured and runs the tests' databases:

- ``default``: SQLite, in a file (``TEST["NAME"]``) so that threads and forked children
  share it (Django's test default is in memory: a forked child would write its own copy);
- ``postgres``: the shared PostgreSQL server, in a test database of this run's own name
  (``test_snowid_django_<random>``), created and dropped by pytest-django. Left out when
  the server does not answer, and then its tests are skipped (in CI: failed).
"""

from __future__ import annotations

import os
import socket
import tempfile
import uuid
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import pytest

__all__ = ["ALIASES", "UsingAlias", "need_alias", "postgres_answers", "setup", "using"]

ALIASES = ("default", "postgres")
POSTGRES = ("127.0.0.1", 5432)


def postgres_answers() -> bool:
    """Whether the shared PostgreSQL server takes a connection now."""
    try:
        with socket.create_connection(POSTGRES, timeout=2):
            return True
    except OSError:
        return False


def setup() -> None:
    """Configure Django's settings and load the apps (once; later calls do nothing)."""
    import django
    from django.conf import settings

    if settings.configured:
        return
    run = uuid.uuid4().hex[:12]
    sqlite_file = Path(tempfile.gettempdir()) / f"snowid_django_{run}.sqlite3"
    databases: dict[str, dict[str, object]] = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(sqlite_file.with_suffix(".unused")),
            "TEST": {"NAME": str(sqlite_file)},
        }
    }
    if os.environ.get("CI") or postgres_answers():
        databases["postgres"] = {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": "test",
            "USER": "postgres",
            "HOST": POSTGRES[0],
            "PORT": str(POSTGRES[1]),
            "TEST": {"NAME": f"test_snowid_django_{run}"},
        }
    settings.configure(
        DEBUG=False,
        SECRET_KEY="snowid-tests-only",
        USE_TZ=True,
        USE_I18N=True,
        LANGUAGE_CODE="en",
        DATABASES=databases,
        INSTALLED_APPS=[
            "django.contrib.admin",
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.sessions",
            "django.contrib.messages",
            "rest_framework",
            "snowid.rest_framework",
            "tests.integrations.djangoapp",
        ],
        DATABASE_ROUTERS=["tests.support.django_site.UsingAlias"],
        MIDDLEWARE=[
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.middleware.common.CommonMiddleware",
            "django.middleware.csrf.CsrfViewMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
            "django.contrib.messages.middleware.MessageMiddleware",
        ],
        TEMPLATES=[
            {
                "BACKEND": "django.template.backends.django.DjangoTemplates",
                "APP_DIRS": True,
                "OPTIONS": {
                    "context_processors": [
                        "django.template.context_processors.request",
                        "django.contrib.auth.context_processors.auth",
                        "django.contrib.messages.context_processors.messages",
                    ]
                },
            }
        ],
        ROOT_URLCONF="tests.integrations.djangoapp.urls",
        DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],  # fast logins
    )
    django.setup()


def need_alias(alias: str) -> None:
    """Skip (in CI: fail) a test of ``alias`` when that database is not configured."""
    from django.conf import settings

    if alias not in settings.DATABASES:
        message = f"the {alias!r} database is not reachable"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


using: ContextVar[str | None] = ContextVar("using", default=None)
"""The database a test's requests go to (views use the default manager): None is Django's own."""


class UsingAlias:
    """A database router sending every read and write to ``using`` while it is set, so
    that a DRF view under test runs on PostgreSQL as well as on SQLite."""

    def db_for_read(self, model: Any, **hints: Any) -> str | None:
        return using.get()

    def db_for_write(self, model: Any, **hints: Any) -> str | None:
        return using.get()
