"""The diagnostic codes the plugin host reports (one process per Agent Plugin or Claude Code
plugin): MCP servers that fail, exit or offer what it cannot use, and command hooks that
fail or answer what is ignored.
"""

from __future__ import annotations

from gateway.base import Severity, define_code

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

CLAUDE_HOOK_TYPE_UNSUPPORTED = define_code(
    "claude.hook_type_unsupported",
    WARNING,
    "A hook is not a `command` hook (`prompt`, `agent`, `http`, `mcp_tool`): the gateway "
    "runs shell command hooks only, so it never runs.",
    "Write the check as a command hook, or accept that it does not run in the gateway.",
)
CLAUDE_HOOK_FAILED = define_code(
    "claude.hook_failed",
    WARNING,
    "A hook command failed without blocking: it exited with a code other than 0 or 2, timed "
    "out (its process group was killed), could not start, or wrote more output than the cap. "
    "As in Claude Code, the event goes on as if the hook had not answered.",
    "Run the hook by hand with the JSON event on stdin; block with exit code 2 only.",
)
CLAUDE_HOOK_OUTPUT_IGNORED = define_code(
    "claude.hook_output_ignored",
    INFO,
    "A hook answered with something the gateway cannot carry for that event (stopping the "
    "whole agent, a message shown only to the user, a decision on an event that cannot be "
    "blocked); the rest of its answer applies.",
    "Nothing to fix; docs/claude-plugins.md says what each answer becomes.",
)

AGENT_PLUGINS_SERVER_FAILED = define_code(
    "agent_plugins.server_failed",
    ERROR,
    "A stdio MCP server did not start, did not complete the MCP handshake in time, or failed "
    "listing its tools; its tools are absent, the plugin's other servers keep working.",
    "Read the package's log (the server's stderr) and run the server by hand.",
)
AGENT_PLUGINS_SERVER_EXITED = define_code(
    "agent_plugins.server_exited",
    ERROR,
    "A running stdio MCP server exited or closed its pipes; calls to its tools fail until the "
    "plugin host restarts (a reload).",
    "Read the package's log (the server's stderr).",
)
AGENT_PLUGINS_TOOL_INVALID = define_code(
    "agent_plugins.tool_invalid",
    WARNING,
    "An MCP tool's inputSchema is not a valid JSON Schema; that tool is not offered (one bad "
    "tool must not fail the registration of the plugin's others).",
    "Fix the tool's inputSchema in its server.",
)
AGENT_PLUGINS_NAME_COLLISION = define_code(
    "agent_plugins.name_collision",
    WARNING,
    "Two MCP tools, prompts or resources of one plugin map to the same gateway name "
    "(mcp_<server>_<name>, sanitised as nanobot does); the first keeps it.",
    "Rename one of them in its server.",
)
AGENT_PLUGINS_RESOURCE_TEMPLATES = define_code(
    "agent_plugins.resource_templates_unsupported",
    INFO,
    "An MCP server offers resource templates (parameterised URIs); the plugin host offers "
    "its static resources as tools, not its templates.",
    "Expose what the template reads through a tool.",
)
