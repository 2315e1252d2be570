"""deploy/kubernetes: every manifest passes ``kubernetes-validate --strict`` against named
Kubernetes versions (its schemas ship with it: no cluster, no network), and its snowid
containers run a ``snowid serve`` that snowid itself accepts, with probes, a stop budget and
a disruption budget that fit the drain.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.deploy import (
    CONTAINER_USER,
    DEPLOY,
    STOP_ALLOWANCE_S,
    check_lease_url,
    drain_seconds,
    serve_settings,
    state_dir_of,
)

MANIFESTS = sorted((DEPLOY / "kubernetes").glob("*.yaml"))
# 1.28: the first with the apps.kubernetes.io/pod-index label the k8s: lease reads; and a
# recent one, where nothing the manifests use may have been removed.
VERSIONS = ["1.28.0", "1.35.0"]


def documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def validate(paths: list[Path], version: str) -> subprocess.CompletedProcess[str]:
    program = shutil.which("kubernetes-validate", path=str(Path(sys.executable).parent))
    assert program, "kubernetes-validate is not installed (the test extra has it)"
    return subprocess.run(
        [program, "--strict", "--kubernetes-version", version, *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_every_manifest_passes_kubernetes_validate_strict(version: str) -> None:
    """Every resource of every file passed (it says so per resource; an empty file would
    pass with nothing to say), and nothing else was printed."""
    assert MANIFESTS, "no manifests in deploy/kubernetes"
    done = validate(MANIFESTS, version)
    assert done.returncode == 0, done.stdout + done.stderr
    expected = sorted(
        f"INFO {path} passed for resource {doc['kind'].lower()}/{doc['metadata']['name']}"
        f" against version {version.rsplit('.', 1)[0]}"
        for path in MANIFESTS
        for doc in documents(path)
    )
    assert sorted((done.stdout + done.stderr).splitlines()) == expected


def test_kubernetes_validate_strict_refuses_a_field_kubernetes_does_not_have(
    tmp_path: Path,
) -> None:
    """--strict is what catches a misspelt field: the StatefulSet with one fails."""
    (statefulset,) = [
        doc
        for doc in documents(DEPLOY / "kubernetes" / "k8s-lease.yaml")
        if doc["kind"] == "StatefulSet"
    ]
    statefulset["spec"]["template"]["spec"]["containers"][0]["readinessprobe"] = {}
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(statefulset))
    done = validate([bad], VERSIONS[0])
    assert done.returncode != 0
    assert "'readinessprobe' was unexpected" in done.stdout + done.stderr


def workloads() -> list[tuple[str, dict[str, Any], dict[str, str]]]:
    """(file name, pod spec, the Secrets' string data of that file's fleet) of each
    StatefulSet and Deployment."""
    secrets: dict[str, str] = {}
    for path in MANIFESTS:
        for doc in documents(path):
            if doc["kind"] == "Secret":
                secrets.update(doc["stringData"])
    return [
        (path.name, doc["spec"]["template"]["spec"], secrets)
        for path in MANIFESTS
        for doc in documents(path)
        if doc["kind"] in ("StatefulSet", "Deployment")
    ]


WORKLOADS = workloads()
IDS = [name for name, _, _ in WORKLOADS]


def snowid_container(pod: dict[str, Any]) -> dict[str, Any]:
    (container,) = [c for c in pod["containers"] if c["name"] == "snowid"]
    return container


def environment(container: dict[str, Any], secrets: dict[str, str]) -> dict[str, str]:
    """The container's variables, the Secret's values in place of their references."""
    env: dict[str, str] = {}
    for item in container.get("env", []):
        if "value" in item:
            env[item["name"]] = item["value"]
        elif "secretKeyRef" in item["valueFrom"]:
            env[item["name"]] = secrets[item["valueFrom"]["secretKeyRef"]["key"]]
        else:  # the downward API: the pod index of the first pod
            assert item["valueFrom"]["fieldRef"]["fieldPath"] == (
                "metadata.labels['apps.kubernetes.io/pod-index']"
            ), item
            env[item["name"]] = "0"
    return env


def test_there_are_both_lease_variants() -> None:
    assert IDS == ["k8s-lease.yaml", "postgres-lease.yaml"]


@pytest.mark.parametrize(("name", "pod", "secrets"), WORKLOADS, ids=IDS)
def test_the_container_serves_with_settings_snowid_takes(
    name: str, pod: dict[str, Any], secrets: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    container = snowid_container(pod)
    env = environment(container, secrets)
    settings = serve_settings(container["args"], env)
    assert settings.lease_url is not None
    check_lease_url(settings.lease_url, monkeypatch, **env)
    (port,) = container["ports"]
    assert (port["name"], port["containerPort"]) == ("http", settings.port)
    assert settings.host == "0.0.0.0"


@pytest.mark.parametrize(("name", "pod", "secrets"), WORKLOADS, ids=IDS)
def test_snowid_serve_takes_the_drain_flag_the_manifest_gives(
    name: str, pod: dict[str, Any], secrets: dict[str, str]
) -> None:
    container = snowid_container(pod)
    serve_settings(container["args"], environment(container, secrets))


@pytest.mark.parametrize(("name", "pod", "secrets"), WORKLOADS, ids=IDS)
def test_the_lease_password_is_in_a_secret_not_in_the_manifest_or_arguments(
    name: str, pod: dict[str, Any], secrets: dict[str, str]
) -> None:
    for container in [*pod.get("initContainers", []), *pod["containers"]]:
        assert not any("://" in arg or "--lease" in arg for arg in container["args"]), container
        for item in container.get("env", []):
            if item["name"] == "SNOWID_LEASE" and "value" in item:
                assert "@" not in item["value"], item  # no user or password inline
    if name == "postgres-lease.yaml":
        assert "@" in secrets["SNOWID_LEASE"]


@pytest.mark.parametrize(("name", "pod", "secrets"), WORKLOADS, ids=IDS)
def test_probes_and_stop_budget_fit_the_drain(
    name: str, pod: dict[str, Any], secrets: dict[str, str]
) -> None:
    """Readiness on /readyz, which turns 503 at SIGTERM: the probe sees it within the drain.
    The grace period covers preStop, the drain and the stop."""
    container = snowid_container(pod)
    drain = drain_seconds(container["args"])
    ready = container["readinessProbe"]
    assert ready["httpGet"] == {"path": "/readyz", "port": "http"}
    assert ready["periodSeconds"] * ready["failureThreshold"] <= drain
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert container["startupProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    pre_stop = container["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"
    assert pod["terminationGracePeriodSeconds"] >= int(pre_stop[1]) + drain + STOP_ALLOWANCE_S


@pytest.mark.parametrize(("name", "pod", "secrets"), WORKLOADS, ids=IDS)
def test_the_pod_runs_as_the_images_user_with_requests(
    name: str, pod: dict[str, Any], secrets: dict[str, str]
) -> None:
    security = pod["securityContext"]
    assert security["runAsNonRoot"] is True
    assert security["runAsUser"] == CONTAINER_USER
    for container in [*pod.get("initContainers", []), *pod["containers"]]:
        assert container["securityContext"]["readOnlyRootFilesystem"] is True
        assert container["securityContext"]["allowPrivilegeEscalation"] is False
        assert {"cpu", "memory"} <= set(container["resources"]["requests"])


def test_the_statefulset_keeps_its_slots_on_a_volume_that_follows_the_ordinal() -> None:
    """The k8s: lease's state directory is the mount of a volumeClaimTemplate."""
    (statefulset,) = [
        doc
        for doc in documents(DEPLOY / "kubernetes" / "k8s-lease.yaml")
        if doc["kind"] == "StatefulSet"
    ]
    container = snowid_container(statefulset["spec"]["template"]["spec"])
    lease = environment(container, {})["SNOWID_LEASE"]
    assert lease.startswith("k8s:")
    claims = {claim["metadata"]["name"] for claim in statefulset["spec"]["volumeClaimTemplates"]}
    mounts = {mount["mountPath"]: mount["name"] for mount in container["volumeMounts"]}
    assert mounts[state_dir_of(lease)] in claims


@pytest.mark.parametrize("path", MANIFESTS, ids=lambda path: path.name)
def test_services_and_budgets_select_the_pods(path: Path) -> None:
    docs = documents(path)
    pods = [
        doc["spec"]["template"]["metadata"]["labels"]
        for doc in docs
        if doc["kind"] in ("StatefulSet", "Deployment")
    ]
    for doc in docs:
        if doc["kind"] == "Service":
            selector = doc["spec"]["selector"]
        elif doc["kind"] == "PodDisruptionBudget":
            selector = doc["spec"]["selector"]["matchLabels"]
            assert doc["spec"]["maxUnavailable"] == 1
        else:
            continue
        assert pods, f"{path.name}: a {doc['kind']} with no pods to select"
        assert all(selector.items() <= labels.items() for labels in pods), doc
    kinds = {doc["kind"] for doc in docs}
    if kinds & {"StatefulSet", "Deployment"}:
        assert {"Service", "PodDisruptionBudget"} <= kinds, kinds
