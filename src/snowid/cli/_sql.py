"""``snowid sql postgres``: print, or install, SQL functions that read ids in the database."""

from __future__ import annotations

import argparse

from snowid.cli._commands import Arguments
from snowid.cli._common import add_lang_option
from snowid.i18n import translate


def _sql_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = "SQL functions that decode ids and give the id range of a time window."
    sub = parser.add_subparsers(dest="sql_database", required=True, metavar="DATABASE")
    postgres = sub.add_parser(
        "postgres",
        help="PostgreSQL: snowid_timestamp, snowid_parts, snowid_first_id_at, snowid_last_id_at",
        description=(
            "Print the functions as an SQL script (for psql), or install them with --apply."
            " They are created in the first schema of the connection's search_path; running"
            " either again replaces them with the same definitions."
        ),
    )
    postgres.add_argument(
        "--apply",
        metavar="URL",
        default=None,
        help="install them into this database (postgresql://USER@HOST:PORT/DATABASE)",
    )
    add_lang_option(postgres)
    postgres.set_defaults(func=_postgres)


ARGUMENTS: dict[str, Arguments] = {"sql": _sql_arguments}


def _postgres(args: argparse.Namespace, lang: str) -> int:
    from snowid.integrations.sql import (
        FUNCTIONS,
        apply_postgres,
        postgres_script,
        postgres_statements,
    )

    if args.apply is None:
        print(postgres_script(lang=lang), end="")
        return 0
    from snowid.lease import redact

    apply_postgres(args.apply, postgres_statements(lang=lang))
    names = ", ".join(FUNCTIONS)
    print(translate("sql.applied", lang, count=len(FUNCTIONS), url=redact(args.apply), names=names))
    return 0
