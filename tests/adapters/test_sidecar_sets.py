"""The Node sidecar's two install sets (issue 22): `gateway setup` installs the Pi and Nu
runtimes, the OpenClaw SDK only when asked for, needed or there before, and says what npm
will download — the measured figures for this lockfile, never a guess. No network here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from adapters import _sidecar, _sidecars
from adapters._sidecar_sets import (
    SIZES_FILE,
    needed_by_installed,
    plan_install,
    read_sizes,
    wants_openclaw,
)
from gateway.model import LaunchRefusal
from gateway.packages import install, load_adapters
from tests.gateway.packages._helpers import evaluate, make_ready

SOURCES = _sidecars.SOURCE_DIR
REPO = SOURCES.parent
OPENCLAW_TARBALL = REPO / "tests/fixtures/npm/ollama-openclaw-web-search-0.2.2.tgz"


def test_the_lockfile_keeps_openclaw_out_of_the_base_set() -> None:
    manifest = json.loads((SOURCES / "package.json").read_text())
    assert set(manifest["devDependencies"]) == {"openclaw"}
    assert set(manifest["dependencies"]) == {"@earendil-works/pi-coding-agent", "esbuild", "jiti"}
    packages = json.loads((SOURCES / "package-lock.json").read_text())["packages"]
    assert packages["node_modules/openclaw"]["dev"] is True
    for name in manifest["dependencies"]:
        assert not packages[f"node_modules/{name}"].get("dev")


def test_the_measured_sizes_are_those_of_this_lockfile() -> None:
    sizes = read_sizes(SOURCES)
    assert sizes is not None, f"run `python -m adapters._sidecar_sets measure` ({SIZES_FILE})"
    assert sizes["base"].download_bytes < sizes["openclaw"].download_bytes
    assert sizes["base"].installed_bytes < sizes["openclaw"].installed_bytes


def test_a_plain_setup_installs_the_base_set_and_says_its_measured_size() -> None:
    sizes = read_sizes(SOURCES)
    assert sizes is not None
    plan = plan_install(openclaw=False, sizes=sizes, base_installed=False)
    assert plan.npm_args == ("--omit=dev",) and not plan.openclaw
    assert plan.statement == f"installing the Pi and Nu runtimes: {sizes['base'].describe()}"
    assert plan.hint is not None and "`gateway setup --openclaw` adds it" in plan.hint
    assert sizes["openclaw"].describe() in plan.hint


def test_the_size_statement_is_in_megabytes_from_the_measured_bytes() -> None:
    from adapters._sidecar_sets import SetSize

    size = SetSize(packages=214, download_bytes=34_510_209, installed_bytes=216_940_544)
    assert size.describe() == "about 35 MB to download, 217 MB on disk (214 packages)"


def test_with_openclaw_both_sets_are_installed_and_the_total_is_said() -> None:
    sizes = read_sizes(SOURCES)
    assert sizes is not None
    plan = plan_install(openclaw=True, sizes=sizes, base_installed=False)
    assert plan.npm_args == ("--include=dev",) and plan.openclaw and plan.hint is None
    total = sizes["base"].download_bytes + sizes["openclaw"].download_bytes
    assert f"about {total / 1e6:,.0f} MB to download" in plan.statement


def test_adding_openclaw_to_an_installed_base_says_only_the_sdks_part() -> None:
    sizes = read_sizes(SOURCES)
    assert sizes is not None
    plan = plan_install(openclaw=True, sizes=sizes, base_installed=True)
    assert plan.statement.startswith(f"adding the OpenClaw SDK: {sizes['openclaw'].describe()}")


def test_sizes_measured_for_another_lockfile_are_not_used(tmp_path: Path) -> None:
    for name in ("package.json", "package-lock.json", SIZES_FILE):
        shutil.copy(SOURCES / name, tmp_path / name)
    with (tmp_path / "package-lock.json").open("a") as lock:
        lock.write("\n")  # any change: the recorded digest no longer matches
    assert read_sizes(tmp_path) is None
    plan = plan_install(openclaw=False, sizes=None, base_installed=False)
    assert plan.statement.endswith("size not measured for this lockfile")


@pytest.mark.parametrize(
    ("extras", "before", "why"),
    [
        (frozenset(), False, None),
        (frozenset({"openclaw"}), False, "asked for"),
        (frozenset({"all"}), False, "asked for"),
        (frozenset(), True, "installed before"),
    ],
)
def test_openclaw_is_wanted_only_when_asked_for_or_there_before(
    tmp_path: Path, extras: frozenset[str], before: bool, why: str | None
) -> None:
    assert wants_openclaw(extras, installed_before=before, home=tmp_path / "gw") == why


def test_an_installed_openclaw_package_wants_the_sdk(tmp_path: Path) -> None:
    home = tmp_path / "gw"
    assert needed_by_installed(home) == []
    install(home, str(OPENCLAW_TARBALL), kind=None, inspector=load_adapters().inspect)
    assert needed_by_installed(home) == ["@ollama/openclaw-web-search"]
    why = wants_openclaw(frozenset(), installed_before=False, home=home)
    assert why == "needed by @ollama/openclaw-web-search"


def test_a_nanobot_package_with_runtime_openclaw_wants_the_sdk(tmp_path: Path) -> None:
    package = tmp_path / "nb"
    package.mkdir()
    manifest = {"id": "acme.claw", "name": "Claw", "version": "1.0.0", "apiVersion": 1,
                "runtime": "openclaw", "entries": ["./index.js"], "contributions": []}  # fmt: skip
    (package / "nanobot.extension.json").write_text(json.dumps(manifest))
    (package / "index.js").write_text("export default function register() {}\n")
    home = tmp_path / "gw"
    install(home, str(package), kind="local", inspector=load_adapters().inspect)
    assert needed_by_installed(home) == ["acme.claw"]


def _base_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A sidecar folder set up without the OpenClaw SDK."""
    where = tmp_path / "sidecars"
    (where / "node_modules" / "@earendil-works" / "pi-coding-agent").mkdir(parents=True)
    shutil.copy(SOURCES / "package-lock.json", where / "package-lock.json")
    shutil.copy(SOURCES / SIZES_FILE, where / SIZES_FILE)
    monkeypatch.setenv("GATEWAY_SIDECAR_DIR", str(where))
    monkeypatch.setattr(_sidecar, "sidecar_problem", lambda script: None)
    monkeypatch.setattr(_sidecars, "sidecar_problem", lambda script: None)
    return where


