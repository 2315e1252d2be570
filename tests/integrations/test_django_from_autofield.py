"""docs/migrate.md, Django part: a table keyed by BigAutoField, with rows and a foreign key
pointing at it, switched to a SnowIdField key by the AlterField ``makemigrations`` writes.
Old rows keep their ids (small ones, which read as 2010-11-04), new rows get Snowflake
ids above every old one, foreign keys still join, no sequence or default is left on the
column, and ``id < SnowId.first_at(cutover)`` tells old rows from new.

Run as ``python -m django`` in a project of its own (an app of a fresh name, so that the
PostgreSQL run's tables never meet another run's), on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from tests.support import django_site
from tests.support.need import unavailable

BEFORE = """
from django.db import models


class Article(models.Model):
    title = models.CharField(max_length=40)


class Comment(models.Model):
    article = models.ForeignKey(Article, on_delete=models.CASCADE)
    text = models.CharField(max_length=40)
"""

AFTER = BEFORE.replace(
    "class Article(models.Model):\n",
    "class Article(models.Model):\n    id = SnowIdField(primary_key=True)\n",
).replace(
    "from django.db import models\n",
    "from django.db import models\n\nfrom snowid.django import SnowIdField\n",
)

DATABASES = {
    "sqlite": '{"ENGINE": "django.db.backends.sqlite3", "NAME": "db.sqlite3"}',
    "postgres": (
        '{"ENGINE": "django.db.backends.postgresql", "NAME": "test", "USER": "postgres",'
        f' "HOST": "{django_site.POSTGRES[0]}", "PORT": "{django_site.POSTGRES[1]}"}}'
    ),
}

FILL = """
from APP.models import Article, Comment
for n in range(3):
    article = Article.objects.create(title=f"old {n}")
    Comment.objects.create(article=article, text=f"on old {n}")
print(sorted(Article.objects.values_list("id", flat=True)))
"""

AFTERWARDS = """
import datetime as dt
from django.db import connection
from snowid import SnowId
from snowid.django import created_between
from APP.models import Article, Comment

cutover = SnowId.first_at(dt.datetime.now(dt.UTC))
old = list(Article.objects.order_by("id"))
assert [type(a.id) for a in old] == [SnowId] * 3, old
assert [int(a.id) for a in old] == [1, 2, 3]
assert old[0].id.datetime.isoformat() == "2010-11-04T01:42:54.657000+00:00"
assert [c.article.title for c in Comment.objects.order_by("id")] == ["old 0", "old 1", "old 2"]

new = Article.objects.create(title="new")
Comment.objects.create(article=new, text="on new")
assert new.id >= cutover, (new.id, cutover)
assert Article.objects.filter(id__lt=cutover).count() == 3  # the rows from before
assert Article.objects.filter(id__gte=cutover).get() == new
start = dt.datetime(2010, 11, 4, tzinfo=dt.UTC)
in_2010 = Article.objects.filter(created_between("id", start, start + dt.timedelta(days=1)))
assert in_2010.count() == 3  # old small ids read as the epoch's first milliseconds
assert Comment.objects.get(text="on new").article_id == new.id

if connection.vendor == "postgresql":
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT column_default, is_identity FROM information_schema.columns"
            " WHERE table_name = %s AND column_name = 'id'",
            [Article._meta.db_table],
        )
        assert cursor.fetchone() == (None, "NO")
        cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [Article._meta.db_table])
        assert cursor.fetchone() == (None,)
print("ok")
"""


def _project(tmp_path: Path, database: str) -> tuple[Path, str]:
    app = f"mig_{uuid.uuid4().hex[:10]}"
    (tmp_path / app).mkdir()
    (tmp_path / app / "__init__.py").write_text("")
    (tmp_path / app / "models.py").write_text(BEFORE)
    settings = f"""
        SECRET_KEY = "snowid-tests-only"
        USE_TZ = True
        INSTALLED_APPS = ["django.contrib.contenttypes", "django.contrib.auth", "{app}"]
        DATABASES = {{"default": {DATABASES[database]}}}
        DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
        SNOWID_LEASE = "file:slots"
    """
    (tmp_path / "settings.py").write_text(textwrap.dedent(settings))
    return tmp_path, app


def _django(project: Path, *args: str) -> str:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "settings", "PYTHONPATH": str(project)}
    env.pop("SNOWID_LEASE", None)
    done = subprocess.run(
        [sys.executable, "-m", "django", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _switch(tmp_path: Path, database: str) -> None:
    project, app = _project(tmp_path, database)
    _django(project, "makemigrations", app)
    _django(project, "migrate", app)
    try:
        assert (
            _django(project, "shell", "--no-imports", "-c", FILL.replace("APP", app)).strip()
            == "[1, 2, 3]"
        )
        (project / app / "models.py").write_text(AFTER)
        _django(project, "makemigrations", app, "--name", "snowid_key")
        made = (project / app / "migrations" / "0002_snowid_key.py").read_text()
        assert "migrations.AlterField(" in made
        assert "snowid.django.SnowIdField(primary_key=True, serialize=False)" in made
        _django(project, "migrate", app)
        assert (
            _django(project, "shell", "--no-imports", "-c", AFTERWARDS.replace("APP", app)).strip()
            == "ok"
        )
    finally:
        _django(project, "migrate", app, "zero")  # drops the tables (PostgreSQL is shared)


def test_a_bigautofield_table_with_rows_switches_to_snowid_on_sqlite(tmp_path: Path) -> None:
    _switch(tmp_path, "sqlite")


@pytest.mark.slow
def test_a_bigautofield_table_with_rows_switches_to_snowid_on_postgres(tmp_path: Path) -> None:
    if not django_site.postgres_answers():
        unavailable("PostgreSQL on 127.0.0.1:5432 does not answer")
    _switch(tmp_path, "postgres")
