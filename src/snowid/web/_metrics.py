"""/metrics in the Prometheus text exposition format (version 0.0.4).

Every series has a ``pid`` label: a server started with ``--workers N`` answers for all
its processes at once (see ``_share``), one sample per process. Each metric is described
in docs/metrics.md; the alerting rules in deploy/prometheus and the dashboard in
deploy/grafana use these names (a test compares them), so renaming one breaks them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from snowid import TWITTER
from snowid.lease import url_kind
from snowid.web._service import Snapshot

__all__ = ["CONTENT_TYPE", "LEASE_STATES", "render"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LEASE_STATES = ("unclaimed", "held", "lost", "closed", "static")


def _failover_metrics(metric: Callable[..., None], known: Callable[..., list[Any]]) -> None:
    """The store's failovers and rollbacks detected, and the end of the last quarantine
    (store leases only; docs/leases.md, "A store that failed over")."""
    failovers = known(lambda s: s.failovers)
    if failovers:
        metric(
            "snowid_lease_store_failovers_total",
            "counter",
            "Failovers and rollbacks of the lease store this process detected.",
            failovers,
        )
        metric(
            "snowid_lease_quarantine_end_seconds",
            "gauge",
            "Unix time at which the last failover quarantine met ends (0: none met).",
            known(
                lambda s: None if s.quarantine_until_ms is None else s.quarantine_until_ms / 1000
            ),
        )


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def render(snapshots: Sequence[Snapshot], *, now_ms: int | None = None) -> str:
    """The text for ``snapshots``, one per process (the answering one first); ``now_ms``
    (Unix ms, default the system clock) is when the layout's remaining lifetime is measured."""
    lines: list[str] = []
    if now_ms is None:
        now_ms = time.time_ns() // 1_000_000

    def metric(
        name: str, kind: str, help_text: str, samples: Sequence[tuple[str, int | float]]
    ) -> None:
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} {kind}")
        lines.extend(f"{name}{{{labels}}} {value}" for labels, value in samples)

    def each(value: str) -> list[tuple[str, int | float]]:
        return [(f'pid="{s.pid}"', getattr(s.stats, value)) for s in snapshots]

    def known(read: Callable[[Snapshot], int | float | None]) -> list[tuple[str, int | float]]:
        """The processes for which ``read`` has a value (leases without a store have none)."""
        return [(f'pid="{s.pid}"', v) for s in snapshots if (v := read(s)) is not None]

    metric("snowid_ids_issued_total", "counter", "Ids issued by this process.", each("issued"))
    metric(
        "snowid_sequence_waits_total",
        "counter",
        "Waits for the next millisecond after 4096 ids in one millisecond.",
        each("sequence_waits"),
    )
    metric(
        "snowid_sequence_wait_seconds_total",
        "counter",
        "Seconds spent with the sequence run out, waiting for the next millisecond.",
        known(lambda s: s.stats.sequence_wait_ns / 1e9),
    )
    metric(
        "snowid_clock_backward_events_total",
        "counter",
        "Times the wall clock was seen stepping back.",
        each("clock_backward_events"),
    )
    metric(
        "snowid_clock_backward_max_step_seconds",
        "gauge",
        "The largest step back of the wall clock seen, in seconds (0: none).",
        known(lambda s: s.stats.clock_backward_max_ms / 1000),
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
        "snowid_lifetime_remaining_seconds",
        "gauge",
        "Seconds left until the layout's last millisecond (2080-07-10T17:30:30.208Z).",
        known(lambda s: max(0, TWITTER.max_timestamp - now_ms) / 1000),
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
    renewals = known(lambda s: s.renewals)
    if renewals:
        metric(
            "snowid_lease_renewals_total",
            "counter",
            "Claims and renewals the lease store acknowledged.",
            renewals,
        )
        metric(
            "snowid_lease_renewal_failures_total",
            "counter",
            "Renewals that got no answer from the lease store in time.",
            known(lambda s: s.renew_failures),
        )
    _failover_metrics(metric, known)
    offsets = known(lambda s: None if s.clock_offset_ms is None else s.clock_offset_ms / 1000)
    if offsets:
        metric(
            "snowid_lease_clock_offset_seconds",
            "gauge",
            "This host's clock minus the lease store's, measured at the last claim or renewal.",
            offsets,
        )
    tolerances = known(lambda s: None if s.max_skew_ms is None else s.max_skew_ms / 1000)
    if tolerances:
        metric(
            "snowid_lease_max_skew_seconds",
            "gauge",
            "The largest clock offset from the lease store that a claim accepts.",
            tolerances,
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
