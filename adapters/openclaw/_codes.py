"""The diagnostic codes of OpenClaw plugins: the manifest and package.json, host versions,
configuration and discovery, what ``gateway audit`` says of OpenClaw's host, and what the
Node sidecar's OpenClaw host reports (``sidecars/lib/diagnostics.mjs`` lists the codes it
emits).
"""

from __future__ import annotations

from gateway.base import Severity, define_code

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

OPENCLAW_MANIFEST_MISSING = define_code(
    "openclaw.manifest_missing",
    ERROR,
    "The package declares `openclaw` in package.json but has no openclaw.plugin.json.",
    "Add openclaw.plugin.json with id and configSchema.",
)
OPENCLAW_MANIFEST_INVALID = define_code(
    "openclaw.manifest_invalid",
    ERROR,
    "openclaw.plugin.json fails a hard check: id, configSchema, categories, size.",
    "Fix the named field; OpenClaw refuses such a plugin.",
)
OPENCLAW_VALUE_DROPPED = define_code(
    "openclaw.manifest_value_dropped",
    WARNING,
    "An openclaw.plugin.json field (or a package.json `openclaw` metadata field: compat, "
    "install, channel) has a bad value; OpenClaw silently drops it.",
    "Fix the field's type.",
)
OPENCLAW_HOST_VERSION = define_code(
    "openclaw.host_version_unsatisfied",
    WARNING,
    "package.json `openclaw.compat.pluginApi` or `install.minHostVersion` is not satisfied by "
    "(or cannot be checked against) the OpenClaw version the sidecar emulates; OpenClaw would "
    "skip the plugin, the gateway loads it and reports what fails.",
    "Check the plugin against docs/openclaw.md; a newer plugin may use APIs this host lacks.",
    lasting=True,
)
OPENCLAW_PACKAGE_INVALID = define_code(
    "openclaw.package_invalid",
    ERROR,
    "package.json `openclaw` is malformed (extensions not an array, runtimeExtensions "
    "not paired with extensions).",
    "Follow OpenClaw's package-entries rules.",
)
OPENCLAW_NO_ENTRY = define_code(
    "openclaw.no_entry",
    WARNING,
    "No runtime entry was found (no openclaw.extensions and no index.*).",
    "Declare openclaw.extensions (or runtimeExtensions) in package.json.",
)
OPENCLAW_RUNTIME_ONLY = define_code(
    "openclaw.contributions_runtime_only",
    INFO,
    "OpenClaw commands, hooks and services are registered at runtime; only manifest "
    "contracts are known statically.",
    "Nothing to fix; audit a running instance to see them.",
)

