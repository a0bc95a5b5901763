"""OpenClaw next to Pi and nimlet: in one session (three processes, hooks in startup order)
and in one sidecar process (a Pi package and an OpenClaw plugin on the same Node sidecar,
their replies folded by the canonical rule)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters import inspect_package
from adapters._sidecar import plan_sidecar
from adapters.openclaw import MIN_NODE, openclaw_package_spec
from adapters.openclaw.adapter import OpenClawAdapter
from adapters.pi import pi_package_spec
from gateway import open_gateway

from .conftest import FIXTURES, install_ready

pytestmark = pytest.mark.anyio


async def test_openclaw_guard_blocks_a_nimlet_tool_and_rewrites_a_pi_tool(workspace: Any) -> None:
    workspace.add_extension("nimlet-guard", tools=["nimlet_tool"], events=["tool_call"])
    # Its guard rewrites the Pi package's calls: acting on another package's tool.
    install_ready(workspace.config.home, FIXTURES / "mixed-claw", grant=("hooks.rewrite",))
    install_ready(workspace.config.home, FIXTURES / "mixed-pi")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        order = [hook.owner for hook in gateway.registry.hooks("tool_call")]
        assert order == ["nimlet-guard", "mixed-claw", "mixed-pi"]  # startup order

        blocked = await gateway.call_tool("nimlet_tool", {"x": 1})
        assert blocked.blocked and blocked.content == "no nimlet tools today"

        greeted = await gateway.call_tool("pi_greet", {"name": "ada"})
        assert not greeted.blocked and greeted.content == "hello ADA"
        assert greeted.arguments == {"name": "ADA"}

        # The nimlet hook ran first and saw the original arguments; the Pi hook ran after the
        # OpenClaw guard and saw its rewrite; the blocked nimlet tool never ran.
        seen = [m for m in workspace.received("nimlet-guard") if m["type"] == "event"]
        assert [m["payload"]["arguments"] for m in seen] == [{"x": 1}, {"name": "ada"}]
        assert not [m for m in workspace.received("nimlet-guard") if m["type"] == "tool"]
        pi_seen = (await gateway.run_command("pi-seen")).message
        assert pi_seen == 'nimlet_tool:{"x":1} | pi_greet:{"name":"ADA"}'


async def test_one_sidecar_process_hosts_pi_and_openclaw_together(
    workspace: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = workspace.config.home
    # One process, two packages, each its own owner: the rewrite still takes the grant.
    install_ready(home, FIXTURES / "mixed-claw", grant=("hooks.rewrite",))
    pi_root = FIXTURES / "mixed-pi"
    specs: list[Any] = []

    def launcher(entry: Any, home: Path) -> Any:
        claw = openclaw_package_spec(entry, home, frozenset())
        specs.append([pi_package_spec("mixed-pi", pi_root, ["index.ts"]), claw])
        return plan_sidecar(specs[-1], {}, 30.0, MIN_NODE)

    monkeypatch.setattr(
        OpenClawAdapter, "plan_launch", lambda self, entry, home: launcher(entry, home)
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert len(gateway.processes) == 1
        # Each package keeps its own owner (register.owners), in the process's spec order.
        assert [h.owner for h in gateway.registry.hooks("tool_call")] == ["mixed-pi", "mixed-claw"]
        tool = gateway.registry.tool("pi_greet")
        assert tool is not None and tool.owner == "mixed-pi"
        greeted = await gateway.call_tool("pi_greet", {"name": "bo"})
        # The Pi package's hook answers first (spec order), then OpenClaw's rewrites.
        assert greeted.content == "hello BO"
        assert (await gateway.run_command("pi-seen")).message == 'pi_greet:{"name":"bo"}'
    (hosts,) = specs
    assert [p["host"] for p in hosts] == ["pi", "openclaw"]
    assert json.loads(json.dumps(hosts))  # the spec is plain JSON on argv
    assert inspect_package(pi_root).ecosystem == "pi"


async def test_a_name_two_hosts_register_stays_with_the_first(
    workspace: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In one process, the Pi package comes first in the spec: its tool and command keep
    their names, the OpenClaw plugin's same-named ones are reported."""
    claw = workspace.home / "src" / "clash"
    claw.mkdir(parents=True)
    (claw / "package.json").write_text(json.dumps(
        {"name": "clash", "version": "1.0.0", "openclaw": {"extensions": ["./index.mjs"]}}
    ))  # fmt: skip
    manifest = {"id": "clash", "configSchema": {}, "contracts": {"tools": ["pi_greet"]}}
    (claw / "openclaw.plugin.json").write_text(json.dumps(manifest))
    (claw / "index.mjs").write_text(
        "export default function (api) {\n"
        "  api.registerTool({ name: 'pi_greet', description: 'd', parameters: { type: 'object' },"
        " async execute() { return { content: [{ type: 'text', text: 'claw' }] }; } });\n"
        "  api.registerCommand({ name: 'pi-seen', description: 'd', handler: () => ({ text: 'claw' }) });\n"
        "}\n"
    )
    install_ready(workspace.config.home, claw)

    def launcher(entry: Any, home: Path) -> Any:
        both = [pi_package_spec("mixed-pi", FIXTURES / "mixed-pi", ["index.ts"]),
                openclaw_package_spec(entry, home, frozenset())]  # fmt: skip
        return plan_sidecar(both, {}, 30.0, MIN_NODE)

    monkeypatch.setattr(
        OpenClawAdapter, "plan_launch", lambda self, entry, home: launcher(entry, home)
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert (await gateway.call_tool("pi_greet", {"name": "x"})).content == "hello x"
        clashes = [d.message for d in gateway.diagnostics if d.code == "sidecar.name_conflict"]
        assert len(clashes) == 2
        assert any('tool "pi_greet" of the openclaw host' in m for m in clashes)
        assert any('command "pi-seen" of the openclaw host' in m for m in clashes)
