"""The diagnostic codes the plugin host reports (one process per Agent Plugin or Claude Code
plugin): MCP servers that fail, exit or offer what it cannot use, and command hooks that
fail or answer what is ignored; and remote MCP servers (``remote_mcp.*``: read by the
adapters, connected and signed in to through the plugin host).
"""

from __future__ import annotations

from gateway.base import Severity, define_code

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

CLAUDE_HOOK_TYPE_UNSUPPORTED = define_code(
    "claude.hook_type_unsupported",
    WARNING,
    "A hook of a type that never runs in the gateway: `prompt` and `agent` hooks (they need "
    "a model to answer, and the gateway runs none for a hook), an `http` or `mcp_tool` hook "
    "in a format whose hooks are command hooks only (Codex), or a type it does not know.",
    "Write the check as a command, http or mcp_tool hook, or accept that it does not run.",
)
CLAUDE_HOOK_HTTP_NOT_GRANTED = define_code(
    "claude.hook_http_not_granted",
    WARNING,
    "An `http` hook was not sent: the package's sandbox has no network grant for its URL's "
    "host and port (each http hook's destination is an optional permission, "
    "`network:HOST:PORT`). As with any hook that cannot answer, the event goes on.",
    "Grant it: `gateway permissions ID network:HOST:PORT` (the message names it).",
)
CLAUDE_HOOK_MCP_SERVER_UNKNOWN = define_code(
    "claude.hook_mcp_server_unknown",
    WARNING,
    "An `mcp_tool` hook names an MCP server that is not one of the plugin's own (its "
    "`.mcp.json` / `mcpServers`): the gateway calls a hook's tool only on the plugin's own "
    "servers, which run in its sandbox, so the hook never runs.",
    "Declare the server in the plugin, or name one of its servers (`server` is the key in "
    "`.mcp.json`, or `plugin:<plugin>:<server>`).",
)
CLAUDE_HOOK_FAILED = define_code(
    "claude.hook_failed",
    WARNING,
    "A hook failed without blocking: a command exited with a code other than 0 or 2, timed "
    "out (its process group was killed), could not start, or wrote more output than the cap; "
    "an http hook's request failed, timed out, was answered with a status other than 2xx, a "
    "body over the cap or malformed JSON; an mcp_tool hook's server was not running or its "
    "tool failed. As in Claude Code, the event goes on as if the hook had not answered.",
    "Run the hook by hand with the JSON event on stdin (or POST it to the URL); block with "
    "exit code 2 or a JSON decision only.",
)
CLAUDE_HOOK_OUTPUT_IGNORED = define_code(
    "claude.hook_output_ignored",
    INFO,
    "A hook answered with something the gateway cannot carry for that event (stopping the "
    "whole agent, a message shown only to the user, a decision on an event that cannot be "
    "blocked); the rest of its answer applies.",
    "Nothing to fix; docs/claude-plugins.md says what each answer becomes.",
)

GEMINI_HOOK_FAILED = define_code(
    "gemini.hook_failed",
    WARNING,
    "A Gemini CLI hook command failed: it timed out (its process group was killed), could "
    "not start or wrote more output than the cap — the event goes on as if it had not "
    "answered — or exited with a code other than 0 or 2 (Gemini CLI's warning; what it "
    "printed is still its answer, as in Gemini CLI: after exit 1 a message for the user, "
    "after another code a denial).",
    "Run the hook by hand with the JSON event on stdin; block with exit code 2 or "
    '`{"decision": "deny"}`.',
)
GEMINI_HOOK_OUTPUT_IGNORED = define_code(
    "gemini.hook_output_ignored",
    INFO,
    "A Gemini CLI hook answered with something the gateway cannot carry for that event "
    "(`continue: false` stopping the whole agent loop, `tailToolCallRequest`, "
    "`clearContext`, a decision on an advisory event); the rest of its answer applies.",
    "Nothing to fix; docs/gemini-extensions.md says what each answer becomes.",
)

