"""Composing one id from the web form validates each field once and decodes the result once.

Counted with a profile hook over one request served in this thread: every call of the
core's validators (``to_int``, TWITTER's ``check_*``) and of its decoders (``Layout.split``,
which ``snowid.decode`` uses for every layout, and TwitterLayout's ``decompose``), by code
object, so an alias or a pre-bound method is counted too.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from types import CodeType, FrameType

import httpx
import pytest

from snowid import TWITTER, Layout
from snowid.ids._parse import to_int
from snowid.web import Settings, create_app
from tests.support.web import fixed_identity_service

SEED = {"timestamp": "1288834975657", "datacenter": "1", "machine": "1", "sequence": "0"}
CHECKS = ("check_timestamp", "check_datacenter", "check_machine", "check_sequence")
COUNTED: dict[CodeType, str] = {
    to_int.__code__: "to_int",
    **{getattr(type(TWITTER), name).__code__: name for name in (*CHECKS, "decompose")},
    Layout.split.__code__: "split",
}


def count_calls(path: str, params: dict[str, str]) -> tuple[httpx.Response, Counter[str]]:
    """Serve one GET in this thread and count the calls of the functions in COUNTED."""
    app = create_app(Settings(), service=fixed_identity_service(3, 7))
    calls: Counter[str] = Counter()

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code in COUNTED:
            calls[COUNTED[frame.f_code]] += 1

    async def get() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            sys.setprofile(profile)
            try:
                return await http.get(path, params=params)
            finally:
                sys.setprofile(None)

    return asyncio.run(get()), calls


@pytest.mark.parametrize(
    ("path", "params"),
    [("/api/compose", SEED), ("/", SEED), ("/", {**SEED, "timestamp": ""})],
    ids=["api", "page", "page-now"],
)
def test_one_compose_request_validates_each_field_once_and_decodes_once(
    path: str, params: dict[str, str]
) -> None:
    response, calls = count_calls(path, params)
    assert response.status_code == 200
    assert "4194439168" in response.text or not params["timestamp"]
    typed = sum(1 for value in params.values() if value)  # a blank field is not converted
    assert calls["to_int"] == typed, dict(calls)
    assert all(calls[name] == 1 for name in CHECKS), dict(calls)
    # One decoded id (one split) from which the result's every view is computed.
    assert calls["decompose"] + calls["split"] == 1, dict(calls)