def test_an_openclaw_plugin_without_the_sdk_is_refused_naming_setup_openclaw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = _base_only(tmp_path, monkeypatch)
    spec = {"id": "p", "host": "openclaw", "root": str(tmp_path), "entries": []}
    refusal = _sidecar.plan_sidecar([spec], None, 60.0, (22, 19, 0))
    assert isinstance(refusal, LaunchRefusal)
    assert refusal.hint == "gateway setup --openclaw"
    [found] = refusal.diagnostics
    assert found.code == "openclaw.sdk_not_installed"
    sizes = read_sizes(where)
    assert sizes is not None and sizes["openclaw"].describe() in refusal.reason
    assert "installs the Pi and Nu runtimes only" in refusal.reason
    # printed as message and hint: the command (with the size) once, in the hint
    assert "--openclaw" not in found.message and "installs the Pi and Nu" in found.message
    assert found.hint == f"run `gateway setup --openclaw`: {sizes['openclaw'].describe()}"


def test_a_pi_package_runs_without_the_openclaw_sdk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _base_only(tmp_path, monkeypatch)
    assert _sidecar.sidecar_ready("pi") is None
    assert _sidecar.sidecar_ready("openclaw") is not None


def test_doctor_says_whether_the_openclaw_sdk_is_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    where = _base_only(tmp_path, monkeypatch)
    home = tmp_path / "gw"
    [check] = [c for c in _sidecars.doctor_check(home) if c[0] == "openclaw sdk"]
    assert check[1:3] == ("ok", "not installed (only OpenClaw plugins need it)")
    install(home, str(OPENCLAW_TARBALL), kind=None, inspector=load_adapters().inspect)
    [check] = [c for c in _sidecars.doctor_check(home) if c[0] == "openclaw sdk"]
    assert check[1] == "warn" and check[3] == "gateway setup --openclaw"
    (where / "node_modules" / "openclaw").mkdir()
    (where / "node_modules" / "openclaw" / "package.json").write_text('{"version": "2026.9.6"}')
    [check] = [c for c in _sidecars.doctor_check(home) if c[0] == "openclaw sdk"]
    assert check[1:3] == ("ok", "installed (openclaw 2026.9.6)")


def test_a_ready_openclaw_plugin_without_the_sdk_says_so_once_under_its_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its refusal's own code carries the reason: not said again as runtime.unavailable,
    nor once more for no package (trial9's `list`: the gateway's line and each plugin's)."""
    _base_only(tmp_path, monkeypatch)
    home = tmp_path / "gw"
    report = install(home, str(OPENCLAW_TARBALL), kind=None, inspector=load_adapters().inspect)
    package_id = report.package.id
    make_ready(home, package_id)
    (status,) = evaluate(home)
    said = [(d.code, d.package) for d in status.diagnostics if d.severity.value != "info"]
    assert said == [("openclaw.sdk_not_installed", package_id)]
    assert status.state.startswith("inactive: the OpenClaw SDK is not installed")
