"""The diagnostic codes of Agent Plugins 1.0: ``plugin.json``, ``mcp.json`` and its
servers.
"""

from __future__ import annotations

from gateway.base import Severity, define_code

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

AGENT_PLUGINS_MANIFEST_INVALID = define_code(
    "agent_plugins.manifest_invalid",
    ERROR,
    "An Agent Plugin's plugin.json breaks the closed 1.0.0 schema: an unknown field, a "
    "missing or invalid name (1-64 of a-z 0-9 - ., alphanumeric at both ends, no -- or ..), "
    "a field of the wrong type.",
    "Fix plugin.json as the message says; Agent Plugins clients refuse the whole plugin.",
)
AGENT_PLUGINS_FIELD_IGNORED = define_code(
    "agent_plugins.field_ignored",
    WARNING,
    "An Agent Plugin's plugin.json has a top-level field 1.0.0 does not define, or an "
    "`extensions` that is not an object; the specification says to report and ignore it, "
    "and the plugin loads.",
    "Remove the field, or move client-specific data under `extensions.<namespace>`.",
)
AGENT_PLUGINS_SCHEMA_UNKNOWN = define_code(
    "agent_plugins.schema_unknown",
    ERROR,
    "A plugin.json or mcp.json names an agent-plugins.org $schema other than 1.0.0's (such "
    "as the 1.1.0 draft, which released nanobot and the agent-plugins reader refuse too); "
    "its rules are not known here, so the document is not read (a plugin.json: the plugin is "
    "refused; an mcp.json: its servers are, reported as a warning).",
    "Use the 1.0.0 identifier (https://agent-plugins.org/schemas/1.0.0/...).",
)
AGENT_PLUGINS_MCP_INVALID = define_code(
    "agent_plugins.mcp_invalid",
    WARNING,
    "An Agent Plugin's mcp.json is not the closed 1.0.0 object ($schema and mcpServers); no "
    "server of it is read.",
    "Fix mcp.json as the message says.",
    lasting=True,
)
AGENT_PLUGINS_SERVER_INVALID = define_code(
    "agent_plugins.server_invalid",
    WARNING,
    "One server entry of mcp.json breaks the schema (unknown field, command not one token, "
    "PLUGIN_ROOT/PLUGIN_DATA in env, cwd outside the plugin or its data, a ./ command "
    "missing); that server is skipped, the others are read.",
    "Fix the named server's entry.",
    lasting=True,
)
AGENT_PLUGINS_SERVER_NEEDS_NETWORK = define_code(
    "agent_plugins.server_needs_network",
    INFO,
    "An MCP server starts through a package runner (npx, uvx, pipx, bunx…) that fetches "
    "packages at start; its sandbox denies network until granted.",
    "Grant it knowingly with the command in the hint, or vendor the server into the plugin.",
)
AGENT_PLUGINS_COMMAND_NOT_FOUND = define_code(
    "agent_plugins.command_not_found",
    ERROR,
    "A stdio server's bare command is not on PATH when the gateway plans the plugin host's "
    "launch; that server will fail to start (said once: the plugin host does not add its "
    "``agent_plugins.server_failed``).",
    "Install the program (or put it on PATH), or ship the server inside the plugin (./...).",
)
