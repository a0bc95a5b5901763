"""Pi's rules for tool names in the gateway: an extension tool may take a built-in's name
unless the embedding agent registered that tool, and of two Pi packages (each in its own
process) the first tool wins, as in Pi (docs/pi.md, "Collisions")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway import ToolOutcome, open_gateway

from .conftest import install_ready

pytestmark = pytest.mark.anyio

TOOL = """import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({ name: "@TOOL@", description: "@NAME@'s", parameters: Type.Object({}),
    async execute() { return { content: [{ type: "text", text: "@NAME@" }] }; } });
}
"""


def package(root: Path, name: str, tool: str) -> Path:
    folder = root / name
    (folder / "extensions").mkdir(parents=True)
    manifest = {"name": name, "version": "1.0.0", "pi": {"extensions": ["./extensions/index.js"]}}
    (folder / "package.json").write_text(json.dumps(manifest))
    body = TOOL.replace("@TOOL@", tool).replace("@NAME@", name)
    (folder / "extensions" / "index.js").write_text(body)
    return folder


async def test_a_pi_tool_named_like_a_builtin_the_agent_did_not_register_is_listed(workspace):
    install_ready(workspace.config.home, package(workspace.root.parent, "mybash", "bash"))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.registry.tool("bash").owner == "mybash"
        assert (await gateway.call_tool("bash", {})).content == "mybash"


async def test_the_agents_own_builtin_wins_over_a_pi_tool_of_its_name(workspace):
    install_ready(workspace.config.home, package(workspace.root.parent, "mybash", "bash"))

    async def bash(arguments):
        return ToolOutcome("agent bash")

    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.register_builtin_tool("bash", "run", {"type": "object"}, bash)
        assert (await gateway.call_tool("bash", {})).content == "agent bash"
        said = [d for d in gateway.diagnostics if d.contribution == "bash"]
        assert said and "mybash" in said[-1].message


async def test_of_two_isolated_pi_packages_the_first_tool_wins(workspace):
    home, src = workspace.config.home, workspace.root.parent
    install_ready(home, package(src, "alpha", "same"))
    install_ready(home, package(src, "beta", "same"))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        first = gateway.registry.tool("same").owner
        assert first == "alpha"
        assert (await gateway.call_tool("same", {})).content == "alpha"