# Reported by the Node sidecar's OpenClaw host in register.gateway, or at status by the
# launch planner (config_required, plugin_id_conflict)
OPENCLAW_LOAD_FAILED = define_code(
    "openclaw.load_failed",
    ERROR,
    "An OpenClaw plugin could not be loaded: its entry failed to import, it exports no "
    "register/activate, or register threw; everything it registered was rolled back, the "
    "sidecar's other plugins are unaffected.",
    "Read the message and the package log (GATEWAY_HOME/logs).",
)
OPENCLAW_SDK_UNAVAILABLE = define_code(
    "openclaw.sdk_unavailable",
    WARNING,
    "An OpenClaw plugin imports an SDK subpath (openclaw/plugin-sdk/...) that the pinned "
    "OpenClaw does not export or that cannot load headless; the plugin is metadata only.",
    "Nothing to fix for the gateway; its manifest contributions are still listed.",
)
OPENCLAW_CONFIG_INVALID = define_code(
    "openclaw.config_invalid",
    ERROR,
    "An OpenClaw plugin's config (GATEWAY_HOME/config/<id>.json) fails its configSchema; "
    "register is not called, as in OpenClaw.",
    "Fix the value named in the message with `gateway config ID KEY VALUE`.",
)
OPENCLAW_CONFIG_REQUIRED = define_code(
    "openclaw.config_required",
    ERROR,
    "A field the plugin's configSchema requires has no value; the plugin is not started "
    "(OpenClaw would refuse its config).",
    "Set it: `gateway config ID KEY VALUE` (the message names the field).",
)
OPENCLAW_PLUGIN_ID_CONFLICT = define_code(
    "openclaw.plugin_id_conflict",
    ERROR,
    "Two OpenClaw packages declare the same plugin id; the one installed first (or, among "
    "discovered plugins, the higher-precedence root) keeps it, the other is not started.",
    "Uninstall or remove one of them.",
)
OPENCLAW_PROJECT_PLUGINS_UNTRUSTED = define_code(
    "openclaw.project_plugins_untrusted",
    INFO,
    "The workspace's `.openclaw/extensions` holds OpenClaw plugins, but the workspace is not "
    "trusted, so they were not loaded.",
    "`gateway trust DIR`, or `--trust` for one run.",
)
OPENCLAW_REGISTER_ASYNC = define_code(
    "openclaw.register_async",
    ERROR,
    "register(api) returned a Promise: OpenClaw requires a synchronous register (since "
    "2026.5); the plugin is inactive and its registrations were rolled back.",
    "Make register synchronous; start async work from a hook or a tool.",
)
OPENCLAW_LATE_REGISTRATION = define_code(
    "openclaw.late_registration",
    WARNING,
    "A plugin called an api method after register returned (from a timer or after an "
    "await); the call was dropped, as OpenClaw's closed api drops it.",
    "Register everything synchronously inside register.",
)
OPENCLAW_UNSUPPORTED_API = define_code(
    "openclaw.unsupported_api",
    WARNING,
    "A plugin used an OpenClaw API a headless gateway cannot honour (CLI, services, gateway "
    "methods, HTTP routes, channels, providers, internal hooks, capability and memory "
    "registrars, writing the OpenClaw config); the call is recorded with the API and the id, "
    "nothing else happens.",
    "Nothing to fix for the gateway; the plugin's tools, commands and hooks still run.",
)
OPENCLAW_HOOK_UNMAPPED = define_code(
    "openclaw.hook_unmapped",
    WARNING,
    "A plugin registered a typed hook for something that happens but that the gateway cannot "
    "run it at (model resolution and calls, the agent loop's finalize, transcript writes, "
    "installs, the exec environment): not registered, it never runs.",
    "See docs/openclaw.md for the hook mapping.",
)
OPENCLAW_HOOK_NEVER_EMITTED = define_code(
    "openclaw.hook_never_emitted",
    WARNING,
    "A plugin registered a typed hook for an event a headless gateway never has (subagents, "
    "cron jobs, heartbeats, channels, Skill Workshop): registered and kept, as OpenClaw keeps "
    "it, but never called, since the event never happens here.",
    "Nothing to fix; the plugin's other hooks run. See docs/openclaw.md for the hook mapping.",
)
OPENCLAW_HOOK_UNKNOWN = define_code(
    "openclaw.hook_unknown",
    WARNING,
    "api.on was called with a name that is not an OpenClaw typed hook; ignored, as OpenClaw "
    "ignores it.",
    "Check the hook name against OpenClaw's catalogue.",
)
OPENCLAW_HOOK_NOT_IN_VERSION = define_code(
    "openclaw.hook_not_in_version",
    WARNING,
    "A plugin loaded as an OpenClaw older than the pinned 2026.9.6 (it declares OpenClaw before "
    "2026.8: loaded as 2026.4.29 or 2026.7.35, its band's release) called api.on with a typed "
    "hook that release does not have (a hook added later, such as subagent_progress, "
    "cron_reconciled or the Skill Workshop hooks): that OpenClaw ignores it as an unknown "
    "hook, and so does the gateway.",
    "If the plugin needs the hook, declare the OpenClaw that has it (the message names it) in "
    "package.json peerDependencies.openclaw or openclaw.compat.pluginApi.",
)
OPENCLAW_LEGACY_API = define_code(
    "openclaw.legacy_api",
    INFO,
    "A plugin uses a legacy API (an `activate` export, or the before_agent_start or deactivate "
    "hooks removed in OpenClaw 2026.8, by a plugin declaring an earlier OpenClaw); it runs "
    "through its alias.",
    "Nothing to fix; newer plugins use register, before_prompt_build and gateway_stop.",
)
OPENCLAW_LEGACY_HOOK_REMOVED = define_code(
    "openclaw.legacy_hook_removed",
    WARNING,
    "A plugin loaded as OpenClaw 2026.8 or later (it declares such a version, or none and is "
    "loaded as the pinned 2026.9.6) called api.on with a hook name 2026.8 removed "
    "(before_agent_start, deactivate, subagent_spawning): those versions ignore it as an "
    "unknown hook, and so does the gateway.",
    "Use the replacement the message names (before_prompt_build, gateway_stop), or declare the "
    "OpenClaw the plugin was built for (package.json peerDependencies.openclaw).",
)
OPENCLAW_CONVERSATION_ACCESS = define_code(
    "openclaw.conversation_access",
    WARNING,
    "A conversation hook (before_prompt_build, agent_end, llm_input, ...) was not registered: "
    "the plugin has no conversation_access grant (OpenClaw's allowConversationAccess).",
    "`gateway permissions ID conversation_access` grants it.",
)
OPENCLAW_TOOL_CONTRACT = define_code(
    "openclaw.tool_contract",
    WARNING,
    "A tool its manifest's contracts.tools does not list (or the manifest has no "
    "contracts.tools): OpenClaw 2026.5.2 and later refuse it (the OpenClaw column of `gateway "
    "audit`); the gateway registers it, with this warning, only for a plugin declaring an "
    "older OpenClaw, which accepted it.",
    "Add the tool name to contracts.tools in openclaw.plugin.json.",
)
OPENCLAW_TOOL_UNDECLARED = define_code(
    "openclaw.tool_undeclared",
    ERROR,
    "A plugin loaded as OpenClaw 2026.5.2 or later (it declares such a version in "
    "compat.pluginApi, compat.minGatewayVersion, install.minHostVersion or its openclaw peer "
    "range, or declares none and is loaded as the pinned 2026.9.6) registered a tool its "
    "manifest's contracts.tools does not list (or the manifest has no contracts.tools); those "
    "OpenClaw versions refuse it, and so does the gateway: the tool is not registered.",
    'List the tool in openclaw.plugin.json: "contracts": {"tools": ["NAME", ...]} (the message '
    "names the tool).",
    refusal=True,
)
OPENCLAW_HOST_RULES = define_code(
    "openclaw.host_rules",
    INFO,
    "The plugin declares OpenClaw >= 2026.10; the gateway applies the newer hosts' rules to it "
    "(the SDK subpaths they removed are refused) while loading it with the 2026.9.6 SDK it pins.",
    "Nothing to do; a plugin built for 2026.9 keeps the 2026.9 behaviour.",
)
OPENCLAW_TRUSTED_CONTRACT = define_code(
    "openclaw.trusted_contract",
    WARNING,
    "The manifest declares a trusted contract (contracts.agentToolResultMiddleware or "
    "contracts.trustedToolPolicies): OpenClaw runs such tool-result middleware or trusted tool "
    "policies for bundled plugins, or for a plugin that declares them and is explicitly "
    "enabled; the gateway runs neither.",
    "Nothing runs of it in the gateway; the plugin's other contributions are unaffected.",
)
OPENCLAW_SURFACE_REMOVED = define_code(
    "openclaw.surface_removed",
    WARNING,
    "The plugin's code uses an SDK surface OpenClaw's compatibility registry lists as removed "
    "in a release line (gateway audit: the plugin does not work with that line).",
    "Move to the replacement the audit names (OpenClaw's plugin SDK migration guide).",
)
OPENCLAW_TOOL_OPTIONAL = define_code(
    "openclaw.tool_optional",
    INFO,
    "An optional tool is not exposed until the plugin's gateway config allows it.",
    "`gateway config ID '$gateway.tools.allow' '[\"TOOL\"]'` (the tool name, the plugin id or "
    '"group:plugins").',
)
OPENCLAW_TOOL_CONFLICT = define_code(
    "openclaw.tool_conflict",
    WARNING,
    "Two OpenClaw plugins of one sidecar registered the same tool name; the first keeps it.",
    "Rename one, or run them in separate sidecars.",
)
OPENCLAW_REGISTRATION_INVALID = define_code(
    "openclaw.registration_invalid",
    ERROR,
    "A malformed registration was skipped: a tool without name, execute or parameters; a "
    "command with a bad name, no description or no handler; a hook without a handler.",
    "Fix the registration named in the message; the plugin's other registrations stand.",
    refusal=True,
)
OPENCLAW_COMMAND_RESERVED = define_code(
    "openclaw.command_reserved",
    WARNING,
    "A plugin command uses a name OpenClaw reserves for its own commands (help, status, new, "
    "compact, model, ...); skipped.",
    "Rename the command.",
)
OPENCLAW_COMMAND_CONFLICT = define_code(
    "openclaw.command_conflict",
    ERROR,
    "Two OpenClaw plugins of one sidecar registered the same command; the later is skipped.",
    "Rename one of the commands.",
    refusal=True,
)
OPENCLAW_COMMAND_ALIAS = define_code(
    "openclaw.command_alias",
    INFO,
    "A manifest commandAliases entry names no registered command (OpenClaw's aliases are "
    "diagnostics only, often for a CLI command); nothing of that name runs here.",
    "Nothing to fix.",
)
OPENCLAW_ID_MISMATCH = define_code(
    "openclaw.id_mismatch",
    WARNING,
    "The entry's definition id differs from the manifest id; OpenClaw 2026.9 refuses the "
    "plugin, the gateway loads it under the manifest id.",
    "Make the two ids equal.",
)

