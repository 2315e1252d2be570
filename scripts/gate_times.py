"""Where the gate's time went: reads the JUnit reports scripts/test leaves in .cache/gate/
(one per stage) and prints, per stage, the tests' summed time and the modules that took
the most of it.

    .venv/bin/python scripts/gate_times.py [--top 25]

A stage runs on several xdist workers, so its wall time is about the summed time divided
by the workers, unless one long group (a module that shares a server or a page) or one
long test ends last: the largest single tests and modules are the ones to look at first.
"""

from __future__ import annotations

import argparse
import collections
import xml.etree.ElementTree as ET
from pathlib import Path

REPORTS = Path(__file__).resolve().parents[1] / ".cache" / "gate"


def module_of(case: ET.Element) -> str:
    """``tests/lease/test_x.py`` from a test case's class name ``tests.lease.test_x[.Class]``."""
    parts = case.get("classname", "").split(".")
    while parts and not parts[-1].startswith("test_"):
        parts.pop()  # a test class's name
    return "/".join(parts) + ".py" if parts else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--top", type=int, default=25, help="how many modules and tests")
    args = parser.parse_args()
    reports = sorted(REPORTS.glob("*.xml"))
    if not reports:
        raise SystemExit(f"no report in {REPORTS}: run scripts/test first")
    for report in reports:
        # pytest wrote it on this machine a moment ago: not untrusted input.
        cases = list(ET.parse(report).getroot().iter("testcase"))  # noqa: S314
        by_module: collections.defaultdict[str, float] = collections.defaultdict(float)
        for case in cases:
            by_module[module_of(case)] += float(case.get("time", "0"))
        total = sum(by_module.values())
        print(f"{report.stem}: {len(cases)} tests, {total:.0f} s summed")
        ranked = sorted(by_module.items(), key=lambda item: -item[1])[: args.top]
        for module, seconds in ranked:
            print(f"  {seconds:8.1f} s  {100 * seconds / total:5.1f} %  {module}")
        longest = sorted(cases, key=lambda c: -float(c.get("time", "0")))[: args.top]
        print("  longest tests:")
        for case in longest:
            print(f"  {float(case.get('time', '0')):8.1f} s  {module_of(case)}::{case.get('name')}")


if __name__ == "__main__":
    main()
