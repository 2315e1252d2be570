"""The clock-back policies against a real wall clock stepped back mid-run (libfaketime).

One subprocess per policy, with Debian's libfaketime preloaded
(``FAKETIME_TIMESTAMP_FILE``, re-read on every clock read with ``FAKETIME_NO_CACHE=1``)
and the boot clock left alone (``FAKETIME_DONT_FAKE_MONOTONIC=1``): what a real NTP or
operator step does. The child issues ids on a file-slot lease with the system clock,
steps its own wall clock back by 5 ms, 500 ms and 3 s in turn (by writing the file
between two calls, so that no step falls between an id and the clock read after it),
and keeps issuing, single ids and batches, through each step (the child sleeps through
``select``: see its comment). It reports what it saw;
this test holds it to the promises: no duplicate, no decrease, no id ahead of the wall
clock by more than the policy allows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.faketime import faketime_env

pytestmark = pytest.mark.slow  # three subprocesses running ~4 s of real time each

STEPS_MS = (5, 500, 3000)

CHILD = textwrap.dedent(
    """
    import json, os, select, sys, time

    # libfaketime 0.9.10 with FAKETIME_DONT_FAKE_MONOTONIC=1 fails Python's time.sleep
    # (clock_nanosleep, absolute, on the monotonic clock) with EINVAL: sleep through
    # select instead, for the same time. Only how the child sleeps changes.
    time.sleep = lambda seconds: select.select([], [], [], seconds)

    from snowid import TWITTER, Generator
    from snowid.errors import ClockMovedBackwards
    from snowid.lease import open_lease

    policy, state_dir, offset_file = sys.argv[1:4]
    steps = [int(step) for step in sys.argv[4].split(",")]
    lease = open_lease(f"file://{state_dir}?range=0-0")
    generator = Generator(fence=lease, clock_back=policy)
    ids, report, offset_ms = [], [], 0

    def run(seconds, phase):
        stop = time.monotonic() + seconds
        refused = issued_ahead = 0
        lead = -10**9
        batch = False
        while time.monotonic() < stop:
            try:
                got = generator.next_ids(8192) if batch else [generator.next_id()]
            except ClockMovedBackwards:
                refused += 1
                time.sleep(0.001)
                continue
            wall = time.time_ns() // 1_000_000  # read after the ids: no step in between
            ids.extend(got)
            for value in got:
                ahead = TWITTER.decompose(value).timestamp - wall
                lead = max(lead, ahead)
                issued_ahead += ahead > 0
            batch = not batch
            time.sleep(0.0005)  # a shared machine: leave it some CPU
        report.append({"phase": phase, "refused": refused, "max_lead": lead,
                       "issued_ahead": issued_ahead,
                       "seen": generator.stats.clock_backward_events})

    generator.next_id()  # claims the slot (and waits out its horizon) before the run
    for step in steps:
        run(0.05, f"before {step}")
        offset_ms -= step
        with open(offset_file + ".next", "w") as out:
            out.write(f"{offset_ms / 1000:+.3f}\\n")
        ids.append(generator.next_id())  # the last id before the step, then at once:
        os.replace(offset_file + ".next", offset_file)  # (quicker than rewriting it)
        run(step / 1000 + 0.3, f"after {step}")
    lease.close()
    json.dump({"report": report, "count": len(ids),
               "duplicates": len(ids) - len(set(ids)),
               "decreases": sum(a >= b for a, b in zip(ids, ids[1:]))}, sys.stdout)
    """
)


def run_child(policy: str, tmp_path: Path) -> dict[str, object]:
    steps = ",".join(map(str, STEPS_MS))
    offset_file = tmp_path / "faketime"
    offset_file.write_text("+0\n")
    env = {**os.environ, **faketime_env(offset_file)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, policy, str(tmp_path / "slots"), str(offset_file), steps],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def phases(result: dict[str, object]) -> dict[str, dict[str, int]]:
    report = result["report"]
    assert isinstance(report, list)
    return {entry["phase"]: entry for entry in report}


@pytest.mark.parametrize(
    ("policy", "lead_ms"),
    [("raise", 0), ("wait:1000", 0), ("logical:200", 200)],
)
def test_a_real_step_back_never_duplicates_decreases_or_leads_past_n(
    policy: str, lead_ms: int, tmp_path: Path
) -> None:
    result = run_child(policy, tmp_path)
    assert result["duplicates"] == 0
    assert result["decreases"] == 0
    seen = phases(result)
    assert set(seen) == {f"{when} {step}" for step in STEPS_MS for when in ("before", "after")}
    for phase, entry in seen.items():
        assert entry["max_lead"] <= lead_ms, (phase, entry)
        assert entry["max_lead"] > -(10**9), (phase, "no id at all")  # issuing resumed
    after = {step: seen[f"after {step}"] for step in STEPS_MS}
    # Did the generator see the step behind its last id? Always for 500 ms and 3 s; for
    # 5 ms only if less than 5 ms passed between the last id and the step taking effect
    # (a busy machine may take longer to rename the file): then it must have reacted too.
    saw = {step: after[step]["seen"] > seen[f"before {step}"]["seen"] for step in STEPS_MS}
    assert saw[500]
    assert saw[3000]
    if policy == "raise":  # every step refused until the clock caught up
        assert all(after[step]["refused"] > 0 for step in STEPS_MS if saw[step])
    elif policy.startswith("wait"):  # waited out within 1000 ms; 3 s is more: refused
        assert (after[5]["refused"], after[500]["refused"]) == (0, 0)
        assert after[3000]["refused"] > 0
    else:  # ran ahead of the wall clock through 5 ms and 500 ms, waited beyond 200 ms
        assert (after[5]["refused"], after[500]["refused"]) == (0, 0)
        assert after[5]["issued_ahead"] > 0 or not saw[5]
        assert after[500]["issued_ahead"] > 0
        assert after[3000]["refused"] > 0  # 2.8 s to wait is more than max_wait_ms
