"""``snowid generate``: fresh ids from the production generator, one per line or as JSON."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from snowid import Generator
from snowid._exceptions import EmptyValueError, OutOfRangeError
from snowid.cli._commands import Arguments
from snowid.cli._common import add_lang_option
from snowid.ids import SYSTEM_CLOCK, to_int

if TYPE_CHECKING:
    from snowid.lease import Lease, StaticGuard

MAX_COUNT = 10_000_000
_CHUNK = 65_536  # ids per write: output streams instead of holding millions of strings


def _generate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Print COUNT fresh ids, one per line. With --datacenter and --machine the"
        " identity is fixed: another process on this host using it at the same time is"
        " refused, and no other host using it is your promise; otherwise a worker"
        " identity is leased from --lease URL, SNOWID_LEASE or the default host slots."
    )
    parser.add_argument("--count", default="1", help=f"how many ids, 1..{MAX_COUNT} (default 1)")
    parser.add_argument("--datacenter", default=None, help="datacenter id, 0..31 (with --machine)")
    parser.add_argument("--machine", default=None, help="machine id, 0..31 (with --datacenter)")
    parser.add_argument(
        "--lease",
        default=None,
        metavar="URL",
        help="where to lease a worker identity when --datacenter/--machine are not given",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON array of strings")
    add_lang_option(parser)
    parser.set_defaults(func=_generate)


ARGUMENTS: dict[str, Arguments] = {"generate": _generate_arguments}


def _generate(args: argparse.Namespace, lang: str) -> int:
    del lang  # ids need no words; errors are translated centrally
    count = to_int("count", args.count)
    if not 1 <= count <= MAX_COUNT:
        raise OutOfRangeError(field="count", value=count, min=1, max=MAX_COUNT)
    if args.datacenter is None and args.machine is None:
        with _open_lease(args.lease) as lease:
            _print_ids(_batches(Generator(fence=lease), count), as_json=args.json)
        return 0
    if args.datacenter is None:
        raise EmptyValueError(field="datacenter", value="")
    if args.machine is None:
        raise EmptyValueError(field="machine", value="")
    datacenter, machine = to_int("datacenter", args.datacenter), to_int("machine", args.machine)
    generator = Generator(datacenter, machine)  # checks both ranges before the guard
    guard = _guard(datacenter, machine)
    try:
        _print_ids(_batches(generator, count), as_json=args.json)
    finally:
        guard.release()
    return 0


def _guard(datacenter: int, machine: int) -> StaticGuard:
    """The fixed identity taken on this host as a ``static:`` lease takes it: refused
    (StaticIdentityInUseError) before any id while another process holds it."""
    from snowid.lease import StaticGuard

    guard = StaticGuard(datacenter, machine)
    guard.take(SYSTEM_CLOCK)  # waits past the millisecond a previous holder may have used
    return guard


def _open_lease(url: str | None) -> Lease:
    # Imported here: a run with a fixed identity needs only the guard of the lease layer.
    from snowid.lease import open_lease, release_on_sigterm

    release_on_sigterm()  # a killed `snowid generate` still gives its identity back
    return open_lease(url)


def _batches(generator: Generator, count: int) -> Iterator[list[int]]:
    while count:
        size = min(count, _CHUNK)
        yield generator.next_ids(size)
        count -= size


def _print_ids(batches: Iterator[list[int]], *, as_json: bool) -> None:
    out = sys.stdout
    if not as_json:
        for batch in batches:
            out.write("\n".join(map(str, batch)))
            out.write("\n")
        return
    out.write("[")
    sep = "\n  "
    for batch in batches:
        out.write(sep)
        out.write(",\n  ".join(json.dumps(str(value)) for value in batch))
        sep = ",\n  "
    out.write("\n]\n")
