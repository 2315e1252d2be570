"""How far each lease lets a ``logical`` clock lead the wall clock (``max_lead_ms``).

A store's ``max_skew``, a file slot's write-ahead ``delta``; a static identity without
``state_dir`` keeps no high-water mark and is refused. Checked when the generator is
built, before any claim: nothing here reaches a store.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from snowid import Generator
from snowid.errors import ClockPolicyError
from snowid.lease import open_lease


def test_a_store_lease_allows_up_to_its_max_skew() -> None:
    with open_lease("postgresql://127.0.0.1/test?max_skew=0.5") as lease:
        assert lease.max_lead_ms == 500
        Generator(fence=lease, clock_back="logical:500")
        with pytest.raises(ClockPolicyError) as caught:
            Generator(fence=lease, clock_back="logical:501")
    assert (caught.value.reason, caught.value.max) == ("lead", 500)
    assert "postgresql://127.0.0.1/test" in str(caught.value)


def test_a_file_slot_allows_up_to_its_write_ahead(tmp_path: Path) -> None:
    with open_lease(f"file://{tmp_path}?range=0-3&delta=0.1") as lease:
        assert lease.max_lead_ms == 100
        with pytest.raises(ClockPolicyError):
            Generator(fence=lease, clock_back="logical:101")
        assert lease.state == "unclaimed"  # refused before any claim


def test_a_static_identity_needs_state_dir_for_a_logical_clock(tmp_path: Path) -> None:
    with open_lease("static://1/2") as bare:
        assert bare.max_lead_ms is None
        with pytest.raises(ClockPolicyError) as caught:
            Generator(fence=bare, clock_back="logical:5")
        assert caught.value.reason == "no_mark"
        assert "static://1/2" in str(caught.value)
        Generator(fence=bare, clock_back="wait:5")  # the other policies need no mark
    with open_lease(f"static://1/2?state_dir={tmp_path}") as marked:
        Generator(fence=marked, clock_back="logical:250")
