"""The keys and records of the etcd lease store, and the transactions' pieces.

Under a key prefix ``P`` (the URL's path) the store keeps, as JSON values:

- ``P/meta``: ``{"snowid": "lease-store", "incarnation", "layout", "created_ms",
  "format"}``, written once, when the store is set up (compare ``create_revision`` = 0);
- ``P/ceiling/WWWW`` (worker, four digits): the worker's ``Record``, with no etcd lease:
  the highest ceiling ever granted, the claims so far (the epoch, the fencing token), the
  current owner; every write of it is a compare-and-set on its ``mod_revision``;
- ``P/held/WWWW``: who holds the worker now, bound to that holder's etcd lease, created
  only if absent: etcd deletes it when the lease is revoked (a release) or runs out.

Workers are written with four digits so that one key range reads the workers
``first..last`` in order. The transactions are the JSON gateway's (``/v3/kv/txn``):
keys and values base64, 64-bit numbers as decimal strings.
"""

from __future__ import annotations

import base64
import binascii
import json
import random
import re
import uuid
from dataclasses import asdict, dataclass, replace
from typing import Any

from snowid._exceptions import StoreRefusedError
from snowid.ids import TWITTER
from snowid.lease._storeops import LostHow, StoreMissing, lost_how

__all__ = [
    "MARK",
    "MAX_CEILING",
    "WHOLE",
    "Keys",
    "Kv",
    "Record",
    "RecordChecks",
    "absent",
    "at_once",
    "candidates",
    "decode",
    "delete",
    "encode",
    "held_text",
    "kvs",
    "meta_text",
    "put",
    "read",
    "removed_text",
    "same_mod",
]

MARK = "lease-store"
"""``meta["snowid"]``: the meta record is snowid's (a prefix holding anything else is
someone else's data, refused)."""

MAX_CEILING = 2**63 - 1
"""No ceiling is written above it (a stored one near it is claimed unchanged and refused
as ceiling-ahead)."""

_HANDOVER = ("start", "released", "released_epoch", "released_ceiling")
_WORKER = re.compile(r"^(ceiling|held)/(\d{4})$")


