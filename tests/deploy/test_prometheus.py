"""deploy/prometheus and deploy/grafana (issue 20 §3): the alerting rules pass ``promtool check
rules`` and their unit tests (``promtool test rules``), and those unit tests see every alert
fire and stay silent; the rules and the Grafana dashboard name only metrics the service
exports, and the dashboard shows every one of them.

promtool comes from Debian's prometheus package, unpacked by scripts/test into
.cache/prometheus (no server is started). Without it these tests are skipped, saying so,
except under CI=true, where a missing promtool fails them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from starlette.testclient import TestClient

from snowid.web import Settings, create_app
from snowid.web._metrics import render
from tests.support.memstore import memory_store_service, scraped_metric_names
from tests.web.test_metrics import store_snapshot

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus" / "snowid-rules.yml"
RULE_TESTS = ROOT / "deploy" / "prometheus" / "snowid-rules.test.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "snowid.json"
UNPACKED = ROOT / ".cache" / "prometheus" / "usr" / "bin" / "promtool"

ISSUE_ALERTS = {
    "SnowidClockOffsetBeyondTolerance",  # clock offset beyond the lease's tolerance
    "SnowidClockSteppedBack",  # the clock stepping back
    "SnowidLeaseRenewalsFailing",  # renewals failing
    "SnowidLeaseCeilingRunningOut",  # the ceiling running out
    "SnowidLifetimeEnding",  # lifetime under N years
    "SnowidNoIdentity",  # no identity held
}


@pytest.fixture(scope="module")
def promtool() -> str:
    found = str(UNPACKED) if UNPACKED.is_file() else shutil.which("promtool")
    if found is None:
        reason = (
            f"promtool not found in {UNPACKED.relative_to(ROOT)} nor on PATH: scripts/test"
            " unpacks it there from Debian's prometheus package (apt-get download, dpkg -x)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return found


def run(promtool: str, *args: str, cwd: Path, stdin: str | None = None) -> tuple[int, str]:
    done = subprocess.run(
        [promtool, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


# --- the rules ----------------------------------------------------------------------------


def test_the_rules_pass_promtool_check(promtool: str) -> None:
    code, out = run(promtool, "check", "rules", RULES.name, cwd=RULES.parent)
    assert code == 0, out
    assert "SUCCESS" in out


def test_the_rules_pass_their_unit_tests(promtool: str) -> None:
    code, out = run(promtool, "test", "rules", RULE_TESTS.name, cwd=RULES.parent)
    assert code == 0, out
    assert "SUCCESS" in out


def alerts() -> list[dict[str, Any]]:
    document = yaml.safe_load(RULES.read_text())
    return [rule for group in document["groups"] for rule in group["rules"] if "alert" in rule]


def test_there_is_an_alert_for_each_situation_the_issue_names() -> None:
    assert {rule["alert"] for rule in alerts()} >= ISSUE_ALERTS


def run_mutated(promtool: str, folder: Path, name: str, expr: str) -> tuple[int, str]:
    """Run the unit tests against the rules with alert ``name``'s expression replaced."""
    document = yaml.safe_load(RULES.read_text())
    for group in document["groups"]:
        for rule in group["rules"]:
            if rule.get("alert") == name:
                rule["expr"] = expr.replace("ORIGINAL", rule["expr"])
    (folder / RULES.name).write_text(yaml.safe_dump(document))
    shutil.copy(RULE_TESTS, folder / RULE_TESTS.name)
    return run(promtool, "test", "rules", RULE_TESTS.name, cwd=folder)


