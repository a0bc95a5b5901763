"""Audit by host version: which release lines of its own host a package works with
(``PackageAudit.compatibility``), from OpenClaw's compatibility registry (vendored) and the
package's declared host range, and from Pi's table of removed APIs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gateway.audit import HostLine, PackageAudit, audit
from gateway.base import GatewayConfig

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = Path(__file__).parent / "fixtures"
OPENCLAW = ROOT / "tests" / "openclaw" / "fixtures"
NPM = ROOT / "tests" / "fixtures" / "npm"


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> GatewayConfig:
    base = tmp_path_factory.mktemp("lines")
    return GatewayConfig(home=base / "gateway", user_home=base)


def one(source: Path, config: GatewayConfig) -> PackageAudit:
    (package,) = audit([str(source)], config=config).packages
    assert package.ok, package.error
    return package


def lines(package: PackageAudit) -> dict[str, HostLine]:
    return {line.label: line for line in package.compatibility}


def test_openclaw_lines_are_the_current_ones_newest_first(config):
    package = one(OPENCLAW / "host-2026-9", config)
    assert list(lines(package)) == [
        "OpenClaw 2026.11",
        "OpenClaw 2026.10",
        "OpenClaw 2026.9.36 LTS",
    ]
    assert package.works_with == ["OpenClaw 2026.11, 2026.10 and 2026.9.36 LTS"]


def test_a_surface_removed_in_2026_10_names_the_record_and_its_replacement(config):
    found = lines(one(FIXTURES / "oc-removed-2026-10", config))
    newest = found["OpenClaw 2026.11"]
    assert not newest.works and newest.code == "openclaw.surface_removed"
    barrel, alias = newest.reasons
    assert barrel.startswith("openclaw/plugin-sdk/agent-runtime (index.mjs:4)")
    assert "[plugin-sdk-broad-runtime-barrels]; use focused plugin SDK subpaths" in barrel
    assert alias.startswith("api.registerSessionExtension(...) (index.mjs:16)")
    assert found["OpenClaw 2026.10"].reasons == newest.reasons
    assert found["OpenClaw 2026.9.36 LTS"].works


def test_a_declared_host_range_shuts_out_the_lines_it_does_not_admit(config):
    package = one(OPENCLAW / "host-2026-11", config)
    assert ("openclaw host rules", "2026.10+") in {(t.api, t.value) for t in package.targets}
    found = lines(package)
    assert found["OpenClaw 2026.11"].works
    for older in ("OpenClaw 2026.10", "OpenClaw 2026.9.36 LTS"):
        assert found[older].code == "openclaw.host_version_unsatisfied"
        assert "compat.pluginApi '>=2026.11.0' admits no" in found[older].reasons[0]


def test_what_openclaw_refuses_today_is_refused_on_every_line(config):
    package = one(NPM / "ollama-openclaw-web-search-0.2.2.tgz", config)
    assert package.works_with == []
    assert {line.code for line in package.compatibility} == {"openclaw.tool_contract"}


def test_a_surface_removed_before_2026_9_works_nowhere(config, tmp_path):
    root = tmp_path / "root-barrel"
    shutil.copytree(FIXTURES / "oc-removed-2026-10", root)
    (root / "index.mjs").write_text(
        'import { definePluginEntry } from "openclaw/plugin-sdk";\n'
        'export default definePluginEntry({ id: "oc-removed-2026-10", register() {} });\n'
    )
    package = one(root, config)
    assert package.works_with == []
    (reason,) = lines(package)["OpenClaw 2026.9.36 LTS"].reasons
    assert "openclaw/plugin-sdk (root barrel)" in reason and "removed in OpenClaw 2026.8" in reason


def test_a_pi_package_using_an_api_pi_removed_does_not_work_with_the_current_pi(config, tmp_path):
    root = tmp_path / "pi-old-typebox"
    shutil.copytree(FIXTURES / "pi-works", root)
    source = (root / "index.ts").read_text()
    (root / "index.ts").write_text(source.replace("Type.Object(", "Type.Options(Type.Object("))
    found = lines(one(root, config))["Pi 1.6"]
    assert not found.works and found.code == "pi.api_removed"
    assert found.reasons == (
        "Type.Options (index.ts:8) was removed in Pi 0.83.0; use a supported TypeBox 1.3 API",
    )


def test_a_current_pi_package_works_with_pi_1_6(config):
    package = one(FIXTURES / "pi-works", config)
    assert package.works_with == ["Pi 1.6"]


def test_the_json_report_carries_the_lines(config):
    package = one(FIXTURES / "oc-removed-2026-10", config)
    data = json.loads(json.dumps(package.to_dict()))
    assert data["compatibility"][2] == {
        "host": "openclaw",
        "line": "2026.9.36 LTS",
        "works": True,
        "code": None,
        "reasons": [],
    }


def test_the_vendored_subpath_removals_agree_with_the_pinned_openclaw():
    """Whole-subpath records: what the data says is gone from the 2026.9 line is not exported
    by the installed openclaw 2026.9.6, and what it says 2026.10 removed still is."""
    from adapters._semver import parse_version
    from adapters.openclaw._compat_registry import DATA

    exports = json.loads(
        (ROOT / "sidecars" / "node_modules" / "openclaw" / "package.json").read_text()
    )["exports"]
    checked = 0
    for record in json.loads(DATA.read_text())["records"]:
        for surface in record["surfaces"]:
            module = surface.get("import", "")
            if "name" in surface or not module.startswith("openclaw/plugin-sdk"):
                continue
            exported = "./" + module.removeprefix("openclaw/") in exports
            gone_by_2026_9 = parse_version(record["removed_in"]) <= (2026, 9, 0)
            assert exported != gone_by_2026_9, (record["code"], module)
            checked += 1
    assert checked >= 25


def test_pi_ai_globals_from_the_root_are_a_target_not_a_refusal(config, tmp_path):
    root = tmp_path / "pi-ai-globals"
    shutil.copytree(FIXTURES / "pi-works", root)
    source = (root / "index.ts").read_text()
    header = 'import { complete, getModel as model } from "@earendil-works/pi-ai";\n'
    (root / "index.ts").write_text(header + source)
    package = one(root, config)
    (target,) = [t for t in package.targets if t.api == "pi-ai global API"]
    assert target.value == "complete, getModel" and "pi-ai/compat in Pi 0.80" in target.note
    assert package.works_with == ["Pi 1.6"]
