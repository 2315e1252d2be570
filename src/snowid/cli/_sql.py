"""``snowid sql ENGINE``: print, or install, the SQL that reads ids inside a database."""

from __future__ import annotations

import argparse

from snowid.cli._commands import Arguments
from snowid.cli._common import add_lang_option
from snowid.i18n import translate

_ENGINES = {
    "postgres": (
        "PostgreSQL: snowid_timestamp, snowid_parts, snowid_first_id_at, snowid_last_id_at",
        "Print the functions as an SQL script (for psql), or install them with --apply."
        " They are created in the first schema of the connection's search_path; running"
        " either again replaces them with the same definitions.",
        "postgresql://USER@HOST:PORT/DATABASE",
    ),
    "mysql": (
        "MySQL and MariaDB: snowid_timestamp, snowid_unix_ms, one function per field,"
        " snowid_first_id_at, snowid_last_id_at",
        "Print the functions as a script for the mysql (or mariadb) client, or install them"
        " with --apply. They are DETERMINISTIC NO SQL, as a server with binary logging"
        " requires; running either again replaces them.",
        "mysql://USER@HOST:PORT/DATABASE?password_file=PATH",
    ),
    "sqlite": (
        "SQLite: a view of --table with the time and fields of --column as columns",
        "Print a script for sqlite3 that creates a view over your table: every column of"
        " --table, then --column's time (ISO 8601 UTC text and Unix ms) and fields."
        " SQLite has no stored functions, so nothing is installed into it from here.",
        None,
    ),
    "duckdb": (
        "DuckDB: macros snowid_timestamp, snowid_unix_ms, one per field, snowid_parts,"
        " snowid_first_id_at, snowid_last_id_at",
        "Print the macros as a script for DuckDB (duckdb DATABASE < script.sql, or"
        " con.execute(script) in Python), or create them in a database file with --apply"
        " (the duckdb extra); a macro made in a file stays there.",
        "duckdb:///PATH/TO/FILE.duckdb",
    ),
}


def _sql_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "SQL that decodes ids and gives the id range of a time window, for any layout,"
        " in PostgreSQL, MySQL/MariaDB, SQLite or DuckDB."
    )
    sub = parser.add_subparsers(dest="sql_database", required=True, metavar="ENGINE")
    for engine, (summary, description, url) in _ENGINES.items():
        one = sub.add_parser(engine, help=summary, description=description)
        one.add_argument(
            "--layout",
            default="twitter",
            help="a built-in name or a layout spec (default: twitter, whose functions are"
            " named snowid_…; another layout's are named snowid_<name>_…)",
        )
        target = one.add_mutually_exclusive_group() if engine == "postgres" else one
        target.add_argument(
            "--apply",
            metavar="URL",
            default=None,
            help=f"install them into this database ({url})" if url else argparse.SUPPRESS,
        )
        if engine == "postgres":
            target.add_argument(
                "--check-index",
                nargs=2,
                metavar=("TABLE", "URL"),
                default=None,
                help="read TABLE's primary-key index in the database at URL with pgstatindex"
                " (the pgstattuple extension) and say which case of docs/keys.md it looks"
                " like; TABLE may be schema-qualified (shop.orders)",
            )
            one.add_argument(
                "--json", action="store_true", help="with --check-index: print one JSON object"
            )
        if engine == "sqlite":
            one.add_argument("--table", default=None, help="the table holding the ids")
            one.add_argument("--column", default=None, help="its id column")
            one.add_argument("--view", default=None, help="the view (default: TABLE_snowid)")
        add_lang_option(one)
        one.set_defaults(func=_sql, engine=engine, parser=one)


ARGUMENTS: dict[str, Arguments] = {"sql": _sql_arguments}


def _sql(args: argparse.Namespace, lang: str) -> int:
    if getattr(args, "check_index", None) is not None:
        from snowid.cli._check_index import check_index

        table, url = args.check_index
        return check_index(table, url, lang, as_json=args.json)
    if getattr(args, "json", False):
        # --json is for the report of --check-index only (exit 2, in the catalog language)
        args.parser.error("argument --json: the following arguments are required: --check-index")
    from snowid.ids import get_layout
    from snowid.integrations import sql

    layout = get_layout(args.layout)
    target = {
        "table": getattr(args, "table", None),
        "column": getattr(args, "column", None),
        "view": getattr(args, "view", None),
    }
    if args.apply is None:
        print(sql.script(args.engine, layout, lang, **target), end="")
        return 0
    from snowid.lease import redact

    sql.apply(args.engine, args.apply, sql.statements(args.engine, layout, lang, **target))
    created = sql.names(args.engine, layout)
    print(
        translate(
            "sql.applied",
            lang,
            count=len(created),
            url=redact(args.apply),
            names=", ".join(created),
        )
    )
    return 0
