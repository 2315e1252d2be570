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
import re
from dataclasses import asdict, dataclass
from typing import Any

from snowid.ids import TWITTER

__all__ = [
    "MARK",
    "PREFIX",
    "Keys",
    "Kv",
    "Record",
    "absent",
    "decode",
    "delete",
    "encode",
    "kvs",
    "put",
    "read",
    "same_mod",
]

MARK = "lease-store"
"""``meta["snowid"]``: the meta record is snowid's (a prefix holding anything else is
someone else's data, refused)."""

PREFIX = re.compile(r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")
"""A key prefix: names of ASCII letters, digits and ``_ . -`` joined by ``/``."""
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
    holder whose reply was lost recognises its own write."""

    ceiling: int
    epoch: int = 0
    owner: str = ""
    holder: str = ""
    since: int | None = None
    removed: int | None = None
    op: str = ""

    def text(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

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
                since=None if data.get("since") is None else _int(data["since"]),
                removed=None if data.get("removed") is None else _int(data["removed"]),
                op=str(data.get("op", "")),
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            return None
        return record


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


def delete(key: str, end: str) -> dict[str, Any]:
    """Delete the keys from ``key`` up to, not including, ``end``."""
    return {"request_delete_range": {"key": encode(key), "range_end": encode(end)}}


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
