"""Migrations of SnowIdField models serialise cleanly: ``makemigrations`` twice gives one
migration, naming ``snowid.django.SnowIdField`` and no function, and it migrates.

Run as ``python -m django`` in a project of its own (a copy of the test app's models in a
temporary directory), as an application would, so nothing here touches the test run's
own Django setup.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

APP = Path(__file__).parent / "djangoapp"
MADE_BEFORE = Path(__file__).parent / "data" / "djangoapp_0001_initial.py.txt"
"""The test app's migration as ``makemigrations`` wrote it before issue 18 (Django 5.2)."""

SETTINGS = """
SECRET_KEY = "snowid-tests-only"
USE_TZ = True
INSTALLED_APPS = ["django.contrib.contenttypes", "django.contrib.auth", "djangoapp"]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": "db.sqlite3"}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
SNOWID_LEASE = "file:slots"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    app = tmp_path / "djangoapp"
    app.mkdir()
    (app / "__init__.py").write_text("")
    shutil.copy(APP / "models.py", app / "models.py")
    (tmp_path / "settings.py").write_text(textwrap.dedent(SETTINGS))
    return tmp_path


def _django(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "settings", "PYTHONPATH": str(project)}
    env.pop("SNOWID_LEASE", None)
    return subprocess.run(
        [sys.executable, "-m", "django", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_makemigrations_twice_gives_one_migration_that_migrates(project: Path) -> None:
    first = _django(project, "makemigrations", "djangoapp")
    assert first.returncode == 0, first.stderr
    made = sorted((project / "djangoapp" / "migrations").glob("0*.py"))
    assert [path.name for path in made] == ["0001_initial.py"]

    again = _django(project, "makemigrations", "djangoapp")
    assert again.returncode == 0, again.stderr
    assert "No changes detected" in again.stdout
    assert sorted((project / "djangoapp" / "migrations").glob("0*.py")) == made
    check = _django(project, "makemigrations", "--check", "--dry-run")
    assert check.returncode == 0, check.stdout + check.stderr

    text = made[0].read_text()
    assert "snowid.django.SnowIdField(primary_key=True, serialize=False)" in text
    assert "snowid.django.SnowIdField(blank=True, default=None, null=True)" in text
    assert "new_id" not in text  # the default is the field's own, not written out
    assert "snowid.django._" not in text  # only the public path

    migrated = _django(project, "migrate", "djangoapp")
    assert migrated.returncode == 0, migrated.stderr


def test_the_migrated_table_takes_rows_keyed_by_new_ids(project: Path) -> None:
    """The migration's table works with the field's default, configured from settings."""
    assert _django(project, "makemigrations", "djangoapp").returncode == 0
    assert _django(project, "migrate").returncode == 0
    code = (
        "from djangoapp.models import Order; from snowid import SnowId;"
        " made = [Order.objects.create(note=str(i)) for i in range(3)];"
        " back = list(Order.objects.order_by('id').values_list('id', flat=True));"
        " assert back == [o.id for o in made] and all(type(i) is SnowId for i in back);"
        " print(len(set(back)))"
    )
    done = _django(project, "shell", "--no-imports", "-c", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3"


def test_a_migration_made_before_the_key_became_read_only_needs_no_new_one(
    project: Path,
) -> None:
    """Issue 18 §5: the key's form field changed, its migration did not."""
    migrations = project / "djangoapp" / "migrations"
    migrations.mkdir()
    (migrations / "__init__.py").write_text("")
    shutil.copy(MADE_BEFORE, migrations / "0001_initial.py")
    check = _django(project, "makemigrations", "--check", "--dry-run")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "No changes detected" in check.stdout


@pytest.mark.parametrize(
    ("lease", "says"),
    [
        ('"nope:x"', "scheme nope: is unknown"),
        ("5", "takes str"),
        ('"file:slots?ttl=abc"', "ttl"),
        # Issue 25 §3: libpq got it, and it failed at the first claim with its name hidden
        (
            '"postgresql://app:pw@127.0.0.1:1/db?rnage=200-203"',
            "lease URL postgresql://127.0.0.1:1/db cannot be used: unknown option rnage;"
            " did you mean range?",
        ),
    ],
)
def test_manage_py_check_reports_a_bad_snowid_lease(project: Path, lease: str, says: str) -> None:
    """Issue 18 §5: at ``check`` (so at ``runserver`` and ``migrate``), not at the first save."""
    settings = project / "settings.py"
    settings.write_text(settings.read_text().replace('"file:slots"', lease))
    done = _django(project, "check")
    assert done.returncode != 0
    assert "snowid.E001" in done.stderr
    assert says in done.stderr
    settings.write_text(settings.read_text().replace(lease, '"file:slots"'))
    assert _django(project, "check").returncode == 0
