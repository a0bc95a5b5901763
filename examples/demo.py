"""The main job, on the bundled workspace: an agent embedding the gateway for one session,
with packages of all seven formats it runs side by side.

    python examples/demo.py

Installs the workspace's packages (examples/packages/*: a nanobot extension, an OpenClaw
plugin, a Nu package, an Agent Plugin, a Claude Code plugin) into a temporary GATEWAY_HOME
and passes their gates, opens the gateway
on examples/ (trusted for this run only), shows what is offered to a model, then drives a
session the way an agent would: tool calls through hooks of other ecosystems (a Pi hook
redacts the argument of a nimlet tool and of a Nu tool; a nanobot hook stamps the result of
a Pi tool; an OpenClaw hook rewrites and blocks calls of a nanobot tool and rewrites the
call of an Agent Plugin's MCP tool — each rewriter granted `hooks.rewrite`, without which
only its own tools' calls would change; a Claude Code plugin's PreToolUse hook blocks a Pi
tool, which needs no grant), a Nu tool in a
fresh sandboxed Node process, the agent's own `bash` tool blocked by the project's nimlet
guard, a slash command, a prompt template, a tool.json tool, compaction, and a resumed
session that has its entries back. Nothing outside this folder and the temporary home
changes.

A package of another ecosystem is one more folder: in examples/packages/ (installed) or in
the ecosystem's own discovery folder of the workspace (.pi/extensions, .nimlet/...).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import anyio

from gateway import GatewayConfig, ToolOutcome, open_gateway
from gateway.packages import install, load_adapters
from gateway.store import StateStore

WORKSPACE = Path(__file__).resolve().parent
PACKAGES = WORKSPACE / "packages"

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


REWRITERS = {"acme.review", "house-style"}
"""Installed packages whose hooks change other packages' tool calls or results: each needs
`gateway permissions ID hooks.rewrite` (blocking needs nothing)."""
DISCOVERED_REWRITERS = ["pi:redact"]
"""The same for the Pi extension the workspace's .pi/extensions holds."""


def install_packages(home: Path) -> list[str]:
    """`gateway install` each package folder, then grant, trust and enable it; the
    packages whose hooks rewrite other packages' tools get `hooks.rewrite` too."""
    inspector = load_adapters().inspect
    installed = []
    for folder in sorted(p for p in PACKAGES.iterdir() if p.is_dir()):
        report = install(home, str(folder), kind="local", inspector=inspector)
        record = report.package.record
        wanted = [p.name for p in report.entry.permissions]
        rewrite = ["hooks.rewrite"] if record.id in REWRITERS else []
        with StateStore.open(home) as store:
            store.grant(record.id, [*wanted, *rewrite], [*wanted, *rewrite])
            store.set_trusted(record.id, True)
            store.set_enabled(record.id, True)
        installed.append(f"{record.id} ({record.ecosystem})")
    with StateStore.open(home) as store:
        for extension in DISCOVERED_REWRITERS:
            store.grant_extension(extension, ["hooks.rewrite"])
    return installed


