"""The deploy files are valid for the tools that consume them (checked offline)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.deploy

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
MANIFESTS = sorted((ROOT / "deploy" / "k8s").glob("*.yaml"))


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(arg) for arg in args], capture_output=True, text=True, timeout=120, check=False
    )


def test_kubernetes_manifests_match_the_api_schemas() -> None:
    result = _run(BIN / "kubernetes-validate", "--strict", *MANIFESTS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_file_matches_the_compose_spec() -> None:
    compose = ROOT / "deploy" / "compose.yaml"
    result = _run(BIN / "check-jsonschema", "--builtin-schema", "vendor.compose-spec", compose)
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_passes_hadolint() -> None:
    result = _run(BIN / "hadolint", ROOT / "deploy" / "Dockerfile")
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("path", [*MANIFESTS, ROOT / "deploy" / "compose.yaml"], ids=str)
def test_yaml_is_clean(path: Path) -> None:
    result = _run(
        BIN / "yamllint",
        "-d",
        "{extends: relaxed, rules: {line-length: {max: 120}}}",
        "--strict",
        path,
    )
    assert result.returncode == 0, result.stdout


def test_image_runs_as_non_root() -> None:
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "\nUSER 10001:10001\n" in dockerfile
    for manifest in MANIFESTS:
        text = manifest.read_text()
        if "kind: Deployment" in text or "kind: Job" in text:
            assert "runAsNonRoot: true" in text, manifest.name


def test_beat_is_a_singleton() -> None:
    beat = (ROOT / "deploy" / "k8s" / "beat.yaml").read_text()
    assert "replicas: 1" in beat
    assert "type: Recreate" in beat


def test_runtime_lock_pins_the_same_versions_as_the_test_lock() -> None:
    def pins(path: Path) -> dict[str, str]:
        lines = path.read_text().splitlines()
        pairs = (line.split("==", 1) for line in lines if "==" in line and not line.startswith("#"))
        return {name.lower(): version.strip() for name, version in pairs}

    runtime = pins(ROOT / "deploy" / "requirements-runtime.lock")
    full = pins(ROOT / "requirements.lock")
    assert runtime
    assert {name: full.get(name) for name in runtime} == runtime
