"""Kubernetes StatefulSet identities (``k8s:``, or ``ordinal:``): the pod's ordinal picks a
block of worker numbers, a file slot inside the pod picks one of them.

A StatefulSet names its pods ``NAME-0``, ``NAME-1``, … and runs at most one pod per
ordinal at a time (unless someone force-deletes a pod whose node is unreachable), so
the ordinal can stand for a datacenter the way ``static:`` stands for a whole
identity: the promise is Kubernetes', not a store's. The ordinal is read from

1. the environment variable ``ordinal_env`` names (``POD_INDEX`` by default) when it
   is set: the ``apps.kubernetes.io/pod-index`` label passed in through the downward
   API; else
2. the trailing ``-N`` of the host name: ``$HOSTNAME`` (Kubernetes sets it to the pod
   name) or, without it, the system's host name.

``offset`` is added (two StatefulSets, or two clusters, sharing one id space take
disjoint offsets). The 10 worker bits split into ``pod_bits`` (5 by default: the pod
is the datacenter, 0..31) and the rest for processes in the pod, each claiming a file
slot in ``state_dir`` (as ``file:`` does), so several workers of one pod never share
an identity.
"""

from __future__ import annotations

import logging
import os
import re
import socket
from collections.abc import Mapping
from dataclasses import dataclass

from snowid._exceptions import LeaseError, display_value, error_data, name_errors_module
from snowid.ids import TWITTER, Clock
from snowid.lease._url import LeaseUrl
from snowid.lease.file import FileLease

__all__ = [
    "DEFAULT_ORDINAL_ENV",
    "OPTIONS",
    "OrdinalMissingError",
    "OrdinalNotANumberError",
    "OrdinalOutOfRangeError",
    "PodBlock",
    "PodLease",
    "pod_block",
]


@error_data
class OrdinalMissingError(LeaseError):
    """``k8s:``: the pod's ordinal cannot be read: ``source`` (the host name or an
    environment variable) is ``value``, which does not end in a number."""

    code = "ordinal_missing"
    _shown = frozenset({"value"})
    source: str
    value: str


class OrdinalNotANumberError(OrdinalMissingError):
    """``k8s:``: the environment variable ``source`` holds ``value``, which is not a plain
    decimal number (digits only: no space, sign or point)."""

    code = "ordinal_not_a_number"

    def _derived(self) -> dict[str, object]:
        return {"value": display_value(repr(self.value))}  # quoted: " 4" shows its space


@error_data
class OrdinalOutOfRangeError(LeaseError):
    """``k8s:``: the pod's ordinal ``ordinal`` (from ``source`` = ``value``) is negative, or
    plus ``offset`` is past ``max``, the largest pod number ``pod_bits`` bits hold."""

    code = "ordinal_out_of_range"
    _shown = frozenset({"value", "ordinal"})
    source: str
    value: str
    ordinal: int
    offset: int
    max: int
    pod_bits: int

    def _derived(self) -> dict[str, object]:
        return {"max_ordinal": self.max - self.offset}


log = logging.getLogger("snowid.lease")

DEFAULT_ORDINAL_ENV = "POD_INDEX"
DEFAULT_POD_BITS = 5
OPTIONS = ("ordinal_env", "offset", "pod_bits", "state_dir")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,100}$", re.ASCII)
# Any length of digits is read, so that a number too large is out of range, not "no number"
# (4000 stays under CPython's limit on converting digits to an int).
_TRAILING = re.compile(r"^.*-([0-9]{1,4000})$", re.ASCII)
_NUMBER = re.compile(r"^-?[0-9]{1,4000}$", re.ASCII)  # plain decimal; a sign to refuse in range


@dataclass(frozen=True, slots=True)
class PodBlock:
    """The worker numbers ``first..last`` of pod number ``pod`` (ordinal + offset), and
    where the ordinal came from (``source`` = ``value``)."""

    ordinal: int
    offset: int
    pod: int
    pod_bits: int
    first: int
    last: int
    source: str
    value: str


def pod_block(
    parsed: LeaseUrl,
    environ: Mapping[str, str] | None = None,
    hostname: str | None = None,
) -> PodBlock:
    """The block of worker numbers this pod may claim from, per ``parsed``'s options."""
    env = os.environ if environ is None else environ
    name = parsed.options.get("ordinal_env", DEFAULT_ORDINAL_ENV)
    if not _ENV_NAME.match(name):
        raise parsed.fail("env_name", option="ordinal_env", text=name)
    bits = TWITTER.datacenter_bits + TWITTER.machine_bits
    pod_bits = parsed.integer("pod_bits", 1, bits)
    pod_bits = DEFAULT_POD_BITS if pod_bits is None else pod_bits
    max_pod = TWITTER.worker_blocks(pod_bits) - 1
    offset = parsed.integer("offset", 0, max_pod) or 0
    ordinal, source, value = _ordinal(env, name, hostname)
    pod = ordinal + offset
    if ordinal < 0 or pod > max_pod:
        raise OrdinalOutOfRangeError(
            source=source, value=value, ordinal=ordinal, offset=offset, max=max_pod,
            pod_bits=pod_bits,
        )  # fmt: skip
    first, last = TWITTER.worker_block(pod_bits, pod)
    return PodBlock(ordinal, offset, pod, pod_bits, first, last, source, value)


def _ordinal(env: Mapping[str, str], name: str, hostname: str | None) -> tuple[int, str, str]:
    """(ordinal, source, value): from ``$name`` when set, else from the host name."""
    index = env.get(name, "")
    if index:  # a plain decimal number, as the pod-index label gives: " 4" is a mistake
        if not _NUMBER.match(index):
            raise OrdinalNotANumberError(source=f"${name}", value=index)
        return int(index), f"${name}", index
    if hostname is not None:
        host, source = hostname, "the host name"
    elif env.get("HOSTNAME", "").strip():
        host, source = env["HOSTNAME"].strip(), "$HOSTNAME"
    else:
        host, source = socket.gethostname(), "the host name"
    label = host.split(".", 1)[0]  # a pod name, not a fully qualified one
    found = _TRAILING.match(label)
    if found is None:
        raise OrdinalMissingError(source=source, value=host)
    return int(found.group(1)), source, host


class PodLease(FileLease):
    """File slots in the pod's state directory, in the block of workers its ordinal picks.
    Everything else is ``file:``'s: the pod is one host."""

    @classmethod
    def from_url(cls, url: LeaseUrl, *, clock: Clock | None = None) -> FileLease:
        """``k8s:?state_dir=DIR&offset=N&pod_bits=P&ordinal_env=NAME`` and the file: tuning."""
        url.check_known((*OPTIONS, *FileLease.tuning))
        # k8s:///dir or k8s://host/ would be dropped in silence (lease init said "ready").
        location = url.netloc.rpartition("@")[2] + url.parts.path  # never the user part
        if url.netloc or url.parts.path:
            raise url.fail("no_location", scheme=f"{url.scheme}:", text=location or "…")
        block = pod_block(url)
        log.info(
            "snowid k8s: pod ordinal %d (%s %s) + offset %d: workers %d..%d",
            block.ordinal, block.source, block.value, block.offset, block.first, block.last,
        )  # fmt: skip
        state_dir = url.options.get("state_dir")
        return cls._from_options(
            url, url.local_path(state_dir) if state_dir else None, block.first, block.last, clock
        )


name_errors_module(globals())  # reprs and pickles say snowid.errors.X
