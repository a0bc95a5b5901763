"""The diagnostic codes of Codex plugins: ``.codex-plugin/plugin.json``, ``.mcp.json``,
``.app.json``, hooks and skills, and marketplaces found where a plugin was expected."""

from __future__ import annotations

from gateway.base import Severity, define_code

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

CODEX_MANIFEST_INVALID = define_code(
    "codex.manifest_invalid",
    ERROR,
    "`.codex-plugin/plugin.json` is not a JSON object Codex reads: a `name` or `version` "
    "that is not a string, a name that is not kebab-case, an `interface` that is not an "
    "object; Codex refuses the plugin.",
    "Fix plugin.json as the message says (the plugin-creator skill's plugin-json-spec.md).",
)
CODEX_FIELD_IGNORED = define_code(
    "codex.field_ignored",
    INFO,
    "plugin.json has a field Codex's manifest does not define, or a component path that "
    "does not start with `./`, is `./` itself or climbs out with `..` (Codex warns and drops "
    "that field); the plugin loads.",
    "Use a `./`-relative path inside the plugin, or remove the field.",
)
CODEX_SERVER_INVALID = define_code(
    "codex.server_invalid",
    WARNING,
    "One `.mcp.json` server is not a Codex MCP server config (neither `command` nor `url`, "
    "a field of the wrong type, a command not on PATH nor inside the plugin); that server "
    "is skipped, the others are read.",
    "Fix the named server's entry.",
)
CODEX_REMOTE_SERVER = define_code(
    "codex.remote_server",
    WARNING,
    "A `url` MCP server (streamable HTTP): listed, not connected (the plugin host starts "
    "stdio servers; it has no network by default).",
    "Run the server as a stdio command, or use it from Codex.",
)
CODEX_APP_UNSUPPORTED = define_code(
    "codex.app_unsupported",
    WARNING,
    "`.app.json` declares apps: ChatGPT connectors that Codex reaches through its hosted "
    "`codex_apps` MCP server under ChatGPT sign-in; a headless host has neither, so each is "
    "named and not run.",
    "Nothing to fix for the gateway; the plugin's skills and stdio servers run.",
)
CODEX_HOOKS_INVALID = define_code(
    "codex.hooks_invalid",
    WARNING,
    'A hooks file is not `{"hooks": {Event: [...]}}` (or its path is not inside the '
    "plugin); no hook of it is read.",
    "Fix the hooks file as the message says.",
)
CODEX_MARKETPLACE = define_code(
    "codex.marketplace",
    ERROR,
    "The folder is a Codex (or Agent Plugins) marketplace, `.agents/plugins/marketplace.json`, "
    "not one plugin; the message lists its plugins and where each one is.",
    "Install one plugin of it by its folder (`gateway install DIR/plugins/NAME`).",
)
CODEX_ENV_VAR_NOT_SET = define_code(
    "codex.env_var_not_set",
    WARNING,
    "A server's `env_vars` names a variable Codex would pass from its own environment; the "
    "gateway passes only values stored for the package, and none is stored for it.",
    "Store it: `gateway secret set PACKAGE NAME`.",
)
