"""The service's id source: readiness follows the lease, 503 when ids cannot be issued safely."""

from __future__ import annotations

import os

import httpx

from snowid import Generator, Grant
from snowid.errors import LeaseLostError, NoFreeIdentityError
from snowid.lease import Lease
from snowid.testing import FakeClock
from snowid.web import IdService, Settings, create_app
from snowid.web._metrics import render
from snowid.web._service import Snapshot
from tests.support.web import serving

START_MS = 1_700_000_000_000
PID = f'pid="{os.getpid()}"'  # the test server runs in this process


class FakeLease:
    """A lease that grants (datacenter 5, machine 9) until told it was lost."""

    def __init__(self, *, available: bool = True) -> None:
        self.ceiling_ms = -1
        self.available = available
        self._state = "unclaimed"
        self._grant: Grant | None = None
        self.closed = False

    @property
    def url(self) -> str:
        return "fake://lease"

    @property
    def state(self) -> str:
        return self._state

    @property
    def grant(self) -> Grant | None:
        return self._grant

    # A lease without a store clock or renewals, as file slots are (snowid.lease.Lease).
    clock_offset_ms = None
    clock_tolerance_ms = None
    renewal_counts = None

    def acquire(self, needed_ms: int) -> Grant:
        if not self.available:
            raise NoFreeIdentityError(first=0, last=1023, store="fake://lease")
        if self._state == "lost":
            raise LeaseLostError(worker=297, reason="taken over in a test")
        self._grant = Grant(5, 9, start_ms=needed_ms, ceiling_ms=needed_ms + 60_000, epoch=1)
        self.ceiling_ms = self._grant.ceiling_ms
        self._state = "held"
        return self._grant

    async def aacquire(self, needed_ms: int) -> Grant:
        return self.acquire(needed_ms)

    def lose(self) -> None:
        self._state, self._grant, self.ceiling_ms = "lost", None, -1

    def close(self) -> None:
        self.closed = True
        self._state = "closed"


def service_on(lease: FakeLease, clock: FakeClock | None = None) -> IdService:
    def build() -> tuple[Generator, Lease | None]:
        return Generator(fence=lease, clock=clock), lease

    return IdService(build)


def test_startup_claims_an_identity_and_readiness_says_so() -> None:
    lease = FakeLease()
    with serving(create_app(Settings(), service=service_on(lease))) as url:
        assert lease.state == "held"
        ready = httpx.get(f"{url}/readyz")
        assert ready.status_code == 200
        assert ready.json() == {
            "ready": True,
            "draining": False,
            "lease": "held",
            "datacenter": 5,
            "machine": 9,
            "ceiling_ms": lease.ceiling_ms,
        }
        metrics = httpx.get(f"{url}/metrics").text
        assert f'snowid_lease_state{{{PID},state="held"}} 1' in metrics
        assert f"snowid_lease_ceiling_ms{{{PID}}} {lease.ceiling_ms}" in metrics
        identity = f'{PID},worker="169",datacenter="5",machine="9",lease="other"'
        assert f"snowid_identity_info{{{identity}}} 1" in metrics
    assert lease.closed  # shutdown gives the identity back


def test_no_identity_means_not_ready_and_503_but_the_page_still_works() -> None:
    lease = FakeLease(available=False)
    with serving(create_app(Settings(), service=service_on(lease))) as url:
        assert httpx.get(f"{url}/healthz").json() == {
            "status": "ok",
            "ready": False,
            "lease": "unclaimed",
        }
        assert httpx.get(f"{url}/readyz").status_code == 503
        response = httpx.post(f"{url}/api/ids")
        assert response.status_code == 503
        assert response.headers["retry-after"] == "1"
        assert response.json()["error"]["code"] == "no_free_identity"
        assert httpx.get(f"{url}/").status_code == 200
        assert httpx.get(f"{url}/api/decode/4194439168").status_code == 200
        lease.available = True  # the store has room again: the next request claims
        assert httpx.post(f"{url}/api/ids").status_code == 200
        assert httpx.get(f"{url}/readyz").status_code == 200


def test_lost_lease_answers_503_never_an_id() -> None:
    lease = FakeLease()
    with serving(create_app(Settings(), service=service_on(lease))) as url:
        assert httpx.post(f"{url}/api/ids").status_code == 200
        lease.lose()
        response = httpx.post(f"{url}/api/ids?count=3")
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "lease_lost"
        assert httpx.get(f"{url}/readyz").json()["ready"] is False
        assert f'snowid_lease_state{{{PID},state="lost"}} 1' in httpx.get(f"{url}/metrics").text


def test_clock_behind_answers_503_and_is_counted() -> None:
    clock = FakeClock(start_ms=START_MS)
    with serving(create_app(Settings(), service=service_on(FakeLease(), clock))) as url:
        assert httpx.post(f"{url}/api/ids").status_code == 200
        clock.step(-10_000)
        response = httpx.post(f"{url}/api/ids?lang=vi")
        assert response.status_code == 503
        error = response.json()["error"]
        assert error["code"] == "clock_moved_backwards"
        assert error["message"].startswith("Đồng hồ đã lùi 10000 ms")
        metrics = httpx.get(f"{url}/metrics").text
        assert f"snowid_clock_backward_events_total{{{PID}}} 1" in metrics


def test_sequence_exhaustion_waits_for_the_next_millisecond() -> None:
    clock = FakeClock(start_ms=START_MS)
    with serving(create_app(Settings(), service=service_on(FakeLease(), clock))) as url:
        ids = [int(i) for i in httpx.post(f"{url}/api/ids?count=4096").json()["ids"]]
        ids += [int(i) for i in httpx.post(f"{url}/api/ids?count=4096").json()["ids"]]
        assert len(set(ids)) == 8192
        text = httpx.get(f"{url}/metrics").text
        assert f"snowid_sequence_waits_total{{{PID}}} 0" not in text


def test_metrics_text_format_is_well_formed() -> None:
    snapshot = Snapshot(
        ready=False,
        lease_url='a"b',
        lease_state="lost",
        grant=None,
        ceiling_ms=None,
        datacenter=1,
        machine=2,
    )
    text = render([snapshot])
    assert text.endswith("\n")
    for line in text.splitlines():
        assert line.startswith("# ") or line.startswith("snowid_")
    assert 'lease="other"' in text  # the kind only, never the URL
    assert "snowid_lease_ceiling_ms" not in text


def test_a_static_lease_is_reported_as_static_not_held() -> None:
    """The regression: ``--lease static://…`` showed the state "held" like a leased identity."""
    from snowid.lease import open_lease

    def build() -> tuple[Generator, Lease | None]:
        lease = open_lease("static://7/3")  # held 0.5 s: taken by no other test
        return Generator(fence=lease), lease

    with serving(create_app(Settings(), service=IdService(build))) as url:
        assert httpx.get(f"{url}/healthz").json() == {
            "status": "ok",
            "ready": True,
            "lease": "static",
        }
        ready = httpx.get(f"{url}/readyz")
        assert ready.status_code == 200
        assert ready.json()["lease"] == "static"
        metrics = httpx.get(f"{url}/metrics").text
        assert f'snowid_lease_state{{{PID},state="static"}} 1' in metrics
        assert f'snowid_lease_state{{{PID},state="held"}} 0' in metrics
