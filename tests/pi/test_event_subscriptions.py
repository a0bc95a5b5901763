"""What a Pi package subscribes to is exactly the canonical events its Pi events map to
(docs/pi.md, "Events"), legacy events included (translated, with a diagnostic)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gateway import open_gateway

from .conftest import install_ready

pytestmark = pytest.mark.anyio

# Records what its handlers saw; /seen tells it. Kept in the module: a session_end tears the
# instance down and the next request makes it again, as pi's /new does; pi keeps the module.
RECORDER = """const seen = [];
export default function (pi) {
  for (const name of @EVENTS@) pi.on(name, (event) => {
    seen.push(name + (event.turnIndex !== undefined ? event.turnIndex : "") + (event.reason ? ":" + event.reason : ""));
  });
  pi.registerCommand("seen", { description: "what it saw",
    handler: async () => pi.sendMessage({ customType: "x", content: seen.join(","), display: true }) });
}
"""


def recorder(root: Path, events: list[str]) -> Path:
    folder = root / "recorder"
    (folder / "extensions").mkdir(parents=True)
    manifest = {
        "name": "recorder",
        "version": "1.0.0",
        "pi": {"extensions": ["./extensions/index.js"]},
    }
    (folder / "package.json").write_text(json.dumps(manifest))
    (folder / "extensions" / "index.js").write_text(
        RECORDER.replace("@EVENTS@", json.dumps(events))
    )
    return folder


def hooked(gateway: Any) -> set[str]:
    return {hook.event for hook in gateway.registry.hooks() if hook.owner == "recorder"}


async def test_a_package_listening_to_turn_start_is_not_subscribed_to_turn_end(workspace):
    install_ready(workspace.config.home, recorder(workspace.root.parent, ["turn_start"]))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert hooked(gateway) == {"turn_start"}


async def test_the_turn_index_advances_for_a_package_that_sees_only_turn_start(workspace):
    install_ready(workspace.config.home, recorder(workspace.root.parent, ["turn_start"]))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.start_turn()
        await gateway.start_turn()
        assert (await gateway.run_command("seen")).message == "turn_start0,turn_start1"


async def test_agent_settled_runs_at_turn_end_after_agent_end(workspace):
    events = ["agent_end", "agent_settled"]
    install_ready(workspace.config.home, recorder(workspace.root.parent, events))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert hooked(gateway) == {"turn_end"}
        await gateway.end_turn()
        assert (await gateway.run_command("seen")).message == "agent_end,agent_settled"
        assert "pi.event_unmapped" not in [d.code for d in gateway.diagnostics]


async def test_legacy_session_switch_runs_at_session_start_after_a_switch(workspace):
    events = ["session_switch", "session_fork"]
    install_ready(workspace.config.home, recorder(workspace.root.parent, events))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert hooked(gateway) == {"session_start"}
        await gateway.start_session({"session_id": "s", "workspace": "w", "reason": "resume"})
        await gateway.start_session({"session_id": "s", "workspace": "w", "reason": "fork"})
        seen = (await gateway.run_command("seen")).message
        assert seen == "session_switch:resume,session_fork:fork"


async def test_a_translated_legacy_event_is_a_diagnostic_naming_it(workspace):
    install_ready(workspace.config.home, recorder(workspace.root.parent, ["session_switch"]))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        found = [d for d in gateway.diagnostics if d.code == "pi.legacy_event_translated"]
        assert [d.contribution for d in found] == ["session_switch"]
        assert "pi.event_unmapped" not in [d.code for d in gateway.diagnostics]


async def test_session_before_switch_runs_at_session_end_before_a_switch_only(workspace):
    events = ["session_before_switch", "session_before_fork", "session_shutdown"]
    install_ready(workspace.config.home, recorder(workspace.root.parent, events))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert hooked(gateway) == {"session_end"}
        await gateway.end_session({"session_id": "s", "workspace": "w", "reason": "new"})
        await gateway.end_session({"session_id": "s", "workspace": "w", "reason": "fork"})
        await gateway.end_session()
        seen = (await gateway.run_command("seen")).message
        assert seen == (
            "session_before_switch:new,session_shutdown:new,session_before_fork,"
            "session_shutdown:fork,session_shutdown:quit"
        )
