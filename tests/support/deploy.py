"""What the recipes in deploy/ promise about ``snowid serve``, read from the files.

The systemd unit, the Kubernetes manifests and the Containerfile each start ``snowid serve``
with arguments and SNOWID_* variables, and each bounds its stop. These helpers check them
against snowid itself (its argument parser, ``Settings`` and ``open_lease``) rather than
against a copy of the names, so a renamed flag or variable fails here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from snowid.cli import build_parser
from snowid.cli._serve import FLAGS
from snowid.lease import open_lease
from snowid.web import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"

STOP_ALLOWANCE_S = 11
"""The stop after the drain, as snowid serve bounds it: requests in flight finish (at most
5 s) and the lease is closed (at most 5 s); the whole stop is at most drain + 11 s."""

DRAIN_FLAG = "--drain-seconds"

CONTAINER_USER = 10001
"""The uid deploy/container/Containerfile runs as, which the Kubernetes manifests name."""

# Variables snowid reads that are not serve settings.
_OTHER_VARIABLES = {"SNOWID_LANG"}


def drain_seconds(args: Sequence[str]) -> int:
    """The drain a command line asks for; the recipes always name it."""
    assert DRAIN_FLAG in args, f"{list(args)} does not name {DRAIN_FLAG}"
    return int(args[list(args).index(DRAIN_FLAG) + 1])


def serve_settings(args: Sequence[str], environ: Mapping[str, str]) -> Settings:
    """The settings ``snowid ARGS`` would serve with in ``environ``, through snowid's own
    parser; every SNOWID_* variable must be one snowid reads (Settings ignores others)."""
    known = set(Settings.ENVIRONMENT.values()) | _OTHER_VARIABLES
    unknown = sorted(name for name in environ if name.startswith("SNOWID_") and name not in known)
    assert unknown == [], f"not variables snowid reads: {unknown}"
    assert list(args[:1]) == ["serve"], args
    parsed, unknown = build_parser().parse_known_args(list(args))
    assert unknown == [], f"not arguments of snowid serve: {unknown}"
    return Settings.load({name: getattr(parsed, name) for name in FLAGS}, environ)


def check_lease_url(url: str, monkeypatch: pytest.MonkeyPatch, **environ: str) -> str:
    """Open the lease URL as a server would (no store is reached), in ``environ``; its
    display form."""
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    lease = open_lease(url)
    try:
        return lease.url
    finally:
        lease.close()


def state_dir_of(url: str) -> str:
    """The state directory a file:, k8s: or static: lease URL names."""
    if url.startswith("file://"):
        return url.removeprefix("file://").split("?", 1)[0]
    found = re.search(r"[?&]state_dir=([^&]+)", url)
    assert found, f"{url} names no state directory"
    return found.group(1)