# What OpenClaw's host accepts (gateway audit; _audit.py)
OPENCLAW_CONTRIBUTION_METADATA_ONLY = define_code(
    "openclaw.contribution_metadata_only",
    INFO,
    "A declared OpenClaw channel, provider, skill, CLI command, MCP server or contract is "
    "listed; nothing of it runs in a headless gateway.",
    "Nothing to do if metadata is all you need.",
)
OPENCLAW_ENTRY_TYPESCRIPT = define_code(
    "openclaw.entry_typescript",
    INFO,
    "The plugin ships its entry as TypeScript only: OpenClaw >= 2026.8 loads TypeScript "
    "entries only from local or workspace paths, and an npm-managed install needs built JS.",
    "Publish a built `runtimeExtensions` entry; the gateway loads the TypeScript either way.",
)
OPENCLAW_MEMORY_SLOT = define_code(
    "openclaw.memory_slot",
    INFO,
    "A `kind: memory` plugin: OpenClaw loads it only when `plugins.slots.memory` selects it "
    "(the default slot is memory-core); the gateway runs it without slot semantics.",
    "Select it as the memory slot in OpenClaw's config.",
)

OPENCLAW_ENTRY_FAILED_IN_HOST = define_code(
    "openclaw.entry_failed_in_host",
    ERROR,
    "An OpenClaw plugin's entry failed to load under the loader of the OpenClaw version it "
    "declares (native require for 2026.8 and later or no declaration, native then jiti for "
    "2026.5-2026.7, jiti for earlier): that OpenClaw fails it with the same error, so the "
    "failure is the plugin's, not the gateway's; nothing it would register is there.",
    "Read the error: the plugin needs a fix upstream, or a declaration of the OpenClaw it "
    "was built for (package.json peerDependencies.openclaw or openclaw.compat.pluginApi).",
)
OPENCLAW_LOADED_BY_TRANSFORM = define_code(
    "openclaw.loaded_by_transform",
    INFO,
    "A plugin declaring OpenClaw 2026.5-2026.7 failed to load natively and loaded through "
    "jiti's transform, as those hosts' loader falls back; OpenClaw 2026.9 refuses it.",
    "Nothing to do while it targets those hosts; the error named is what 2026.9 would say.",
)
OPENCLAW_HOST_LOADER = define_code(
    "openclaw.host_loader",
    INFO,
    "The plugin declares an OpenClaw older than 2026.8, so the gateway loads its entry as that "
    "OpenClaw's loader does (jiti's transform, or native require with a jiti fallback).",
    "Nothing to do; a plugin declaring 2026.8 or later (or nothing) is loaded natively.",
)
OPENCLAW_PRECOMPILE_FAILED = define_code(
    "openclaw.precompile_failed",
    WARNING,
    "What jiti loads of an OpenClaw plugin (its TypeScript, or a bundle OpenClaw before 2026.5 "
    "transforms) could not be compiled when it was installed (no Node sidecar or OpenClaw "
    "SDK set up yet, a module that does not compile, a time limit); the install stands, and "
    "its first start compiles it instead (slower).",
    "Run `gateway setup --openclaw` if the SDK is not set up; a module that does not compile "
    "fails to load at start with openclaw.load_failed.",
)
