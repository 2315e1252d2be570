"""/metrics across worker processes: each publishes its snapshot to the shared directory,
the one that answers adds the others' (issue 8 item 10)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from snowid import GeneratorStats, Grant
from snowid.web._metrics import render
from snowid.web._service import Snapshot
from snowid.web._share import MetricsShare
from tests.support.web import fixed_identity_service


def snapshot(pid: int, issued: int, datacenter: int = 1, machine: int = 2) -> Snapshot:
    return Snapshot(
        ready=True,
        lease_url="file:///var/lib/snowid",
        lease_state="held",
        grant=Grant(datacenter, machine, 10, 20, 3),
        ceiling_ms=20,
        datacenter=datacenter,
        machine=machine,
        stats=GeneratorStats(issued, 1, 2, 3, 4),
        pid=pid,
    )


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_another_live_process_is_read_back_whole(tmp_path: Path) -> None:
    share = MetricsShare(str(tmp_path))
    other = snapshot(os.getppid(), issued=77)  # the parent: alive, and not this process
    (tmp_path / f"{other.pid}.json").write_text(json.dumps(dataclasses.asdict(other)))
    assert share.others() == [other]


def test_its_own_file_dead_and_stale_ones_are_left_out(tmp_path: Path) -> None:
    share = MetricsShare(str(tmp_path))
    share.publish(snapshot(os.getpid(), issued=5))  # this process: the live snapshot wins
    gone = dead_pid()
    (tmp_path / f"{gone}.json").write_text((tmp_path / f"{os.getpid()}.json").read_text())
    stale = tmp_path / f"{os.getppid()}.json"
    stale.write_text((tmp_path / f"{os.getpid()}.json").read_text())
    old = time.time() - 60
    os.utime(stale, (old, old))
    (tmp_path / "junk.json").write_text("{")
    (tmp_path / "123.tmp").write_text("{")
    assert share.others() == []
    assert not (tmp_path / f"{gone}.json").exists()
    assert not stale.exists()


def test_a_half_written_or_foreign_file_is_skipped(tmp_path: Path) -> None:
    share = MetricsShare(str(tmp_path))
    (tmp_path / f"{os.getppid()}.json").write_text('{"ready": true')
    assert share.others() == []
    (tmp_path / f"{os.getppid()}.json").write_text('{"surprise": 1}')
    assert share.others() == []


def test_publishing_runs_every_second_and_withdraws_at_stop(tmp_path: Path) -> None:
    async def run() -> None:
        service = fixed_identity_service(3, 4)
        await service.start()
        publisher = MetricsShare(str(tmp_path / "made")).start(service)
        own = tmp_path / "made" / f"{os.getpid()}.json"
        for _ in range(50):
            if own.exists():
                break
            await asyncio.sleep(0.02)
        assert '"machine": 4' in own.read_text()
        await publisher.stop()
        assert not own.exists()

    asyncio.run(run())


def test_render_gives_each_process_its_samples_under_one_family() -> None:
    text = render([snapshot(11, 5, 1, 2), snapshot(22, 7, 3, 4)])
    assert text.count("# TYPE snowid_ids_issued_total counter") == 1
    assert 'snowid_ids_issued_total{pid="11"} 5' in text
    assert 'snowid_ids_issued_total{pid="22"} 7' in text
    assert 'snowid_lease_state{pid="22",state="held"} 1' in text
    assert 'snowid_identity_info{pid="11",worker="34",datacenter="1",machine="2",' in text
    assert 'snowid_identity_info{pid="22",worker="100",datacenter="3",machine="4",' in text
