"""/metrics in the Prometheus text exposition format (version 0.0.4).

Every series has a ``pid`` label: a server started with ``--workers N`` answers for all
its processes at once (see ``_share``), one sample per process.
"""

from __future__ import annotations

from collections.abc import Sequence

from snowid import TWITTER
from snowid.lease import url_kind
from snowid.web._service import Snapshot

__all__ = ["CONTENT_TYPE", "LEASE_STATES", "render"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LEASE_STATES = ("unclaimed", "held", "lost", "closed", "static")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def render(snapshots: Sequence[Snapshot]) -> str:
    """The text for ``snapshots``, one per process (the answering one first)."""
    lines: list[str] = []

    def metric(name: str, kind: str, help_text: str, samples: list[tuple[str, int]]) -> None:
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} {kind}")
        lines.extend(f"{name}{{{labels}}} {value}" for labels, value in samples)

    def each(value: str) -> list[tuple[str, int]]:
        return [(f'pid="{s.pid}"', getattr(s.stats, value)) for s in snapshots]

    metric("snowid_ids_issued_total", "counter", "Ids issued by this process.", each("issued"))
    metric(
        "snowid_sequence_waits_total",
        "counter",
        "Waits for the next millisecond after 4096 ids in one millisecond.",
        each("sequence_waits"),
    )
    metric(
        "snowid_clock_backward_events_total",
        "counter",
        "Times the wall clock was seen stepping back.",
        each("clock_backward_events"),
    )
    metric(
        "snowid_clock_forward_jumps_total",
        "counter",
        "Times the wall clock was seen jumping forward.",
        each("forward_jumps"),
    )
    metric(
        "snowid_ceiling_waits_total",
        "counter",
        "Waits for the lease ceiling to rise.",
        each("ceiling_waits"),
    )
    metric(
        "snowid_ready",
        "gauge",
        "1 while this process holds an identity and can issue ids.",
        [(f'pid="{s.pid}"', int(s.ready)) for s in snapshots],
    )
    metric(
        "snowid_lease_state",
        "gauge",
        "The lease state of this process (1 for the current one).",
        [
            (f'pid="{s.pid}",state="{state}"', int(state == s.lease_state))
            for s in snapshots
            for state in LEASE_STATES
        ],
    )
    ceilings = [(f'pid="{s.pid}"', s.ceiling_ms) for s in snapshots if s.ceiling_ms is not None]
    if ceilings:
        metric(
            "snowid_lease_ceiling_ms",
            "gauge",
            "Unix ms up to which ids may be issued under the current grant.",
            ceilings,
        )
    identities = []
    for snapshot in snapshots:
        if snapshot.datacenter is not None and snapshot.machine is not None:
            worker = TWITTER.worker(snapshot.datacenter, snapshot.machine)
            labels = (
                f'pid="{snapshot.pid}",worker="{worker}",'
                f'datacenter="{snapshot.datacenter}",machine="{snapshot.machine}",'
                # only the kind (postgresql, file, static): a scrape never says where the store is
                f'lease="{_escape(url_kind(snapshot.lease_url))}"'
            )
            identities.append((labels, 1))
    if identities:
        metric(
            "snowid_identity_info",
            "gauge",
            "The worker identity held by this process.",
            identities,
        )
    return "\n".join(lines) + "\n"