async def main() -> int:
    with tempfile.TemporaryDirectory() as home:
        config = GatewayConfig(home=Path(home), user_home=Path(home))
        show("installed packages", install_packages(Path(home)))
        async with open_gateway(WORKSPACE, trust=True, config=config) as gateway:
            gateway.register_builtin_tool("bash", "Run a shell command", BASH_SCHEMA, bash)
            if "style_guide" not in {t["name"] for t in gateway.tool_schemas()}:
                # The OpenClaw plugin's host needs the OpenClaw SDK, which a plain
                # `gateway setup` leaves out.
                print(
                    "the demo's OpenClaw plugin (examples/packages/house-style) did not start: "
                    "without the OpenClaw SDK run `gateway setup --openclaw` (a clone: "
                    "`python -m adapters.pi.runtime`), else see `gateway status`",
                    file=sys.stderr,
                )
                return 1
            show(
                "tools offered to a model (owner)",
                [f"{t['name']} ({t['owner']})" for t in gateway.tool_schemas()],
            )
            show("commands", sorted(c.name for c in gateway.registry.commands()))
            show("skills", [s.name for s in gateway.discovery.skills])
            await gateway.start_session()
            await gateway.start_turn()
            saved = await gateway.call_tool("save_note", {"text": "the demo ran"})
            show("save_note (nimlet extension in Python)", saved.content)
            redacted = await gateway.call_tool("save_note", {"text": "deploy key sk-live1234567"})
            show(
                "save_note with a secret (nimlet tool; the Pi extension's tool_call hook "
                "redacted the argument)",
                {"arguments it ran with": redacted.arguments, "result": redacted.content},
            )
            todos = await gateway.call_tool("list_todos", {})
            show("list_todos (nimlet extension in JavaScript)", todos.content)
            ticket = await gateway.call_tool("open_ticket", {"title": "cache bug"})
            show(
                "open_ticket (Pi tool; the nanobot package's after_execute_tool hook stamped it)",
                ticket.content,
            )
            review = await gateway.call_tool("review_code", {"path": "./gateway/host/_gateway.py"})
            show(
                "review_code ./gateway/host/_gateway.py (nanobot tool; the OpenClaw plugin's "
                "before_tool_call hook normalised the path)",
                review.content,
            )
            vendored = await gateway.call_tool("review_code", {"path": "vendor/left_pad.py"})
            show("review_code vendor/… (blocked by the OpenClaw hook)", vendored.to_dict())
            guide = await gateway.call_tool("style_guide", {})
            show("style_guide (OpenClaw tool)", guide.content)
            blocked = await gateway.call_tool("bash", {"command": "curl https://example.com"})
            show("bash curl … (agent built-in, guarded by an extension)", blocked.to_dict())
            allowed = await gateway.call_tool("bash", {"command": "ls"})
            show("bash ls", allowed.content)
            words = await gateway.call_tool("wordcount", {"text": "one two three"})
            show("wordcount (tool.json, one process per call)", words.content)
            entry = await gateway.call_tool(
                "changelog__entry", {"kind": "fix", "text": "rotate the key sk-live1234567."}
            )
            show(
                "changelog__entry (Nu tool, a fresh sandboxed Node per call; the Pi hook "
                "redacted its argument)",
                entry.content,
            )
            define = await gateway.call_tool("mcp_glossary_define", {"term": "  Cache "})
            show(
                "mcp_glossary_define '  Cache ' (an Agent Plugin's MCP tool, its stdio server "
                "run by the plugin host; the OpenClaw hook rewrote the term)",
                {"arguments it ran with": define.arguments, "result": define.content},
            )
            prod = await gateway.call_tool("open_ticket", {"title": "prod database down"})
            show(
                "open_ticket about prod (Pi tool; blocked by the Claude Code plugin's "
                "PreToolUse hook, a shell command)",
                prod.to_dict(),
            )
            invalid = await gateway.call_tool("save_note", {})
            show("save_note with invalid arguments", invalid.content)
            await gateway.end_turn()
            note = await gateway.run_command("NOTE", "remember the cache bug")
            show("/NOTE remember the cache bug", note.message)
            template = await gateway.run_command("review", "gateway/host/_gateway.py")
            show("/review gateway/host/_gateway.py (prompt template)", template.prompt)
            triage = await gateway.run_command("triage", "the cache forgets keys")
            show("/triage the cache forgets keys (Claude Code plugin command)", triage.prompt)
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
    ok = (
        saved.content == "Saved the note."
        and blocked.blocked
        and redacted.arguments == {"text": "deploy key [redacted]"}
        and ticket.content == "ticket opened: cache bug (reviewer: acme.review)"
        and review.content == "Review requested for gateway/host/_gateway.py"
        and vendored.blocked
        and guide.content.startswith("Names say what")
        and entry.content == "- **fix**: rotate the key [redacted]"
        and define.arguments == {"term": "cache"}
        and define.content.startswith("cache: A store of results")
        and prod.blocked
        and "on-call runbook" in prod.content
        and (triage.prompt or "").startswith("Triage this bug report: the cache forgets keys")
        and not problems
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(anyio.run(main))
