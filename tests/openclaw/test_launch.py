"""Planning an OpenClaw plugin's launch, as `gateway status` shows it: a plugin id another
installed package already has, a config file that is not an object, a required config field
with no value (naming the field and the `gateway config` command); the private HOME and
state dir; nanobot packages with `runtime: openclaw`; OpenClaw's discovery roots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gateway import open_gateway
from gateway.packages import write_package_config

from .conftest import cli_json, install_ready

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object", "properties": {"token": {"type": "string"}}, "required": ["token"]}
PLUGIN = """export default function (api) {
  api.registerTool({ name: "@TOOL@", description: "t", parameters: { type: "object" },
    async execute() { return { content: [{ type: "text", text: `@TOOL@ ${api.pluginConfig.token ?? ""}` }] }; } });
}
"""


def plugin(root: Path, name: str, plugin_id: str, tool: str, schema: Any = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    package = {"name": name, "version": "1.0.0", "type": "module",
               "openclaw": {"extensions": ["./index.mjs"]}}  # fmt: skip
    (folder / "package.json").write_text(json.dumps(package))
    manifest = {"id": plugin_id, "configSchema": schema or {"type": "object"},
                "contracts": {"tools": [tool]}}  # fmt: skip
    (folder / "openclaw.plugin.json").write_text(json.dumps(manifest))
    (folder / "index.mjs").write_text(PLUGIN.replace("@TOOL@", tool))
    return folder


def status(home: Path) -> dict[str, Any]:
    return {p["id"]: p for p in cli_json(home, "status")["packages"]}


async def test_a_required_config_field_is_named_at_status_with_the_command(workspace: Any) -> None:
    home = workspace.config.home
    install_ready(home, plugin(workspace.home / "src", "needs-token", "needs-token", "t1", SCHEMA))
    found = status(home)["needs-token"]
    assert not found["active"] and "required config token not set" in found["reasons"]
    (problem,) = [d for d in found["diagnostics"] if d["code"] == "openclaw.config_required"]
    assert (
        problem["contribution"] == "token"
        and problem["hint"] == "gateway config needs-token token VALUE"
    )
    write_package_config(home, "needs-token", {"token": "abc"})
    assert status(home)["needs-token"]["active"]
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert (await gateway.call_tool("t1", {})).content == "t1 abc"


async def test_the_first_installed_package_keeps_a_plugin_id(workspace: Any) -> None:
    home = workspace.config.home
    install_ready(home, plugin(workspace.home / "src", "first-pkg", "same-id", "first_tool"))
    install_ready(home, plugin(workspace.home / "src", "second-pkg", "same-id", "second_tool"))
    found = status(home)
    assert found["first-pkg"]["active"] and not found["second-pkg"]["active"]
    (problem,) = [d for d in found["second-pkg"]["diagnostics"]
                  if d["code"] == "openclaw.plugin_id_conflict"]  # fmt: skip
    assert "already provided by first-pkg" in problem["message"]


async def test_an_unreadable_config_file_is_a_refusal_with_its_reason(workspace: Any) -> None:
    home = workspace.config.home
    install_ready(home, plugin(workspace.home / "src", "bad-config", "bad-config", "t2"))
    (home / "config").mkdir(parents=True)
    (home / "config" / "bad-config.json").write_text("[1, 2]")
    found = status(home)["bad-config"]
    assert not found["active"]
    assert any(d["code"] == "openclaw.config_invalid" and "not a JSON object" in d["message"]
               for d in found["diagnostics"])  # fmt: skip


async def test_a_nanobot_package_with_runtime_openclaw_runs_with_its_contributions_enforced(
    workspace: Any,
) -> None:
    folder = workspace.home / "src" / "claw-nanobot"
    folder.mkdir(parents=True)
    manifest = {"id": "acme.claw", "name": "claw", "version": "1.0.0", "apiVersion": 1,
                "runtime": "openclaw", "entry": "index.mjs", "description": "d",
                "contributions": [{"kind": "tool", "name": "declared_tool", "description": "d"}]}  # fmt: skip
    (folder / "nanobot.extension.json").write_text(json.dumps(manifest))
    (folder / "index.mjs").write_text(
        """export default function (api) {
  for (const name of ["declared_tool", "undeclared_tool"]) {
    api.registerTool({ name, description: name, parameters: { type: "object" },
      async execute() { return { content: [{ type: "text", text: `${name} ran` }] }; } });
  }
}
"""
    )
    install_ready(workspace.config.home, folder)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert (await gateway.call_tool("declared_tool", {})).content == "declared_tool ran"
        assert gateway.registry.tool("undeclared_tool") is None
        refused = [(d.code, d.contribution) for d in gateway.diagnostics]
        assert ("package.undeclared_contribution", "undeclared_tool") in refused


async def test_discovery_roots_precedence_and_trust(workspace: Any) -> None:
    home = workspace.config.home
    install_ready(home, plugin(workspace.home / "src", "installed-pkg", "taken", "installed_tool"))
    project = workspace.root / ".openclaw" / "extensions"
    user = workspace.home / ".openclaw" / "extensions"
    plugin(project, "proj", "shared-id", "project_tool")
    plugin(user, "mine", "shared-id", "user_tool")
    plugin(user, "dup-of-installed", "taken", "never_tool")
    plugin(user, "only-user", "only-user", "only_user_tool")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        # One sidecar hosts the discovered plugins; each tool keeps its plugin as owner.
        owners = {t.name: t.owner for t in gateway.tools()}
        assert owners == {"installed_tool": "installed-pkg", "project_tool": "openclaw:shared-id",
                          "only_user_tool": "openclaw:only-user"}  # fmt: skip
        conflicts = [
            d.message for d in gateway.diagnostics if d.code == "openclaw.plugin_id_conflict"
        ]
        assert any("'shared-id'" in m and str(user / "mine") in m for m in conflicts)
        assert any("'taken'" in m and "installed-pkg" in m for m in conflicts)
    async with open_gateway(
        workspace.root, trust=False, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert "user_tool" in {t.name for t in gateway.tools()}  # the project copy is not read
        assert "project_tool" not in {t.name for t in gateway.tools()}
        assert "openclaw.project_plugins_untrusted" in [d.code for d in gateway.diagnostics]


async def test_a_discovered_plugin_reads_its_config_and_keeps_its_private_folders(
    workspace: Any,
) -> None:
    """Its config (``gateway config openclaw:ID``) and its private HOME and state folder are
    within its sandbox, as an installed plugin's are."""
    home = workspace.config.home
    plugin(workspace.home / ".openclaw" / "extensions", "found", "found", "found_tool", SCHEMA)
    write_package_config(home, "openclaw:found", {"token": "xyz"})
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert (await gateway.call_tool("found_tool", {})).content == "found_tool xyz"
        refused = [d.message for d in gateway.diagnostics if d.code.startswith("sandbox.")]
        assert refused == []
        config_problems = [d for d in gateway.diagnostics if d.code == "openclaw.config_invalid"]
        assert config_problems == []


def test_a_plugin_named_dot_dot_keeps_its_private_folders_in_its_own_place(tmp_path: Path):
    """A plugin names itself: ".." made its private HOME and state GATEWAY_HOME/home and
    GATEWAY_HOME/state, beside the store, and a sandbox rule let it write there."""
    from adapters.openclaw import plugin_dirs

    for plugin_id in ("..", ".", "a" * 300):
        private_home, state = plugin_dirs(tmp_path, plugin_id)
        assert private_home.parent == state.parent
        assert private_home.parent.parent == tmp_path / "openclaw"
        assert private_home.parent.name not in (".", "..")
    assert plugin_dirs(tmp_path, "@acme/web")[0] == tmp_path / "openclaw" / "@acme+web" / "home"
