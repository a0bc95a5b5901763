"""The host version a plugin declares decides which OpenClaw rules the gateway applies: a tool
outside contracts.tools is refused for a plugin loaded as OpenClaw >= 2026.5.2 (declared, or
nothing declared: the pinned 2026.9.6) and registered with a warning for one declaring an
older OpenClaw; one that declares OpenClaw >= 2026.10 gets the newer hosts' SDK removals.
Real sidecars for the runtime rules; the metadata rules read manifests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from adapters.openclaw._inspect import inspect_plugin
from adapters.openclaw._lines import (
    floor,
    legacy_hooks_removed,
    rules_for,
    tool_contract_enforced,
)
from gateway import open_gateway

from .conftest import FIXTURES, install_ready, messages

OLD, NEW = FIXTURES / "host-2026-9", FIXTURES / "host-2026-11"
REMOVED_SDK = FIXTURES / "host-2026-11-removed-sdk"


def _codes(root: Path) -> list[str]:
    return [d.code for d in inspect_plugin(root).diagnostics]


def _with_package(tmp_path: Path, openclaw: dict[str, Any], **extra: Any) -> Path:
    root = tmp_path / "plugin"
    shutil.copytree(OLD, root)
    package = json.loads((root / "package.json").read_text())
    package["openclaw"] = {"extensions": ["./index.mjs"], **openclaw}
    package.update(extra)
    (root / "package.json").write_text(json.dumps(package))
    return root


@pytest.mark.anyio
async def test_a_plugin_built_for_2026_9_has_its_undeclared_tool_refused(workspace: Any) -> None:
    # OpenClaw refuses a tool outside contracts.tools since 2026.5.2.
    install_ready(workspace.config.home, OLD)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        names = {t.name for t in gateway.tools()}
        assert "declared_9" in names and "undeclared_9" not in names
        (refused,) = messages(gateway, "openclaw.tool_undeclared")
        assert "undeclared_9 is not in its contracts.tools" in refused
        assert messages(gateway, "openclaw.tool_contract") == []


@pytest.mark.anyio
async def test_a_plugin_whose_tool_is_refused_loaded_it_is_active_and_its_registration_cached(
    workspace: Any,
) -> None:
    # The refusal is about one tool, not the plugin's code: status says active (not
    # "failed to load"), and the next load serves the cached registration, refusal included,
    # instead of starting the plugin again at every command.
    package_id = install_ready(workspace.config.home, OLD)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        (status,) = [s for s in gateway.packages if s.id == package_id]
        assert status.active and status.load_failure is None
        assert messages(gateway, "openclaw.tool_undeclared")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.processes == []  # served from the cache: nothing started
        assert "declared_9" in {t.name for t in gateway.tools()}
        assert "undeclared_9" not in {t.name for t in gateway.tools()}
        assert messages(gateway, "openclaw.tool_undeclared")


@pytest.mark.anyio
async def test_a_plugin_declaring_an_openclaw_before_2026_5_2_keeps_its_undeclared_tool(
    workspace: Any, tmp_path: Path
) -> None:
    root = _with_package(tmp_path, {}, peerDependencies={"openclaw": ">=2026.4.20"})
    install_ready(workspace.config.home, root)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert {"declared_9", "undeclared_9"} <= {t.name for t in gateway.tools()}
        (warned,) = messages(gateway, "openclaw.tool_contract")
        assert "declares an OpenClaw before 2026.5.2, which accepts it" in warned
        assert messages(gateway, "openclaw.tool_undeclared") == []


@pytest.mark.anyio
async def test_a_plugin_declaring_2026_11_has_its_undeclared_tool_refused(workspace: Any) -> None:
    install_ready(workspace.config.home, NEW)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        names = {t.name for t in gateway.tools()}
        assert "declared_11" in names and "undeclared_11" not in names
        (refused,) = messages(gateway, "openclaw.tool_undeclared")
        assert "undeclared_11" in refused and "not registered" in refused
        assert messages(gateway, "openclaw.tool_contract") == []


@pytest.mark.anyio
async def test_a_plugin_declaring_2026_11_cannot_import_a_subpath_2026_10_removed(
    workspace: Any,
) -> None:
    install_ready(workspace.config.home, REMOVED_SDK)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert "sdk_probe" not in {t.name for t in gateway.tools()}
        (refused,) = messages(gateway, "openclaw.sdk_unavailable")
        assert "openclaw/plugin-sdk/channel-lifecycle" in refused
        assert "OpenClaw 2026.10 removed it" in refused


@pytest.mark.anyio
async def test_the_same_import_still_loads_for_a_plugin_built_for_2026_9(
    workspace: Any, tmp_path: Path
) -> None:
    root = tmp_path / "for-2026-9"
    shutil.copytree(REMOVED_SDK, root)
    package = json.loads((root / "package.json").read_text())
    package["openclaw"]["compat"]["pluginApi"] = "^2026.9.0"
    (root / "package.json").write_text(json.dumps(package))
    install_ready(workspace.config.home, root)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert (await gateway.call_tool("sdk_probe", {})).content == "true"
        assert messages(gateway, "openclaw.sdk_unavailable") == []


def test_the_declared_host_version_picks_the_rules() -> None:
    assert inspect_plugin(OLD).metadata["host_rules"] == "2026.9"
    assert inspect_plugin(NEW).metadata["host_rules"] == "2026.10"
    assert "openclaw.host_rules" in _codes(NEW) and "openclaw.host_rules" not in _codes(OLD)


def test_min_gateway_version_and_the_openclaw_peer_range_count_too(tmp_path: Path) -> None:
    by_gateway = _with_package(tmp_path, {"compat": {"minGatewayVersion": "2026.10.2"}})
    entry = inspect_plugin(by_gateway)
    assert entry.metadata["host_rules"] == "2026.10"
    assert "openclaw.host_version_unsatisfied" in [d.code for d in entry.diagnostics]
    shutil.rmtree(by_gateway)
    # OpenClaw's own form is a floor, ">=x.y.z" (the bare version is its legacy form).
    as_floor = _with_package(tmp_path, {"compat": {"minGatewayVersion": ">=2026.4.24"}})
    assert inspect_plugin(as_floor).metadata["host_rules"] == "2026.9"
    assert "openclaw.host_version_unsatisfied" not in _codes(as_floor)
    shutil.rmtree(as_floor)
    by_peer = _with_package(tmp_path, {}, peerDependencies={"openclaw": ">=2026.11.1"})
    assert inspect_plugin(by_peer).metadata["host_rules"] == "2026.10"


def test_the_lowest_version_all_declarations_admit_decides() -> None:
    # A range that still admits 2026.9 keeps the old rules, whatever else it admits.
    assert rules_for({"plugin_api": ">=2026.5.0"}) == "2026.9"
    assert rules_for({"plugin_api": "^2026.9.0 || >=2026.11"}) == "2026.9"
    # Every declaration must hold: the strictest one sets the floor.
    assert rules_for({"plugin_api": ">=2026.4", "openclaw_peer": ">=2026.10.0"}) == "2026.10"
    assert floor({"plugin_api": "not a range"}) is None
    assert rules_for({}) == "2026.9"


def test_the_declared_host_version_decides_the_tool_contract_and_the_legacy_hooks() -> None:
    # Declaring nothing: loaded as the pinned 2026.9.6.
    assert tool_contract_enforced({}) and legacy_hooks_removed({})
    assert tool_contract_enforced({"openclaw_peer": ">=2026.5.2"})
    assert not tool_contract_enforced({"openclaw_peer": "^2026.3.2"})
    assert not tool_contract_enforced({"openclaw_peer": "*"})
    assert not legacy_hooks_removed({"plugin_api": ">=2026.7.0"})
    assert legacy_hooks_removed({"plugin_api": ">=2026.8.0"})


def test_a_trusted_contract_is_named_as_not_honoured() -> None:
    (warned,) = [
        d for d in inspect_plugin(NEW).diagnostics if d.code == "openclaw.trusted_contract"
    ]
    assert "trustedToolPolicies (budget-policy)" in warned.message
    assert "openclaw.trusted_contract" not in _codes(OLD)