@pytest.mark.parametrize("name", sorted({rule["alert"] for rule in alerts()}))
def test_the_unit_tests_see_each_alert_fire_and_stay_silent(
    promtool: str, tmp_path: Path, name: str
) -> None:
    """The unit tests fail when the alert never fires, and when it fires whenever its own
    expression is empty: they hold a case where it must fire and one, longer than its
    ``for``, where it must stay silent."""
    code, out = run_mutated(promtool, tmp_path, name, "vector(0) > 1")
    assert code != 0, out
    assert f"alertname: {name}," in out
    code, out = run_mutated(promtool, tmp_path, name, "(ORIGINAL) or on() vector(1)")
    assert code != 0, out
    assert f"alertname: {name}," in out


# --- metric names: what the service exports, what the rules and the dashboard use -----------

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_MATCHERS = re.compile(r"\{[^{}]*\}")
_RANGES = re.compile(r"\[[^\]]*\]")
_GROUPING = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)")
_VARIABLES = re.compile(r"\$\{[^}]*\}|\$\w+")
_WORD = re.compile(r"(?<![\w.])[a-zA-Z_:][a-zA-Z0-9_:]*")
_KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "inf"}
_KEYWORDS |= {"nan", "group_left", "group_right"}


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression selects (not its functions, labels or keywords)."""
    text = _VARIABLES.sub(" ", _STRINGS.sub('""', expr))
    text = _GROUPING.sub(" ", _RANGES.sub(" ", _MATCHERS.sub(" ", text)))
    names = set()
    for word in _WORD.finditer(text):
        if text[word.end() :].lstrip().startswith("(") or word.group().lower() in _KEYWORDS:
            continue
        names.add(word.group())
    return names


def test_metric_names_are_read_from_promql() -> None:
    expr = (
        'sum by (pid) (rate(snowid_a{job=~"$job",x="}{"}[5m])) / on(pid) group_left snowid_b'
        " offset 5m > 2e3 and ignoring(state) abs(snowid_c) < 365.25 * 86400 unless up"
    )
    assert metric_names(expr) == {"snowid_a", "snowid_b", "snowid_c", "up"}


@pytest.fixture(scope="module")
def exported() -> Iterator[set[str]]:
    """The names a live /metrics declares: the app on a store lease, so every series is on."""
    app = create_app(Settings(max_count=16), service=memory_store_service())
    with TestClient(app) as http:
        http.post("/api/ids", params={"count": 1})
        yield scraped_metric_names(http.get("/metrics").text)


def dashboard_queries() -> list[str]:
    document = json.loads(DASHBOARD.read_text())
    queries: list[str] = []

    def walk(panels: list[dict[str, Any]]) -> None:
        for panel in panels:
            queries.extend(target["expr"] for target in panel.get("targets", []))
            walk(panel.get("panels", []))

    walk(document["panels"])
    for variable in document["templating"]["list"]:
        query = variable.get("query")
        text = query.get("query", "") if isinstance(query, dict) else ""
        if text.startswith("label_values("):  # label_values(METRIC, label): the metric
            queries.append(text[len("label_values(") :].rsplit(",", 1)[0])
    return queries


def test_the_rules_use_only_metrics_the_service_exports(exported: set[str]) -> None:
    used = set().union(*(metric_names(rule["expr"]) for rule in alerts()))
    assert used, "no metric found in the rules"
    assert used <= exported, used - exported


def test_the_dashboard_shows_every_exported_metric_and_no_other(exported: set[str]) -> None:
    queries = dashboard_queries()
    assert len(queries) >= 10
    used = set().union(*(metric_names(query) for query in queries))
    assert used - exported == set()
    assert exported - used == set()


def test_the_metrics_text_passes_promtool_lint_but_for_one_kept_name(promtool: str) -> None:
    """``promtool check metrics`` finds one problem, in a name kept from before (renaming it
    would break every dashboard that uses it): the new metrics are in base units."""
    code, out = run(promtool, "check", "metrics", cwd=ROOT, stdin=render([store_snapshot()]))
    problems = [line for line in out.splitlines() if line.strip()]
    assert problems == [
        "snowid_lease_ceiling_ms metric names should not contain abbreviated units"
    ], out
    assert code != 0
