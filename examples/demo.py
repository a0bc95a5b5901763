"""The main job, on the bundled workspace: an agent embedding the gateway for one session.

    python examples/demo.py

Opens the gateway on examples/ (trusted for this run only), shows what is offered to a
model, then drives a session the way an agent would: tool calls through the hooks, the
agent's own `bash` tool blocked by the project's guard extension, a slash command, a prompt
template, a tool.json tool, compaction, and a resumed session that has its entries back.
State goes to a temporary GATEWAY_HOME so nothing outside this folder changes.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import anyio

from gateway import GatewayConfig, ToolOutcome, open_gateway

WORKSPACE = Path(__file__).resolve().parent

BASH_SCHEMA = {
    "type": "object",
    "properties": {"command": {"type": "string"}},
    "required": ["command"],
}


async def bash(arguments: dict) -> ToolOutcome:
    return ToolOutcome(f"(the demo does not run shell commands: {arguments['command']})")


def show(title: str, value: object) -> None:
    text = value if isinstance(value, str) else json.dumps(value, indent=2)
    print(f"\n== {title}\n{text}")


async def main() -> int:
    with tempfile.TemporaryDirectory() as home:
        config = GatewayConfig(home=Path(home), user_home=Path(home))
        async with open_gateway(WORKSPACE, trust=True, config=config) as gateway:
            gateway.register_builtin_tool("bash", "Run a shell command", BASH_SCHEMA, bash)
            show("tools offered to a model", [t["name"] for t in gateway.tool_schemas()])
            show("commands", sorted(c.name for c in gateway.registry.commands()))
            show("skills", [s.name for s in gateway.discovery.skills])
            await gateway.start_session()
            await gateway.start_turn()
            saved = await gateway.call_tool("save_note", {"text": "the demo ran"})
            show("save_note (nimlet extension in Python)", saved.content)
            todos = await gateway.call_tool("list_todos", {})
            show("list_todos (nimlet extension in JavaScript)", todos.content)
            blocked = await gateway.call_tool("bash", {"command": "curl https://example.com"})
            show("bash curl … (agent built-in, guarded by an extension)", blocked.to_dict())
            allowed = await gateway.call_tool("bash", {"command": "ls"})
            show("bash ls", allowed.content)
            words = await gateway.call_tool("wordcount", {"text": "one two three"})
            show("wordcount (tool.json, one process per call)", words.content)
            invalid = await gateway.call_tool("save_note", {})
            show("save_note with invalid arguments", invalid.content)
            await gateway.end_turn()
            note = await gateway.run_command("NOTE", "remember the cache bug")
            show("/NOTE remember the cache bug", note.message)
            review = await gateway.run_command("review", "gateway/host.py")
            show("/review gateway/host.py (prompt template)", review.prompt)
            compaction = await gateway.compact("keep the decisions")
            show("compaction", compaction.message)
            show(
                "status and widgets",
                {"status": gateway.session.statuses, "widgets": gateway.session.widgets},
            )
            await gateway.end_session()
            session_id = gateway.session.id
        async with open_gateway(
            WORKSPACE, trust=True, config=config, session_id=session_id
        ) as resumed:
            show("entries back after resume", resumed.session.extension_entries())
            problems = [str(d) for d in resumed.diagnostics if d.severity.value != "info"]
            show("warnings", problems or "none")
    return 0 if saved.content == "Saved the note." and blocked.blocked and not problems else 1


if __name__ == "__main__":
    sys.exit(anyio.run(main))
