"""/metrics after issue 20 §3: the metrics it had keep their names, and what was missing is
added: the seconds of the layout's lifetime left, the clock offset from the lease store (with
the lease's tolerance), the largest backward step of the wall clock, the time spent waiting
on the sequence, and the lease's renewals and failed renewals. No server: ``render`` and the
app in process."""

from __future__ import annotations

import dataclasses
import os
import time
from datetime import UTC, datetime

from starlette.testclient import TestClient

from snowid import GeneratorStats, Grant
from snowid.web import Settings, create_app
from snowid.web._metrics import render
from snowid.web._service import Snapshot
from snowid.web._share import _decode, _encode
from tests.support.memstore import memory_store_service, scraped_metric_names

KEPT = (
    "snowid_ids_issued_total",
    "snowid_sequence_waits_total",
    "snowid_clock_backward_events_total",
    "snowid_clock_forward_jumps_total",
    "snowid_ceiling_waits_total",
    "snowid_ready",
    "snowid_lease_state",
    "snowid_lease_ceiling_ms",
    "snowid_identity_info",
)
"""Renaming any of these is a breaking change (CHANGELOG.md)."""

END_MS = round(datetime(2080, 7, 10, 17, 30, 30, 208000, tzinfo=UTC).timestamp() * 1000)
DAY_MS = 86_400_000


def store_snapshot(pid: int = 5) -> Snapshot:
    """A process under a store lease, with every figure set."""
    return Snapshot(
        ready=True,
        lease_url="postgresql://db.internal/app",
        lease_state="held",
        grant=Grant(1, 2, 10, 20, 3),
        ceiling_ms=20,
        datacenter=1,
        machine=2,
        stats=GeneratorStats(10, 2, 1, 0, 0, 250, 1_500_000),
        pid=pid,
        clock_offset_ms=-1250,
        max_skew_ms=2000,
        renewals=7,
        renew_failures=3,
    )


def file_snapshot(pid: int = 6) -> Snapshot:
    """A process on a file slot: no store clock, no renewals."""
    return Snapshot(
        ready=True,
        lease_url="file:///var/lib/snowid",
        lease_state="held",
        grant=Grant(0, 1, 10, 20, 1),
        ceiling_ms=20,
        datacenter=0,
        machine=1,
        stats=GeneratorStats(3, 0, 0, 0, 0),
        pid=pid,
    )


def samples(text: str, name: str) -> dict[str, str]:
    """``{labels: value}`` of metric ``name`` in a /metrics text."""
    found = {}
    for line in text.splitlines():
        if line.startswith(name + "{"):
            labels, value = line[len(name) :].rsplit(" ", 1)
            found[labels] = value
    return found


def test_the_new_figures_are_in_seconds_with_their_types() -> None:
    text = render([store_snapshot()], now_ms=END_MS - DAY_MS)
    expected = {
        "snowid_sequence_wait_seconds_total": ("counter", "0.0015"),
        "snowid_clock_backward_max_step_seconds": ("gauge", "0.25"),
        "snowid_lifetime_remaining_seconds": ("gauge", "86400.0"),
        "snowid_lease_clock_offset_seconds": ("gauge", "-1.25"),
        "snowid_lease_max_skew_seconds": ("gauge", "2.0"),
        "snowid_lease_renewals_total": ("counter", "7"),
        "snowid_lease_renewal_failures_total": ("counter", "3"),
    }
    for name, (kind, value) in expected.items():
        assert f"# TYPE {name} {kind}\n" in text, name
        assert samples(text, name) == {'{pid="5"}': value}, name


def test_the_metrics_there_were_keep_their_names() -> None:
    names = scraped_metric_names(render([store_snapshot()]))
    assert set(KEPT) <= names


def test_the_lifetime_counts_down_to_the_layouts_last_millisecond() -> None:
    # 2080-07-10T17:30:30.208Z is the last millisecond a Twitter id can hold.
    assert END_MS == 1288834974657 + 2**41 - 1
    one_second = render([file_snapshot()], now_ms=END_MS - 1000)
    assert samples(one_second, "snowid_lifetime_remaining_seconds") == {'{pid="6"}': "1.0"}
    after = render([file_snapshot()], now_ms=END_MS + 5000)
    assert samples(after, "snowid_lifetime_remaining_seconds") == {'{pid="6"}': "0.0"}


def test_the_lifetime_is_read_from_the_clock_when_scraped() -> None:
    before_ms = time.time_ns() // 1_000_000
    text = render([file_snapshot()])
    after_ms = time.time_ns() // 1_000_000
    (value,) = samples(text, "snowid_lifetime_remaining_seconds").values()
    assert END_MS - after_ms <= round(float(value) * 1000) <= END_MS - before_ms


def test_without_a_store_clock_there_is_no_offset_and_no_renewal_series() -> None:
    text = render([file_snapshot()], now_ms=END_MS - DAY_MS)
    names = scraped_metric_names(text)
    assert set(KEPT) <= names
    for name in (
        "snowid_lease_clock_offset_seconds",
        "snowid_lease_max_skew_seconds",
        "snowid_lease_renewals_total",
        "snowid_lease_renewal_failures_total",
    ):
        assert name not in names
    assert samples(text, "snowid_clock_backward_max_step_seconds") == {'{pid="6"}': "0.0"}


def test_each_process_answers_for_itself_in_one_scrape() -> None:
    text = render([store_snapshot(5), file_snapshot(6)], now_ms=END_MS - DAY_MS)
    assert samples(text, "snowid_lease_clock_offset_seconds") == {'{pid="5"}': "-1.25"}
    assert set(samples(text, "snowid_lifetime_remaining_seconds")) == {
        '{pid="5"}',
        '{pid="6"}',
    }


def test_the_new_fields_cross_the_metrics_directory_whole() -> None:
    snapshot = store_snapshot(os.getpid())
    assert _decode(_encode(snapshot)) == snapshot
    assert dataclasses.asdict(_decode(_encode(snapshot)))["stats"]["sequence_wait_ns"] == 1_500_000


def test_a_store_lease_shows_its_offset_through_the_app() -> None:
    service = memory_store_service(host_ahead_ms=250)
    app = create_app(Settings(max_count=16), service=service)
    with TestClient(app) as http:
        assert http.post("/api/ids", params={"count": 5}).status_code == 200
        text = http.get("/metrics").text
    pid = f'{{pid="{os.getpid()}"}}'
    assert samples(text, "snowid_lease_clock_offset_seconds") == {pid: "0.25"}
    assert samples(text, "snowid_lease_max_skew_seconds") == {pid: "2.0"}
    assert samples(text, "snowid_lease_renewals_total") == {pid: "1"}  # the claim
    assert samples(text, "snowid_lease_renewal_failures_total") == {pid: "0"}
    assert int(samples(text, "snowid_ids_issued_total")[pid]) >= 5
