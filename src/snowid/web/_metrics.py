"""/metrics in the Prometheus text exposition format (version 0.0.4)."""

from __future__ import annotations

from snowid.web._service import Snapshot

__all__ = ["CONTENT_TYPE", "LEASE_STATES", "render"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LEASE_STATES = ("unclaimed", "held", "lost", "closed", "static")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def render(snapshot: Snapshot) -> str:
    lines: list[str] = []

    def metric(name: str, kind: str, help_text: str, samples: list[tuple[str, int]]) -> None:
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} {kind}")
        lines.extend(f"{name}{labels} {value}" for labels, value in samples)

    metric(
        "snowid_ids_issued_total",
        "counter",
        "Ids issued by this process.",
        [("", snapshot.stats.issued)],
    )
    metric(
        "snowid_sequence_waits_total",
        "counter",
        "Waits for the next millisecond after 4096 ids in one millisecond.",
        [("", snapshot.stats.sequence_waits)],
    )
    metric(
        "snowid_clock_backward_events_total",
        "counter",
        "Times the wall clock was seen stepping back.",
        [("", snapshot.stats.clock_backward_events)],
    )
    metric(
        "snowid_clock_forward_jumps_total",
        "counter",
        "Times the wall clock was seen jumping forward.",
        [("", snapshot.stats.forward_jumps)],
    )
    metric(
        "snowid_ceiling_waits_total",
        "counter",
        "Waits for the lease ceiling to rise.",
        [("", snapshot.stats.ceiling_waits)],
    )
    metric(
        "snowid_ready",
        "gauge",
        "1 while this process holds an identity and can issue ids.",
        [("", int(snapshot.ready))],
    )
    metric(
        "snowid_lease_state",
        "gauge",
        "The lease state of this process (1 for the current one).",
        [(f'{{state="{state}"}}', int(state == snapshot.lease_state)) for state in LEASE_STATES],
    )
    if snapshot.ceiling_ms is not None:
        metric(
            "snowid_lease_ceiling_ms",
            "gauge",
            "Unix ms up to which ids may be issued under the current grant.",
            [("", snapshot.ceiling_ms)],
        )
    if snapshot.datacenter is not None and snapshot.machine is not None:
        labels = (
            f'{{datacenter="{snapshot.datacenter}",machine="{snapshot.machine}",'
            f'lease="{_escape(snapshot.lease_url or "static")}"}}'
        )
        metric(
            "snowid_identity_info",
            "gauge",
            "The worker identity held by this process.",
            [(labels, 1)],
        )
    return "\n".join(lines) + "\n"
