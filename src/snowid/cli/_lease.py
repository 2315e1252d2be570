"""``snowid lease``: set up a lease store (``init``) and see who holds what (``status``)."""

from __future__ import annotations

import argparse
import dataclasses
import time
from typing import TYPE_CHECKING

from snowid.cli._commands import Arguments
from snowid.cli._common import add_lang_option, print_json
from snowid.i18n import translate
from snowid.ids import iso_ms

if TYPE_CHECKING:
    from snowid.lease import Quarantine


def _lease_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Worker-identity leases. URL is a lease URL (static:, file:, postgresql:, redis:,"
        " mysql:, k8s:);"
        " without it, SNOWID_LEASE or the default host slots."
    )
    sub = parser.add_subparsers(dest="lease_command", required=True, metavar="COMMAND")
    init = sub.add_parser(
        "init",
        help="create the store's schema or state directory if missing (idempotent)",
        description=(
            "Create what the lease store needs. On a PostgreSQL, Redis or MySQL store created now"
            " every"
            " ceiling is raised to now + ttl + span + max_skew (a quarantine against holders"
            " of a lost earlier store), unless --first-deployment vouches that none exist."
            " On a store set up before, it upgrades an older store format (raising every"
            " ceiling the same way: holders of an older snowid may still be issuing) and"
            " writes again, quarantined, every lease record found deleted."
        ),
    )
    init.add_argument("url", nargs="?", default=None, metavar="URL")
    init.add_argument(
        "--first-deployment",
        action="store_true",
        help="no holder of an earlier store can be alive: skip the quarantine",
    )
    init.add_argument("--json", action="store_true", help="print the result as JSON")
    add_lang_option(init)
    init.set_defaults(func=_init)
    status = sub.add_parser(
        "status",
        help="list who holds which identity, since when, and each ceiling",
    )
    status.add_argument("url", nargs="?", default=None, metavar="URL")
    status.add_argument(
        "--all", action="store_true", help="also list identities held before but free now"
    )
    status.add_argument("--json", action="store_true", help="print the rows as JSON")
    add_lang_option(status)
    status.set_defaults(func=_status)


ARGUMENTS: dict[str, Arguments] = {"lease": _lease_arguments}


def _init(args: argparse.Namespace, lang: str) -> int:
    from snowid.lease import init_lease  # lazily: keeps `snowid decode` fast

    result = init_lease(args.url, first_deployment=args.first_deployment)
    if args.json:
        print_json(result)
        return 0
    print(translate("lease.init.ready", lang, url=result["url"]))
    if result.get("created"):
        print(translate("lease.init.created", lang, incarnation=result["incarnation"]))
    if result.get("quarantined"):
        print(translate("lease.init.quarantined", lang))
    if result.get("upgraded"):
        print(
            translate(
                "lease.init.upgraded",
                lang,
                format=result["format"],
                quarantine_ms=result["quarantine_ms"],
            )
        )
    repaired = result.get("repaired")
    if isinstance(repaired, list) and repaired:
        from snowid.lease import worker_ranges

        print(
            translate(
                "lease.init.repaired",
                lang,
                count=len(repaired),
                workers=worker_ranges(repaired),
                quarantine_ms=result["quarantine_ms"],
            )
        )
    return 0


def _status(args: argparse.Namespace, lang: str) -> int:
    from snowid.lease import open_lease, worker_ranges

    with open_lease(args.url) as lease:
        rows = [row for row in lease.status() if args.all or row.held]
        missing = lease.missing()
        quarantine = lease.last_quarantine()
        url = lease.url  # printed: never with its password
    if args.json:
        identities = [dataclasses.asdict(row) for row in rows]
        failover = None if quarantine is None else dataclasses.asdict(quarantine)
        if failover is not None:
            del failover["done_here"]
        print_json({"url": url, "identities": identities, "missing": missing, "failover": failover})
        return 0
    if quarantine is not None:
        print(_failover_text(quarantine, url, lang))
    if missing:  # said first: "nothing is held" alone would hide live holders
        where = worker_ranges(missing)
        print(translate("lease.status.missing", lang, url=url, workers=where, count=len(missing)))
    if not rows:
        print(translate("lease.status.none", lang, url=url))
        return 0
    keys = ("worker", "datacenter", "machine", "held", "holder", "epoch", "since", "ceiling")
    table = [[translate(f"lease.col.{key}", lang) for key in keys]]
    for row in rows:
        table.append(
            [
                str(row.worker),
                str(row.datacenter),
                str(row.machine),
                translate("lease.yes" if row.held else "lease.no", lang),
                row.holder,
                str(row.epoch),
                _when(row.since_ms),
                _ceiling(row.ceiling_ms),
            ]
        )
    widths = [max(len(line[i]) for line in table) for i in range(len(keys))]
    for line in table:
        print("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip())
    return 0


def _failover_text(quarantine: Quarantine, url: str, lang: str) -> str:
    over = time.time() * 1000 >= quarantine.until_ms
    return translate(
        "lease.status.failover",
        lang,
        url=url,
        at=_when(quarantine.at_ms),
        seen=quarantine.seen,
        found=quarantine.found,
        until_ms=quarantine.until_ms,
        until=_when(quarantine.until_ms),
        state=translate(f"lease.status.failover.{'ended' if over else 'ends'}", lang),
    )


def _when(ms: int | None) -> str:
    """A stored time in UTC; the raw number when no date can show it (a bad or tampered store)."""
    if ms is None or ms <= 0:
        return "-"
    return iso_ms(ms) or str(ms)


def _ceiling(ms: int) -> str:
    when = _when(ms)
    return str(ms) if when == str(ms) else f"{ms} ({when})"
