"""``snowid sql postgres --check-index TABLE URL``: a table's primary-key density, the case
of docs/keys.md it looks like and, when it is sparse, what an operator can do.

The reading and the verdict are the library's (``snowid.integrations.sql``); this module
only words them, in the catalog language, or prints them as one JSON object (``--json``).
"""

from __future__ import annotations

from snowid.cli._common import print_json
from snowid.i18n import translate
from snowid.integrations.sql import MIN_LEAF_PAGES, IndexCheck, advice, reindex_statement

__all__ = ["check_index", "report"]


def check_index(table: str, url: str, lang: str, *, as_json: bool = False) -> int:
    from snowid.integrations.sql import check_postgres_index

    found = check_postgres_index(url, table)
    if as_json:
        print_json(found.as_dict())
    else:
        print("\n".join(report(found, lang)))
    return 0


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f} %"


def _size(size: int) -> str:
    return f"{size / 2**20:,.1f} MiB" if size >= 2**20 else f"{size / 2**10:,.0f} KiB"


def report(found: IndexCheck, lang: str) -> list[str]:
    """The lines ``--check-index`` prints."""
    kind = translate(f"sql.check.kind.{found.kind}", lang, version=found.uuid_version or "?")
    lines = [
        translate("sql.check.table", lang, table=found.table, rows=f"{found.rows:,}"),
        translate(
            "sql.check.index",
            lang,
            index=found.index,
            size=_size(found.index_bytes),
            pages=f"{found.leaf_pages:,}",
        ),
        translate(
            "sql.check.key",
            lang,
            columns=", ".join(found.columns),
            type=", ".join(found.types),
            kind=kind,
        ),
        translate(
            "sql.check.density",
            lang,
            density=_percent(found.density),
            fragmentation=_percent(found.fragmentation),
        ),
    ]
    verdict = found.verdict
    if verdict.too_small:
        lines.append(
            translate("sql.check.too_small", lang, pages=found.leaf_pages, min=MIN_LEAF_PAGES)
        )
    elif verdict.case is None:
        lines.append(translate("sql.check.no_case", lang))
    else:
        case = translate(f"sql.check.case.{verdict.case.name}", lang)
        lines.append(
            translate(
                "sql.check.verdict", lang, case=case, documented=f"{verdict.case.density:.1f}"
            )
        )
    if verdict.dense and not verdict.too_small:
        lines.append(translate("sql.check.dense", lang))
    chosen = advice(verdict)
    if chosen:
        lines.append(translate("sql.check.options", lang))
        for name in chosen:
            text = translate(
                f"sql.check.option.{name}", lang, reindex=reindex_statement(found.index)
            )
            lines.append(f"  - {text}")
    return lines