def encode(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def decode(text: str) -> str:
    return base64.b64decode(text).decode()


@dataclass(frozen=True, slots=True)
class Keys:
    """The key names under ``prefix``."""

    prefix: str

    @property
    def meta(self) -> str:
        return f"{self.prefix}/meta"

    def ceiling(self, worker: int) -> str:
        return f"{self.prefix}/ceiling/{worker:04d}"

    def held(self, worker: int) -> str:
        return f"{self.prefix}/held/{worker:04d}"

    @property
    def all(self) -> str:
        """The prefix itself with the ``/`` after it (what a prefix range reads)."""
        return f"{self.prefix}/"

    def ours(self, key: str) -> bool:
        """Whether ``key`` (under the prefix) is one snowid writes."""
        rest = key[len(self.all) :]
        if rest == "meta":
            return True
        found = _WORKER.match(rest)
        return found is not None and int(found.group(2)) <= TWITTER.max_worker

    def worker_of(self, key: str) -> int:
        return int(key[-4:])


@dataclass(frozen=True, slots=True)
class Kv:
    """A key as etcd answered it: its value (text) and revisions."""

    key: str
    value: str
    mod: int
    create: int
    lease: int


@dataclass(frozen=True, slots=True)
class Record:
    """A worker's persistent record (``P/ceiling/WWWW``). ``owner`` is empty while no
    claim made since its last repair owns it; ``removed`` is the ceiling it was given when
    it was found deleted and written again (a holder whose acknowledged ceiling is not
    above it had its record removed rather than taken over); ``op`` names the write, so a
    holder whose reply was lost recognises its own write. The clean hand-over's fields
    (docs/leases.md, "Clean hand-over"): ``start`` (the first millisecond of the grant the
    last claim made) and ``released`` (the mark a clean release wrote), which counts only
    while ``released_epoch`` and ``released_ceiling`` are still the record's epoch and
    ceiling. Every write but the release's builds the record afresh or through
    ``renewed``/``unmarked``, none of which keeps a mark: any later write voids it."""

    ceiling: int
    epoch: int = 0
    owner: str = ""
    holder: str = ""
    since: int | None = None
    removed: int | None = None
    op: str = ""
    start: int | None = None
    released: int | None = None
    released_epoch: int | None = None
    released_ceiling: int | None = None

    @property
    def base(self) -> int:
        """Where the next claim starts, minus 1: the release mark while it is the release of
        this epoch at this ceiling, else the ceiling."""
        marked = self.released is not None and (self.released_epoch, self.released_ceiling) == (
            self.epoch,
            self.ceiling,
        )
        return self.released if marked and self.released is not None else self.ceiling

    def claimed(self, proposal: int, span_ms: int, *, owner: str, holder: str, now: int) -> Record:
        """The record a claim writes: the next epoch, owned by ``owner``, its grant starting
        at ``base`` + 1 (``start``) with its ceiling a span above the later of ``base`` and
        ``proposal``, never below the stored ceiling (a claim given back unused and retried
        raises it once, not a span at each try); no mark."""
        base = self.base
        ceiling = max(self.ceiling, min(max(base, proposal) + span_ms, MAX_CEILING))
        return Record(ceiling, self.epoch + 1, owner, holder, now, None, uuid.uuid4().hex, base + 1)

    def renewed(self, ceiling: int) -> Record:
        """The record a renewal writes: ``ceiling``, the claim's start kept, no mark."""
        return replace(
            self, ceiling=ceiling, removed=None, op=uuid.uuid4().hex, released=None,
            released_epoch=None, released_ceiling=None,
        )  # fmt: skip

    def released_at(self, mark_ms: int) -> Record | None:
        """The record a clean release writes: the mark ``mark_ms``, never below the grant's
        start - 1, with the epoch and ceiling it belongs to; the ceiling untouched. None
        when no mark can be written: no start recorded (a claim by a snowid before marks)
        or a mark above the ceiling, which no sealed holder can have."""
        if self.start is None or mark_ms > self.ceiling:
            return None
        return replace(
            self, released=max(mark_ms, self.start - 1), released_epoch=self.epoch,
            released_ceiling=self.ceiling, op=uuid.uuid4().hex,
        )  # fmt: skip

    def released_by(self, owner: str, epoch: int, mark_ms: int) -> Record | None:
        """``released_at(mark_ms)`` when the record is still (``owner``, ``epoch``)'s claim,
        else None (taken over meanwhile: no mark)."""
        if (self.owner, self.epoch) != (owner, epoch):
            return None
        return self.released_at(mark_ms)

    def unmarked(self) -> Record:
        """The record with its release mark voided (the next claim starts above the ceiling)."""
        return replace(self, released=None, released_epoch=None, released_ceiling=None)

    def text(self) -> str:
        data = asdict(self)
        for name in _HANDOVER:  # absent rather than null: as a record written before marks
            if data[name] is None:
                del data[name]
        return json.dumps(data, separators=(",", ":"))

    @classmethod
    def parse(cls, text: str) -> Record | None:
        """The record in ``text``; None if it is not one of snowid's."""
        try:
            data = json.loads(text)
            record = cls(
                ceiling=_int(data["ceiling"]),
                epoch=_int(data.get("epoch", 0)),
                owner=str(data.get("owner", "")),
                holder=str(data.get("holder", "")),
                since=_opt(data, "since"),
                removed=_opt(data, "removed"),
                op=str(data.get("op", "")),
                start=_opt(data, "start"),
                released=_opt(data, "released"),
                released_epoch=_opt(data, "released_epoch"),
                released_ceiling=_opt(data, "released_ceiling"),
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            return None
        return record


def _opt(data: dict[str, Any], name: str) -> int | None:
    return None if data.get(name) is None else _int(data[name])


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(value)
    return value


def read(text: str) -> dict[str, Any] | None:
    """A JSON object from a value, or None if the value is not one."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


# --- the pieces of a transaction ----------------------------------------------------------


def same_mod(key: str, revision: int) -> dict[str, Any]:
    """Compare: ``key`` was last written at ``revision`` (0: it does not exist)."""
    return {"key": encode(key), "target": "MOD", "result": "EQUAL", "mod_revision": str(revision)}


def absent(key: str) -> dict[str, Any]:
    """Compare: ``key`` does not exist (create-if-absent)."""
    return {"key": encode(key), "target": "CREATE", "result": "EQUAL", "create_revision": "0"}


def put(key: str, value: str, lease: int = 0) -> dict[str, Any]:
    request: dict[str, Any] = {"key": encode(key), "value": encode(value)}
    if lease:
        request["lease"] = str(lease)
    return {"request_put": request}


def delete(key: str, end: str | None = None) -> dict[str, Any]:
    """Delete the keys from ``key`` up to, not including, ``end`` (None: ``key`` alone)."""
    request = {"key": encode(key)}
    if end is not None:
        request["range_end"] = encode(end)
    return {"request_delete_range": request}


def get(
    key: str, end: str | None = None, *, keys_only: bool = False, count_only: bool = False
) -> dict[str, Any]:
    """A range read of ``key`` (up to, not including, ``end``): the keys without their
    values (``keys_only``), or only how many there are (``count_only``)."""
    request: dict[str, Any] = {"key": encode(key)}
    if end is not None:
        request["range_end"] = encode(end)
    if keys_only:
        request["keys_only"] = True
    if count_only:
        request["count_only"] = True
    return {"request_range": request}


def kvs(response: dict[str, Any]) -> list[Kv]:
    """The keys of one range response (inside a transaction's ``responses``)."""
    found = []
    for item in response.get("response_range", {}).get("kvs", []):
        try:
            value = decode(item.get("value", ""))
            key = decode(item["key"])
        except (binascii.Error, UnicodeDecodeError, KeyError):
            continue  # not text: not ours, seen as a foreign key by the caller's check
        found.append(
            Kv(
                key,
                value,
                int(item.get("mod_revision", 0)),
                int(item.get("create_revision", 0)),
                int(item.get("lease", 0)),
            )
        )
    return found


# --- what etcd and ZooKeeper write alike --------------------------------------------------


def candidates(free: list[int], records: dict[int, Record], caller_ms: int) -> list[int]:
    """The order to try free workers in: the lowest start first (``Record.base``: the
    protocol's pick, the successor most likely to start at once); after that one, which a
    claimant at the same moment may have taken, those a claim may start at once in random
    order (so many claimants spread out instead of racing for one key), then the rest,
    lowest start first."""
    ranked = sorted(free, key=lambda w: (records[w].base, w))
    ready = at_once({w: records[w] for w in ranked[1:]}, caller_ms)
    waiting = [w for w in ranked[1:] if records[w].base >= caller_ms]
    return ranked[:1] + ready + waiting


WHOLE = 64
"""A range this small is read whole by every claim (its order: ``candidates``)."""


def at_once(records: dict[int, Record], caller_ms: int) -> list[int]:
    """The workers of ``records`` a claim may start at once, in random order (so that
    claimants at the same moment spread out instead of racing for one key)."""
    ready = [w for w, record in records.items() if record.base < caller_ms]
    random.shuffle(ready)
    return ready


def held_text(owner: str, epoch: int, expires_ms: int) -> str:
    return json.dumps({"owner": owner, "epoch": epoch, "expires_ms": expires_ms})


def removed_text(floor: int) -> str:
    """A deleted record written again: quarantined at ``floor``, owned by nobody."""
    return Record(floor, 0, "", "", None, floor).text()


def meta_text(meta: dict[str, Any]) -> str:
    return json.dumps(meta, separators=(",", ":"))


class RecordChecks:
    """What an etcd or ZooKeeper lease checks alike in the records it read (a mixin of
    ``StoreLease``): ``noun`` is what the store keeps (a key, a node), ``place`` where (a
    prefix, a path)."""

    url: str
    keys: Keys
    noun, place = "key", "prefix"

    def _meta_data(self, where: str, text: str | None) -> dict[str, Any]:
        """The meta record's fields; StoreMissing if there is none; a meta record that is
        not snowid's is refused."""
        if text is None:
            raise StoreMissing(f"the store's meta {self.noun} {where} is gone")
        data = read(text)
        if data is None or data.get("snowid") != MARK or "incarnation" not in data:
            raise self._foreign(where)
        return data

    def _record_at(self, where: str, text: str) -> Record:
        record = Record.parse(text)
        if record is None:
            raise self._foreign(where)
        return record

    def _foreign(self, where: str) -> StoreRefusedError:
        place = self.place
        return StoreRefusedError(
            store=self.url,
            reason=f"the {self.noun} {where} under the {place} {self.keys.all} is not one of"
            f" snowid's lease records: the {place} holds someone else's data; name a {place}"
            " of snowid's own in the URL's path",
        )

    @staticmethod
    def _format(meta: dict[str, Any]) -> int:
        value = meta.get("format")
        return value if isinstance(value, int) and not isinstance(value, bool) else 1

    def _lost(
        self, meta: str | None, where: str, record: str | None, *, owner: str, epoch: int,
        acked_ms: int,
    ) -> LostHow:  # fmt: skip
        """``_store_lost_how`` from the meta record's and the worker record's texts."""
        fmt = self._format(self._meta_data(self.keys.meta, meta)) if meta is not None else None
        if record is None:
            return lost_how((fmt, None, None, None), owner, epoch, acked_ms)
        found = self._record_at(where, record)
        return lost_how(
            (fmt, found.owner or None, found.epoch, found.ceiling), owner, epoch, acked_ms
        )

    def _rows(
        self, records: dict[int, tuple[str, str]], held: dict[int, str]
    ) -> list[tuple[int, bool, str, int, int, int | None, int | None]]:
        """``status`` rows from the records ((where, text) by worker) and the held
        markers' texts by worker: the workers ever claimed."""
        rows = []
        for worker, (where, text) in sorted(records.items()):
            record = self._record_at(where, text)
            if record.epoch <= 0:
                continue
            holding = held.get(worker)
            expires = None if holding is None else (read(holding) or {}).get("expires_ms")
            rows.append(
                (worker, holding is not None, record.holder, record.epoch, record.ceiling,
                 record.since, expires if isinstance(expires, int) else None)
            )  # fmt: skip
        return rows
