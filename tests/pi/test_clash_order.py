"""Pi's collision rules across isolated processes, decided by the load order (install
order; discovery order for what is discovered), never by which process registered first:
the owner of a clashing tool is the same on every run — its first start, the next runs
held dormant from the registration cache, after its first use — and every duplicate
command is kept as ``/name:1``, ``/name:2`` (docs/pi.md, "Collisions")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway import open_gateway

from .conftest import install_ready

pytestmark = pytest.mark.anyio

SOURCE = """import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({ name: "same", description: "@NAME@'s", parameters: Type.Object({}),
    async execute() { return { content: [{ type: "text", text: "@NAME@" }] }; } });
  pi.registerCommand("dup", { description: "@NAME@'s",
    handler: async (_args, ctx) => { ctx.ui.notify("@NAME@", "info"); } });
  pi.on("tool_call", async () => undefined);
}
"""


def _package(root: Path, name: str) -> Path:
    folder = root / name
    (folder / "extensions").mkdir(parents=True)
    manifest = {"name": name, "version": "1.0.0", "pi": {"extensions": ["./extensions/index.js"]}}
    (folder / "package.json").write_text(json.dumps(manifest))
    (folder / "extensions" / "index.js").write_text(SOURCE.replace("@NAME@", name))
    return folder


async def _seen(workspace, use: bool = False) -> tuple[object, ...]:
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        if use:
            assert (await gateway.call_tool("same", {})).content == "zeta"
        return (
            gateway.registry.tool("same").owner,
            [(c.name, c.owner) for c in gateway.registry.commands()],
            [h.owner for h in gateway.registry.hooks("tool_call")],
            sorted(d.message for d in gateway.diagnostics if d.code.startswith("registry.")),
        )


async def test_clash_owners_are_the_same_on_every_run_in_install_order(workspace):
    home, src = workspace.config.home, workspace.root.parent
    install_ready(home, _package(src, "zeta"))  # installed first: first in load order
    install_ready(home, _package(src, "alpha"))
    first = await _seen(workspace)  # both start: nothing cached yet
    cached = await _seen(workspace)  # both held dormant from the cache
    used = await _seen(workspace, use=True)  # zeta started at first use of its tool
    assert first == cached == used
    owner, commands, hooks, _ = first
    assert owner == "zeta"
    assert commands == [("dup:1", "zeta"), ("dup:2", "alpha")]
    assert hooks == ["zeta", "alpha"]


async def test_two_workspace_pi_extensions_with_one_command_are_both_reachable(workspace):
    extensions = workspace.root / ".pi" / "extensions"
    for name in ("one", "two"):
        folder = extensions / name
        folder.mkdir(parents=True)
        (folder / "index.js").write_text(SOURCE.replace("@NAME@", name))
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        named = {c.name: c.owner for c in gateway.registry.commands()}
        assert named == {"dup:1": "pi:one", "dup:2": "pi:two"}
        await gateway.run_command("dup:2")
        notes = [n.message for _, n in gateway.session.notifications]
        assert notes == ["two"]
        codes = {d.code for d in gateway.diagnostics}
        assert "registry.command_renamed" in codes
        assert "registry.command_overridden" not in codes
