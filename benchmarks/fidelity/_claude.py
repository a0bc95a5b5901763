"""Claude Code plugins in the differential fidelity harness (run.py): OpenClaw's own reader
of Claude bundles (``claude_host.mjs``, the pinned ``openclaw`` package) is the reference
host; the gateway installs the plugin as a user does. Compared: the slash commands (OpenClaw's
bundle commands against the gateway's prompt commands) and the skills; the gateway's hook
subscriptions have no counterpart in OpenClaw, which records a plugin's hooks.json and runs
none of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _compare import CAUSES, Difference, View, differences

__all__ = ["CLAUDE_CAUSES", "claude_argv", "claude_differences", "claude_host"]

HERE = Path(__file__).resolve().parent

CLAUDE_CAUSES = {
    "claude-hooks-beyond-openclaw": "the gateway runs the plugin's command hooks (hooks.json) "
    "on canonical events; OpenClaw's Claude-bundle reader records hooks.json and runs none of "
    "it",
    "claude-shell-lines-in-plugin-host": "a command with `!` shell lines is served by the "
    "plugin host, which runs its lines confined (a command of the host's, not a prompt "
    "template of the gateway's); OpenClaw lists the same command as a prompt and runs no line",
    "claude-skill-lines-as-command": "a skill with `!` shell lines is also the slash command "
    "/NAME, as Claude Code invokes a skill and runs its lines; OpenClaw's reader lists it as a "
    "skill only",
}
CAUSES.update(CLAUDE_CAUSES)


def claude_argv(node: str, openclaw: Path, out_file: Path) -> list[str]:
    script = str(HERE / "claude_host.mjs")
    return [node, script, "--openclaw", str(openclaw), "--out", str(out_file)]


def claude_host(result: dict[str, Any]) -> tuple[View, bool]:
    """OpenClaw's view of a Claude plugin: its bundle commands are prompt commands (a slash
    command that sends a prompt), as the gateway lists them."""
    if not result.get("ok"):
        return View(errors=[str(result.get("error", "not a Claude bundle"))]), False
    view = View(
        prompts={str(c["name"]) for c in result.get("commands", [])},
        skills={str(s) for s in result.get("skills", [])},
    )
    view.notes.append("capabilities: " + ", ".join(result.get("capabilities", [])))
    return view, True


def claude_differences(host: View, gw: View, host_raw: dict[str, Any]) -> list[Difference]:
    found = differences("claude", host, gw, host_raw)
    for difference in found:
        items = set(difference.items)
        extra, missing = difference.direction == "extra", difference.direction == "missing"
        if difference.category == "events" and extra:
            difference.cause = "claude-hooks-beyond-openclaw"
        elif difference.category == "commands" and extra and items <= host.prompts:
            difference.cause = "claude-shell-lines-in-plugin-host"
        elif difference.category == "commands" and extra and items <= host.skills:
            difference.cause = "claude-skill-lines-as-command"
        elif difference.category == "prompts" and missing and items <= gw.commands:
            difference.cause = "claude-shell-lines-in-plugin-host"
    return found
