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
    lasting=True,
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
    "not one plugin; the message lists its plugins (and, at inspection, where each one is).",
    "Install one plugin of it: `gateway install MARKETPLACE#PLUGIN`.",
)
CODEX_MARKETPLACE_INVALID = define_code(
    "codex.marketplace_invalid",
    ERROR,
    "A Codex marketplace's .agents/plugins/marketplace.json cannot give the plugin asked for: "
    "no string `name` or `plugins` list, or the plugin's `source` path does not start with "
    "`./`, leaves the marketplace's root or is no folder, or its git `url`/`ref`/`sha` is "
    "not an https or ssh URL and a plain ref. Nothing is installed.",
    'Fix the entry as the message says (Codex\'s "Build plugins" documentation).',
)
CODEX_MARKETPLACE_PLUGIN_UNKNOWN = define_code(
    "codex.marketplace_plugin_unknown",
    ERROR,
    "`MARKETPLACE#PLUGIN` names a plugin the Codex marketplace does not offer (an entry "
    "without a string `name` and a `source` is skipped, as Codex skips it).",
    "Use one of the names the message lists.",
)
CODEX_MARKETPLACE_PLUGIN_UNAVAILABLE = define_code(
    "codex.marketplace_plugin_unavailable",
    ERROR,
    "The marketplace's entry says `policy.installation: NOT_AVAILABLE`; Codex refuses to "
    "install it, and so does the gateway.",
    "Install another plugin, or the plugin from its own folder or repository.",
)
CODEX_MARKETPLACE_SOURCE_UNSUPPORTED = define_code(
    "codex.marketplace_source_unsupported",
    ERROR,
    "The marketplace's entry has a source the gateway does not install from a marketplace: "
    "a folder inside a git repository (`git-subdir`, or `url` with a `path`), or a source "
    "kind Codex does not read. Nothing is installed.",
    "Install the plugin from its own source (its folder, or `gateway install URL`).",
)
CODEX_ENV_VAR_NOT_SET = define_code(
    "codex.env_var_not_set",
    WARNING,
    "A server's `env_vars` names a variable Codex would pass from its own environment; the "
    "gateway passes only values stored for the package, and none is stored for it.",
    "Store it: `gateway secret set PACKAGE NAME`.",
)