AGENT_PLUGINS_SERVER_FAILED = define_code(
    "agent_plugins.server_failed",
    ERROR,
    "A stdio MCP server did not start, did not complete the MCP handshake in time, or failed "
    "listing its tools; its tools are absent, the plugin's other servers keep working. The "
    "start is incomplete: never cached, the next load starts the server again.",
    "Read the package's log (the server's stderr) and run the server by hand.",
    incomplete=True,
    logs=True,
)
AGENT_PLUGINS_NO_SERVER_STARTED = define_code(
    "agent_plugins.no_server_started",
    ERROR,
    "None of the plugin's MCP servers started and it offers nothing else (no hook, no "
    "command): its start failed, and `status`, `doctor` and `list --packages` say so until a "
    "start of it works. It names the first server and why it failed; each other server's "
    "own `agent_plugins.server_failed` says why.",
    "Read the package's log (the servers' stderr) and run the server by hand.",
    logs=True,
)
AGENT_PLUGINS_SERVER_EXITED = define_code(
    "agent_plugins.server_exited",
    ERROR,
    "A running stdio MCP server exited or closed its pipes; calls to its tools fail until the "
    "plugin host restarts (a reload).",
    "Read the package's log (the server's stderr).",
    logs=True,
)
AGENT_PLUGINS_TOOL_INVALID = define_code(
    "agent_plugins.tool_invalid",
    WARNING,
    "An MCP tool's inputSchema is not a valid JSON Schema; that tool is not offered (one bad "
    "tool must not fail the registration of the plugin's others).",
    "Fix the tool's inputSchema in its server.",
)
AGENT_PLUGINS_ITEM_INVALID = define_code(
    "agent_plugins.item_invalid",
    WARNING,
    "An MCP server listed a tool, prompt or resource that is not the protocol's shape (a "
    "name that is not a string, an inputSchema that is not an object, a readOnlyHint that "
    "is not a boolean …); that item is not offered, the server's others are.",
    "Fix what the server lists (its tools/list, prompts/list or resources/list result).",
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

REMOTE_NOT_GRANTED = define_code(
    "remote_mcp.not_granted",
    WARNING,
    "A remote MCP server is not connected: the package's sandbox has no network grant for it "
    "(each server's host and port is an optional permission, `network:HOST:PORT`).",
    "Grant it: `gateway permissions ID network:HOST:PORT` (the hint names it); the package's "
    "other contributions run meanwhile.",
)
REMOTE_SIGN_IN_REQUIRED = define_code(
    "remote_mcp.sign_in_required",
    WARNING,
    "A remote MCP server answers 401 and no sign-in can be used: none was made, the refresh "
    "token was refused (revoked or expired), or the sign-in was made for another URL. Its "
    "tools stay listed and each call says so; none is run.",
    "Sign in: `gateway auth ID` (it opens or prints the authorization URL and waits on a "
    "loopback redirect); a running gateway restarts the package when it is done.",
)
REMOTE_REFRESH_FAILED = define_code(
    "remote_mcp.refresh_failed",
    WARNING,
    "Refreshing a remote MCP server's access token failed for a reason other than a refusal "
    "(the authorization server unreachable, an error page, a malformed answer); the current "
    "token is used while it lasts, and the refresh is tried again at the next use.",
    "Check that the authorization server is reachable from the package's sandbox (its "
    "network grant names the MCP server's host; a token endpoint elsewhere needs its own).",
)
REMOTE_UNREACHABLE = define_code(
    "remote_mcp.unreachable",
    WARNING,
    "A remote MCP server could not be connected (name resolution, a refused connection, TLS, "
    "no MCP answer within the start timeout, an HTTP error); its tools are not offered, and "
    "the package's registration is not cached: the next load tries to connect again.",
    "Check the URL and that the server is up; `gateway logs ID` has the plugin host's view.",
    incomplete=True,  # never cached: the next load connects again
)
REMOTE_HEADER_UNSET = define_code(
    "remote_mcp.header_unset",
    WARNING,
    "A header of a remote MCP server names a variable (`${NAME}`) that has no value: no "
    "secret of that name, no `env:NAME` grant, no `${NAME:-default}`; the server is not "
    "connected (a header sent empty would fail later and less clearly).",
    "Set it: `gateway secret set ID NAME` (or grant the variable: `gateway permissions ID "
    "env:NAME`).",
)
REMOTE_SCOPE_INSUFFICIENT = define_code(
    "remote_mcp.scope_insufficient",
    WARNING,
    "A remote MCP server answers 403 `insufficient_scope`: the sign-in was granted fewer "
    "scopes than the server needs. The server's calls are held back (each says so); the "
    "plugin host never widens a sign-in by itself.",
    "Sign in again: `gateway auth ID` (the authorization server is asked for the scopes the "
    "server names); if it refuses them, the account lacks access.",
)
REMOTE_SIGN_IN_FAILED = define_code(
    "remote_mcp.sign_in_failed",
    ERROR,
    "`gateway auth` did not complete: the authorization server refused the request (e.g. "
    "`invalid_scope`, `access_denied`), no redirect came back in time, its metadata or "
    "client registration failed, or the tokens could not be kept. Nothing was kept; an "
    "earlier sign-in stays as it was.",
    "Read the reason in the message; run `gateway auth ID` again once it is fixed.",
)
GEMINI_HOOKS_INVALID = define_code(
    "gemini.hooks_invalid",
    WARNING,
    "A Gemini CLI extension's hooks/hooks.json, or one entry of it, is not what Gemini CLI "
    "loads: `hooks` not an object, an event name Gemini CLI does not know, a definition "
    "without a `hooks` array, a hook without `type` or `command`, a `type` other than "
    "`command`, a `timeout` that is not a positive number of milliseconds. Gemini CLI skips "
    "it with a warning, and so does the gateway; the other hooks run.",
    "Fix the entry as the message says (docs/hooks/reference.md of Gemini CLI).",
)
