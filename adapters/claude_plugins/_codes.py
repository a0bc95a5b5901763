"""The diagnostic codes of Claude Code plugins: ``.claude-plugin/plugin.json`` and its
components.
"""

from __future__ import annotations

from gateway.base import Severity, define_code

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

CLAUDE_MANIFEST_INVALID = define_code(
    "claude.manifest_invalid",
    ERROR,
    "A Claude Code plugin's .claude-plugin/plugin.json breaks Claude's plugin reference: no "
    "`name`, a name that is not kebab-case, or a field of the wrong type.",
    "Fix the field named in the message (see docs/claude-plugins.md).",
)
CLAUDE_MANIFEST_FIELD_UNKNOWN = define_code(
    "claude.manifest_field_unknown",
    INFO,
    "plugin.json has a field Claude Code's plugin reference does not list; it is ignored.",
    "Remove the field, or check its spelling against the plugin reference.",
)
CLAUDE_DEPENDENCY_INVALID = define_code(
    "claude.dependency_invalid",
    ERROR,
    "An entry of plugin.json `dependencies` breaks Claude Code's plugin dependencies "
    "reference: not a plugin name, `name@marketplace` or an object with a kebab-case `name`, "
    "a `version` that is not a semver range, a `marketplace` that is not text, a plugin "
    "naming itself or one listed twice; that entry is left out.",
    'Fix the entry the message names (see docs/claude-plugins.md, "Dependencies").',
)
CLAUDE_COMPONENT_UNSUPPORTED = define_code(
    "claude.component_unsupported",
    WARNING,
    "The plugin ships a component a headless host cannot run (subagents in agents/, output "
    "styles, LSP servers, status lines, monitors); it is listed, never run.",
    "Nothing to fix; the plugin's commands, skills, command hooks and stdio MCP servers "
    "still work.",
)
CLAUDE_COMMAND_FIELD_IGNORED = define_code(
    "claude.command_field_ignored",
    INFO,
    "A slash command uses something the gateway does not apply when it expands the command: "
    "`allowed-tools` (beyond its `!` lines, which it limits: the model's own tool calls are "
    "the gateway's permission prompts'), `model`, `disable-model-invocation` front matter; "
    "a command marked `user-invocable: false` is not offered.",
    "Nothing to fix; the gateway's own permission prompts and model apply instead.",
)
CLAUDE_MCP_INVALID = define_code(
    "claude.mcp_invalid",
    ERROR,
    "The plugin's .mcp.json (or plugin.json `mcpServers`) is malformed: not an object, a "
    "server without `command` or `url`, `args` not a list of strings, `env` not an object "
    "of strings; that server is skipped.",
    "Fix the server entry named in the message.",
    lasting=True,
)
CLAUDE_COMMAND_NOT_FOUND = define_code(
    "claude.command_not_found",
    WARNING,
    "A stdio MCP server's command (after `${CLAUDE_PLUGIN_ROOT}` is expanded) is neither a "
    "file nor a name on PATH when the gateway plans the plugin host's launch; that server "
    "fails to start, the others run.",
    "Install the program (or put it on PATH), or ship the server inside the plugin.",
)

REMOTE_TRANSPORT_UNSUPPORTED = define_code(
    "remote_mcp.transport_unsupported",
    WARNING,
    "A remote MCP server entry names a transport the plugin host does not speak (Claude "
    "Code's `ws`); it is listed, never connected.",
    "Use the server's streamable HTTP or SSE endpoint if it has one.",
)

REMOTE_FIELD_IGNORED = define_code(
    "remote_mcp.field_ignored",
    INFO,
    "A field of a remote MCP server entry is read but not applied: `headersHelper` (a command "
    "Claude Code runs for headers), `oauth.scopes` and `oauth.authServerMetadataUrl` (the "
    "MCP SDK's OAuth client discovers the authorization server and chooses scopes itself).",
    "Nothing to fix; put static headers in `headers` (with `${NAME}` for secrets).",
)

REMOTE_URL_USER_CONFIG = define_code(
    "remote_mcp.url_user_config",
    WARNING,
    "A Claude Code plugin's remote MCP server `url` names a plugin option "
    "(`${user_config.KEY}`) the gateway cannot fill there: one `userConfig` does not "
    "declare, a `sensitive` one (a URL is shown in diagnostics, logs and `inspect`: a secret "
    "belongs in a header), or one in the scheme, host or port (the server's host is its "
    "network grant, asked for at install). The server is listed, not connected.",
    "Declare the option, put a secret in a header, and keep options to the URL's path and query.",
)
REMOTE_HEADER_USER_CONFIG = define_code(
    "remote_mcp.header_user_config",
    WARNING,
    "A header of a Claude Code plugin's remote MCP server names a plugin option "
    "(`${user_config.KEY}`) that its `userConfig` does not declare; rather than send the "
    "placeholder as written, the server is listed, not connected. (A declared option is "
    "filled when the plugin host starts.)",
    "Declare the option in plugin.json `userConfig`, or fix the name in the header.",
)

