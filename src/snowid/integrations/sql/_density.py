"""Which case of docs/keys.md a primary-key index looks like, from ``pgstatindex``'s numbers.

Pure: no driver, no database (``_check`` reads the numbers into an ``IndexCheck``).
``judge(kind, density, leaf_pages)`` reads ``RULES``, the one table of
thresholds (docs/keys.md, "Check a table", shows it): the first rule whose key kind
matches and whose density floor the index reaches names the case. Each case carries the
leaf density docs/keys.md measured for it (PostgreSQL 15, 10 M rows,
``bench/bench_keys.py``); each floor lies about halfway between two neighbouring cases'
densities (90.1 and 67.6 %: 80; 67.6 and 52.8 %: 60). Leaf fragmentation is reported,
not judged: it told the cases apart in the benchmark (one writer 0 %, 16 buffered
clients 4.7 %, 8 interleaved workers 38.8 %, UUIDv4 49.7 % at 200,000 rows) but swings
more than density on a small or young table.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Final, Literal

__all__ = [
    "CASES",
    "DENSE",
    "MIN_LEAF_PAGES",
    "RULES",
    "Case",
    "IndexCheck",
    "KeyKind",
    "Rule",
    "Verdict",
    "advice",
    "judge",
    "reindex_statement",
]

KeyKind = Literal["snowflake", "integer", "uuid7", "uuid", "other"]
"""The primary key as ``check_postgres_index`` reads it: a bigint holding ids past
``SNOWFLAKE_FLOOR`` (``snowflake``), another integer (``integer``: a sequence), a uuid
whose sampled keys are all version 7 (``uuid7``), another uuid, anything else."""


@dataclass(frozen=True)
class Case:
    """A row of docs/keys.md's PostgreSQL table: ``name`` (the catalog's
    ``sql.check.case.<name>``) and the leaf density measured for it."""

    name: str
    density: float


CASES: Final = {
    "one_writer": Case("one_writer", 90.1),  # snowid.next_id(), 1 process; BIGSERIAL
    "workers": Case("workers", 67.6),  # 8 processes, one identity each
    "client_blocks": Case("client_blocks", 52.8),  # 16 snowid.client, blocks of 4,096
    "uuid7_many": Case("uuid7_many", 65.2),  # UUIDv7 (with a counter), 8 processes
    "uuid4": Case("uuid4", 70.9),  # UUIDv4, 8 processes
}


@dataclass(frozen=True)
class Rule:
    """``case`` when the key is one of ``kinds`` and the leaf density reaches
    ``min_density`` (%)."""

    kinds: frozenset[KeyKind]
    min_density: float
    case: str


_INTEGERS: Final[frozenset[KeyKind]] = frozenset({"snowflake", "integer"})
_ANY: Final[frozenset[KeyKind]] = frozenset({"snowflake", "integer", "uuid7", "uuid", "other"})

DENSE: Final = 80.0
"""At or above this leaf density (%) an index is packed as one ordered writer leaves it
(90 % is the default fillfactor); below it the operator's options are shown."""

RULES: Final = (
    Rule(_ANY, DENSE, "one_writer"),
    Rule(_INTEGERS, 60.0, "workers"),
    Rule(_INTEGERS, 0.0, "client_blocks"),
    Rule(frozenset({"uuid7"}), 0.0, "uuid7_many"),
    Rule(frozenset({"uuid"}), 0.0, "uuid4"),
)
"""First match wins; a sparse key of another kind matches none (no documented case)."""

MIN_LEAF_PAGES: Final = 20
"""Below this many leaf pages a few half-empty pages swing the average: no verdict."""


@dataclass(frozen=True)
class Verdict:
    """The case the index looks like (None: too small, or no documented case for its key),
    and whether it is dense (no advice needed)."""

    case: Case | None
    dense: bool
    too_small: bool


def judge(kind: KeyKind, density: float | None, leaf_pages: int) -> Verdict:
    """The case of ``RULES`` that an index of ``leaf_pages`` leaf pages at leaf ``density``
    (percent, as ``pgstatindex`` gives it; None when it has none) looks like, for a key of
    ``kind``."""
    dense = density is not None and density >= DENSE
    if density is None or leaf_pages < MIN_LEAF_PAGES:
        return Verdict(case=None, dense=dense, too_small=True)
    for rule in RULES:
        if kind in rule.kinds and density >= rule.min_density:
            return Verdict(case=CASES[rule.case], dense=dense, too_small=False)
    return Verdict(case=None, dense=dense, too_small=False)


@dataclass(frozen=True)
class IndexCheck:
    """What ``check_postgres_index`` read: the table and its primary key (both
    schema-qualified and quoted as PostgreSQL quotes them), the key's columns and their
    types, what the key looks like, the index's numbers from ``pgstatindex`` (density
    and fragmentation in percent, None where it has none) and the verdict."""

    table: str
    index: str
    columns: tuple[str, ...]
    types: tuple[str, ...]
    kind: KeyKind
    uuid_version: str | None
    rows: int
    index_bytes: int
    leaf_pages: int
    density: float | None
    fragmentation: float | None
    verdict: Verdict

    def as_dict(self) -> dict[str, Any]:
        """The JSON face of ``--check-index --json``."""
        found = asdict(self)
        found["columns"], found["types"] = list(self.columns), list(self.types)
        case = self.verdict.case
        found["verdict"] = {
            "case": case.name if case else None,
            "documented_density": case.density if case else None,
            "dense": self.verdict.dense,
            "too_small": self.verdict.too_small,
        }
        found["reindex"] = reindex_statement(self.index)
        found["options"] = advice(self.verdict)
        return found


def advice(verdict: Verdict) -> list[str]:
    """What docs/keys.md ("What an operator can do") offers for a sparse index, by name
    (the catalog's ``sql.check.option.<name>``); nothing for a dense one or one too small
    to judge. Smaller client batches only for the buffered-blocks case."""
    if verdict.dense or verdict.too_small:
        return []
    names = ["identities", "reindex", "fillfactor"]
    if verdict.case is not None and verdict.case.name == "client_blocks":
        names.insert(1, "batch")
    return names


def reindex_statement(index: str) -> str:
    """The statement that packs ``index`` again without blocking writes."""
    return f"REINDEX INDEX CONCURRENTLY {index};"