MARKETPLACE_INVALID = define_code(
    "claude.marketplace_invalid",
    ERROR,
    "A Claude Code marketplace's .claude-plugin/marketplace.json is malformed: not an object, "
    "`plugins` not a list, a plugin entry without a kebab-case `name` or a `source`, or a "
    "relative `source` that is absolute or leaves the marketplace folder.",
    "Fix the entry named in the message (see Claude Code's plugin marketplaces reference).",
)
MARKETPLACE_PLUGIN_REQUIRED = define_code(
    "claude.marketplace_plugin_required",
    ERROR,
    "The folder is a Claude Code marketplace, not a plugin: it offers plugins, and which one "
    "to install was not said.",
    "Install one of the plugins the message lists: `gateway install MARKETPLACE#PLUGIN`.",
)
MARKETPLACE_PLUGIN_UNKNOWN = define_code(
    "claude.marketplace_plugin_unknown",
    ERROR,
    "`MARKETPLACE#PLUGIN` names a plugin the marketplace does not offer.",
    "Use one of the names the message lists.",
)
MARKETPLACE_SOURCE_UNSUPPORTED = define_code(
    "claude.marketplace_source_unsupported",
    ERROR,
    "The marketplace's entry for the plugin has a source the gateway does not install from a "
    "marketplace (an npm `registry` of its own, `command`, or a kind Claude Code does not "
    "document); a relative path, `github`, `url`, `git-subdir`, `npm` and `archive` (pinned "
    "by sha256) sources are. Nothing is installed.",
    "Install the plugin from its own source (`gateway install URL` or an npm spec).",
)

COMMAND_SHELL_LINE_REFUSED = define_code(
    "claude.command_shell_line_refused",
    WARNING,
    "A slash command's `!` shell line (as written, or as the typed arguments made it) is not "
    "allowed by the command's `allowed-tools` (no `Bash(...)` rule matches it; a line joining "
    "commands needs an unrestricted `Bash`): the gateway never runs it, and the prompt says "
    "`[not run: …]` in its place (Claude Code may run it under the user's own permission "
    "settings or its read-only commands); the line is named.",
    "Add a `Bash(...)` rule for the command to the front matter's `allowed-tools`, or drop the "
    "line.",
)
COMMAND_SHELL_LINE_RUNS = define_code(
    "claude.command_shell_line_runs",
    INFO,
    "A slash command's `!` shell line is allowed by its `allowed-tools`: each time the command "
    "is used it runs (`sh -c`) in the plugin host, confined to the plugin's grants, and its "
    "output takes its place in the prompt, as Claude Code does. Said at inspection, before "
    "the plugin is trusted, so the person trusting it knows.",
    "Nothing to fix.",
)
SKILL_SHELL_LINES = define_code(
    "claude.skill_shell_lines",
    INFO,
    "A skill's SKILL.md has `!` shell lines, which Claude Code runs when the skill is invoked "
    "(`/NAME`). The gateway offers such a skill as the slash command `/NAME`, served by the "
    "plugin host like a command with `!` lines (each line checked against the skill's "
    "`allowed-tools`, run confined in the plugin's sandbox). The skill is still listed as its "
    "file, which an agent reading it sees as written, lines as text; a command of the same "
    "name keeps the name, and the skill's lines do not run.",
    "Nothing to fix; invoke the skill as `/NAME` to have its lines run.",
)
SHELL_LINE_FAILED = define_code(
    "claude.shell_line_failed",
    WARNING,
    "A slash command's `!` shell line, run in the plugin host, exited with a non-zero status, "
    "timed out (`GATEWAY_SHELL_LINE_TIMEOUT`, default 20 s; the whole process group is "
    "killed) or could not start (a program the sandbox does not grant); its error output, or "
    "a note saying why, takes its place in the prompt.",
    "Run the line yourself in the workspace to see why; a line that needs a program or a "
    "place the plugin is not granted fails in the sandbox by design.",
)
SHELL_LINE_OUTPUT_CUT = define_code(
    "claude.shell_line_output_cut",
    WARNING,
    "A slash command's `!` shell line wrote more than the output limit (30 000 bytes, Claude "
    "Code's own Bash output limit); it was stopped, and the prompt holds the first 30 000 "
    "bytes and a note that the rest was cut.",
    "Narrow the command's output (`| head`, a path, a `--max-count`).",
)

USER_CONFIG_INVALID = define_code(
    "claude.user_config_invalid",
    WARNING,
    "An option of plugin.json `userConfig` breaks Claude Code's option schema (a key that is "
    "not an identifier; `type` not string, number, boolean, directory or file; no `title` or "
    "`description`; a field the schema does not have; a `default` of the wrong type), or a "
    "server names `${user_config.KEY}` for an option that is not declared or has no value; "
    "that option is ignored (the reference stays as written).",
    "Fix the option named in the message (Claude Code's plugins reference, `userConfig`).",
)
USER_CONFIG_MISSING = define_code(
    "claude.user_config_missing",
    ERROR,
    "A required option of the plugin's `userConfig` has no value and no default (Claude Code "
    "asks for it when the plugin is enabled), or the stored settings or secrets cannot be "
    "read: the plugin host does not start; its commands and skills are still served.",
    "Set it: `gateway config ID KEY VALUE`, or `gateway secret set ID KEY` for a sensitive "
    "option (the message's hint names the one).",
)
