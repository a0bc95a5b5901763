"""Every diagnostic code the adapters emit, declared in one place.

``adapters/CODES.md`` lists the same codes; a test keeps the two in step.
"""

from __future__ import annotations

from gateway.base import DiagnosticCode, Severity, define_code

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

# --- any ecosystem: finding and reading files -------------------------------------------

NOT_DETECTED = define_code(
    "package.not_detected",
    ERROR,
    "No adapter recognises the directory as a package root.",
    "Check the path; a package needs extension.json, tool.json, SKILL.md, "
    "nanobot.extension.json, openclaw.plugin.json, .claude-plugin/plugin.json, an Agent "
    "Plugins plugin.json, or package.json with a pi/nu/openclaw key.",
)
ROOT_INVALID = define_code(
    "package.root_invalid",
    ERROR,
    "The package path does not exist or is not a directory.",
    "Pass the directory that holds the package's manifest.",
)
UNKNOWN_ECOSYSTEM = define_code(
    "package.unknown_ecosystem",
    ERROR,
    "An ecosystem was requested that no adapter handles.",
    "Use one of: agent-plugins, nanobot, openclaw, pi, nu, claude, nimlet.",
)
ADAPTER_FAILED = define_code(
    "package.adapter_failed",
    ERROR,
    "An adapter raised while reading metadata (a gateway bug).",
    "Report it with the package; the entry is incomplete.",
)
FILE_MISSING = define_code(
    "package.file_missing",
    ERROR,
    "A metadata file the package needs is absent.",
    "Add the file, or fix the path that names it.",
)
FILE_UNREADABLE = define_code(
    "package.file_unreadable",
    ERROR,
    "A metadata file cannot be read: permission, not a regular file, too large, not UTF-8.",
    "Make the file a readable UTF-8 text file of reasonable size.",
)
JSON_INVALID = define_code(
    "package.json_invalid",
    ERROR,
    "A JSON metadata file does not parse.",
    "Fix the syntax at the reported line and column.",
)
YAML_INVALID = define_code(
    "package.yaml_invalid",
    ERROR,
    "A YAML metadata file does not parse.",
    "Fix the syntax at the reported position.",
)
NOT_AN_OBJECT = define_code(
    "package.not_an_object",
    ERROR,
    "A manifest's top level is not a JSON object / YAML mapping.",
    "Make the top level an object of fields.",
)
PATH_ESCAPE = define_code(
    "package.path_escape",
    ERROR,
    "A declared path is absolute or leaves the package root (.., or a symlink outside).",
    "Use paths relative to the package root that stay inside it.",
)
ENTRY_NOT_FOUND = define_code(
    "package.entry_not_found",
    WARNING,
    "A declared entry, resource path or glob matches nothing in the package.",
    "Fix the path, or ship the file in the package.",
)
NAME_MISSING = define_code(
    "package.name_missing",
    WARNING,
    "package.json has no usable name; the directory name is used as the package id.",
    "Give package.json a name.",
)
FIELD_INVALID = define_code(
    "package.field_invalid",
    WARNING,
    "A package.json field the gateway reads (version, description, dependencies, ...) "
    "has the wrong type; it is ignored.",
    "Fix the field's type (npm's package.json rules).",
)
SCAN_TRUNCATED = define_code(
    "package.scan_truncated",
    WARNING,
    "The package has more files than the inspection scans; later files were not looked at.",
    "Narrow the manifest's globs or directories.",
)
SKILL_INVALID = define_code(
    "package.skill_invalid",
    WARNING,
    "A SKILL.md or prompt template has unparseable frontmatter or no description.",
    "Give it YAML frontmatter with name and description.",
)

# --- nimlet -------------------------------------------------------------------------------

NIMLET_MANIFEST_INVALID = define_code(
    "nimlet.manifest_invalid",
    ERROR,
    "extension.json lacks name or command, or a field has the wrong type.",
    "name: string; command: non-empty array of strings; "
    "response_timeout_seconds: positive integer or null.",
)
NIMLET_MANIFEST_UNKNOWN_FIELD = define_code(
    "nimlet.manifest_unknown_field",
    WARNING,
    "extension.json or tool.json has a field nimlet does not read (likely a typo).",
    "Remove or correct the field.",
)
NIMLET_RUNTIME_ONLY = define_code(
    "nimlet.contributions_runtime_only",
    INFO,
    "A nimlet extension declares no contributions; its tools, commands and hooks "
    "arrive at runtime in `register`.",
    "Nothing to fix; audit a running instance to see them.",
)
NIMLET_TOOL_INVALID = define_code(
    "nimlet.tool_invalid",
    ERROR,
    "tool.json lacks a required field or a field has the wrong type.",
    "name, description: strings; command: non-empty string array; input_schema: object; "
    "timeout_seconds: integer >= 1.",
)
NIMLET_TOOL_BUILTIN = define_code(
    "nimlet.tool_builtin_name",
    WARNING,
    "A tool uses a nimlet built-in name; nimlet skips it.",
    "Rename the tool.",
)

# --- Nu -----------------------------------------------------------------------------------

NU_MANIFEST_INVALID = define_code(
    "nu.manifest_invalid",
    ERROR,
    "package.json `nu` is not an object, lacks namespace, or a key has the wrong type.",
    "Follow the Nu package format: namespace string; tools/skills/extensions/secrets/"
    "config string arrays; policy string; client object.",
)
NU_MANIFEST_UNKNOWN_FIELD = define_code(
    "nu.manifest_unknown_field",
    WARNING,
    "package.json `nu` or a tool.yaml has a key the Nu format does not define.",
    "Remove or correct the key.",
)
NU_TOOL_INVALID = define_code(
    "nu.tool_invalid",
    ERROR,
    "A tool.yaml lacks a required field or a field has the wrong type.",
    "name, description, entry: strings; version: positive integer; args_schema: object; "
    "idempotency: safe_to_retry | at_most_once; secrets: string array.",
)
NU_TOOL_NOT_NAMESPACED = define_code(
    "nu.tool_name_not_namespaced",
    WARNING,
    "A tool name does not start with `<namespace>__`; the tool is refused (the rest of the "
    "package is not affected).",
    "Rename the tool to `<namespace>__<name>`.",
)
NU_CLIENT_TOOL_UNKNOWN = define_code(
    "nu.client_tool_unknown",
    WARNING,
    "client.tools configures display for a tool the package does not declare.",
    "Fix the tool name or remove the entry.",
)
NU_POLICY_INVALID = define_code(
    "nu.policy_invalid",
    WARNING,
    "The suggested policy file is not a mapping with a rules list (rebuno grammar).",
    "Fix policy.yaml, or drop the policy key.",
)
NU_RUNTIME_ONLY = define_code(
    "nu.contributions_runtime_only",
    INFO,
    "Nu extension modules register hooks, channels and services at runtime.",
    "Nothing to fix; audit a running instance to see them.",
)
NU_IMPORT_OUTSIDE = define_code(
    "nu.import_outside_package",
    ERROR,
    "A tool imports something outside its package (a relative path leaving the root, a "
    "module that is not installed in the package); Nu bundles only what stays inside. The "
    "tool is refused, the rest of the package installs.",
    "Import only files of the package and npm packages in its dependencies (installed in "
    "its node_modules).",
)
NU_BUNDLE_FAILED = define_code(
    "nu.bundle_failed",
    ERROR,
    "A tool could not be bundled at install (a syntax error, an import that does not "
    "resolve, an entry esbuild cannot read); the tool is refused, the rest of the package "
    "installs.",
    "Fix the error the message quotes, then install the package again.",
)
NU_BUNDLER_UNAVAILABLE = define_code(
    "nu.bundler_unavailable",
    ERROR,
    "The package's tools could not be bundled: the Node sidecar's modules (esbuild) are "
    "not installed, or no Node new enough was found. The tools are refused.",
    "Run `gateway setup`, then install the package again.",
)
NU_TOOL_VERSION_NOT_BUMPED = define_code(
    "nu.tool_version_not_bumped",
    WARNING,
    "An update changed a tool's code (or something it imports) but not its `version`; the "
    "tool is kept at its previous bundle (a tool needs a higher version whenever its code "
    "changes).",
    "Raise the tool's `version` in its tool.yaml and install the package again.",
)
NU_BUNDLES_REPLACED = define_code(
    "nu.bundles_replaced",
    WARNING,
    "The package ships a `.nu-bundles` folder, where the gateway keeps the bundles it "
    "builds at install; the shipped one was discarded.",
    "Remove `.nu-bundles` from the package.",
)
NU_TOOL_NOT_BUNDLED = define_code(
    "nu.tool_not_bundled",
    WARNING,
    "A tool has no bundle: the package was not installed with `gateway install` (or by a "
    "gateway without Nu tools); it is not offered.",
    "Install the package again with `gateway install`.",
)
NU_SECRET_UNSET = define_code(
    "nu.secret_unset",
    WARNING,
    "A secret a tool or the package declares has no value; the tools that need it fail "
    "each call saying so, and `nu.secret()` returns undefined for it.",
    "`gateway secret set ID NAME` (the value is read from stdin or a prompt).",
)
NU_UNSUPPORTED_API = define_code(
    "nu.unsupported_api",
    WARNING,
    "A Nu extension called a registration a headless host cannot honour (registerChannel, "
    "registerMemoryStore, registerBrowserProvider, registerSandbox, or a watcher without "
    "`start`); it is recorded, never faked.",
    "Nothing to fix for the gateway; the rest of the extension runs.",
)
NU_LOAD_FAILED = define_code(
    "nu.load_failed",
    ERROR,
    "A Nu extension module could not be loaded (import error, no default export function, "
    "or its default export threw); nothing of it runs.",
    "Fix the module; the message quotes the error.",
)
NU_EVENT_UNKNOWN = define_code(
    "nu.event_unknown",
    WARNING,
    "A Nu extension subscribed to an event Nu does not have (its hooks are "
    "before_agent_start, input, turn_end and tool_execution_end); its handler never runs.",
    "Use one of Nu's four hooks.",
)

# --- nanobot ------------------------------------------------------------------------------

NANOBOT_UNKNOWN_FIELD = define_code(
    "nanobot.manifest_unknown_field",
    ERROR,
    "nanobot.extension.json has a field the format does not define (any level).",
    "Remove or correct the named field; nanobot rejects unknown fields.",
)
NANOBOT_MANIFEST_INVALID = define_code(
    "nanobot.manifest_invalid",
    ERROR,
    "nanobot.extension.json misses a required field or a value is invalid.",
    "Fix the named field per the nanobot manifest reference.",
)
NANOBOT_DUPLICATE = define_code(
    "nanobot.manifest_duplicate",
    ERROR,
    "A contribution (kind, name), dependency (kind, name), permission or entry repeats.",
    "Declare each once.",
)
NANOBOT_ENTRY_OVERRIDDEN = define_code(
    "nanobot.entry_overridden",
    INFO,
    "Both entry and entries are set; entries take precedence.",
    "Drop `entry` to avoid the ambiguity.",
)
NANOBOT_REASON_MISSING = define_code(
    "nanobot.permission_reason_missing",
    WARNING,
    "A permission has no reason for the user to evaluate.",
    "Add a concrete reason.",
)
NANOBOT_SPECIFIER_IGNORED = define_code(
    "nanobot.dependency_specifier_ignored",
    WARNING,
    "An executable or environment dependency has a version specifier, which is never checked.",
    "Remove the specifier.",
)

NANOBOT_CHANNEL_PLUGIN = define_code(
    "nanobot.channel_plugin",
    ERROR,
    "A published nanobot plugin registers through the `nanobot.channels` entry point: it is a "
    "channel plugin (a BaseChannel nanobot's ChannelManager starts to connect a chat "
    "platform), and a headless host runs no channels.",
    "Nothing to install here; run it in nanobot itself. Tools, commands and hooks for the "
    "gateway come as a nanobot.extension.json extension.",
)

# --- Pi -----------------------------------------------------------------------------------

PI_MANIFEST_INVALID = define_code(
    "pi.manifest_invalid",
    ERROR,
    "package.json `pi` is not an object or a resource key is not an array of strings.",
    "Make extensions/skills/prompts/themes arrays of path strings.",
)
PI_MANIFEST_UNKNOWN_KEY = define_code(
    "pi.manifest_unknown_key",
    INFO,
    "package.json `pi` has a key Pi does not read (Pi ignores it).",
    "Check for a typo such as `extension` for `extensions`.",
)
PI_RUNTIME_ONLY = define_code(
    "pi.contributions_runtime_only",
    INFO,
    "Pi extensions register tools, commands and hooks at runtime; only skills, prompts "
    "and themes are known statically.",
    "Nothing to fix; audit a running instance to see them.",
)
PI_HOST_PACKAGE_BUNDLED = define_code(
    "pi.host_package_bundled",
    WARNING,
    "A Pi host package (pi-ai, pi-coding-agent, pi-tui, typebox, ...) is in dependencies.",
    'List it in peerDependencies as "*"; the host supplies it.',
)
PI_API_REMOVED = define_code(
    "pi.api_removed",
    WARNING,
    "The package's code uses a Pi API (an event, a method, an import) that a Pi release removed "
    "(gateway audit: the package does not work with Pi from that release on).",
    "Move to the replacement the audit names (Pi's CHANGELOG for that release).",
)
PI_HOST_VERSION_MISMATCH = define_code(
    "pi.host_version_mismatch",
    WARNING,
    "A Pi package's peerDependencies range for a Pi host package (pi-coding-agent, pi-ai, "
    "pi-tui, pi-agent-core, TypeBox; either scope) excludes the version the gateway runs it "
    "with (the one pinned in sidecars/package-lock.json; old names map onto it, as in Pi).",
    "Check the package works with that version, or use a release of it built for it.",
    lasting=True,
)
PI_HOST_VERSION_UNCHECKED = define_code(
    "pi.host_version_unchecked",
    INFO,
    "A Pi package's peerDependencies range for a Pi host package cannot be read as an npm "
    "version range, so it is not checked.",
    "Nothing to do, unless the package needs a specific host version.",
)
PI_PRECOMPILE_FAILED = define_code(
    "pi.precompile_failed",
    WARNING,
    "A Pi package's TypeScript could not be compiled when it was installed (no Node sidecar "
    "set up yet, a module that does not compile, a time limit); the install stands, and its "
    "first start compiles it instead (slower).",
    "Run `gateway setup` if the sidecar is not set up; a module that does not compile fails "
    "to load at start with pi.load_failed.",
)
PI_NO_RESOURCES = define_code(
    "pi.no_resources",
    WARNING,
    "The Pi package resolves to no extensions, skills, prompts or themes.",
    "Add a `pi` manifest or the convention directories.",
)

# --- OpenClaw -----------------------------------------------------------------------------

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

# --- Node sidecar (runtime): reported by sidecars/ (lib/diagnostics.mjs lists them) -------

SIDECAR_NAME_CONFLICT = define_code(
    "sidecar.name_conflict",
    WARNING,
    "Two hosts of one Node sidecar (its Pi and its OpenClaw packages) registered the same "
    "tool or command name; the host whose package comes first in the sidecar's spec keeps it.",
    "Rename one, or run the packages in separate sidecars (the default).",
)

# --- Pi host of the Node sidecar (runtime): reported in register.gateway ----------------

PI_UNSUPPORTED_API = define_code(
    "pi.unsupported_api",
    WARNING,
    "A Pi package used an API a headless host cannot honour (renderers, shortcuts, TUI "
    "components, providers, model/thinking control, MCP servers); the call is recorded, "
    "nothing else happens.",
    "Nothing to fix for the gateway; the rest of the package runs.",
)
PI_TOOL_CONFLICT = define_code(
    "pi.tool_conflict",
    WARNING,
    "Two Pi extensions in one sidecar registered the same tool name; the first "
    "registration in load order wins (Pi's rule).",
    "Rename one of the tools, or run the packages in separate sidecars.",
)
PI_COMMAND_RENAMED = define_code(
    "pi.command_renamed",
    INFO,
    "A Pi command name was registered more than once; each gets a load-order suffix "
    "(/name:1, /name:2), as in Pi.",
    "Invoke the suffixed name.",
)
PI_EVENT_UNMAPPED = define_code(
    "pi.event_unmapped",
    WARNING,
    "A Pi event handler subscribes to an event this host does not dispatch; it never runs.",
    "See docs/pi.md for the event mapping.",
)
PI_LEGACY_EVENT_TRANSLATED = define_code(
    "pi.legacy_event_translated",
    INFO,
    "A Pi event handler subscribes to a legacy event Pi removed (session_switch, "
    "session_fork: removed in pi 0.65, still kept by pi's loader); the gateway translates it "
    "to its replacement (session_start with a reason) and runs it there.",
    "Nothing; to follow current Pi, listen to session_start and read its `reason`.",
)
PI_HANDLER_FAILED = define_code(
    "pi.handler_failed",
    WARNING,
    "A Pi extension's event handler threw. As in Pi, the error is reported and the event "
    "goes on with the next handler (a tool_call handler that throws blocks the tool instead). "
    "Reported once per extension, event and message (update.gateway.diagnostics).",
    "Read the message (the stack is in the package's log); fix the handler or report it.",
)
PI_USER_MESSAGE_DROPPED = define_code(
    "pi.user_message_dropped",
    WARNING,
    "A Pi extension called pi.sendUserMessage while the agent was busy (a tool call, an event "
    "during a run; since Pi 1.2 also before_agent_start) without deliverAs. Pi fails such a "
    'call ("Agent is already processing"); the gateway drops the message and says so.',
    'Pass deliverAs: "steer" or "followUp" to queue it for the running turn.',
)
PI_LOAD_FAILED = define_code(
    "pi.load_failed",
    ERROR,
    "A Pi extension entry failed to load (import error, no factory, or the factory threw); "
    "its registrations were rolled back, the package's other entries still load.",
    "Read the message; check the package's dependencies are installed.",
)

# --- OpenClaw host of the Node sidecar (runtime): reported in register.gateway, or at ----
# status by the launch planner (config_required, plugin_id_conflict) -----------------------

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
OPENCLAW_SDK_NOT_INSTALLED = define_code(
    "openclaw.sdk_not_installed",
    ERROR,
    "The OpenClaw SDK (the real `openclaw` package, whose SDK OpenClaw plugins import) is not "
    "installed: `gateway setup` installs the Pi and Nu runtimes only, so an OpenClaw plugin "
    "(or a nanobot package with `runtime: openclaw`) is refused instead of downloading it "
    "unasked.",
    "Run `gateway setup --openclaw`; it says how much it downloads before it does.",
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
    "A plugin registered a typed hook that has no canonical event in the gateway (model "
    "resolution, channels, subagents, cron, heartbeats, Skill Workshop, ...); it never runs.",
    "See docs/openclaw.md for the hook mapping.",
)
OPENCLAW_HOOK_UNKNOWN = define_code(
    "openclaw.hook_unknown",
    WARNING,
    "api.on was called with a name that is not an OpenClaw typed hook; ignored, as OpenClaw "
    "ignores it.",
    "Check the hook name against OpenClaw's catalogue.",
)
OPENCLAW_LEGACY_API = define_code(
    "openclaw.legacy_api",
    INFO,
    "A plugin uses a legacy API (an `activate` export, the before_agent_start or deactivate "
    "hooks, removed in OpenClaw 2026.8); it runs through its alias.",
    "Nothing to fix; newer plugins use register, before_prompt_build and gateway_stop.",
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
    "A tool was registered that the manifest's contracts.tools does not list (or the "
    "manifest has no contracts.tools); OpenClaw >= 2026.5 rejects it, the gateway registers it.",
    "Add the tool name to contracts.tools in openclaw.plugin.json.",
)
OPENCLAW_TOOL_UNDECLARED = define_code(
    "openclaw.tool_undeclared",
    ERROR,
    "A plugin that declares OpenClaw >= 2026.10 (compat.pluginApi, compat.minGatewayVersion, "
    "install.minHostVersion or its openclaw peer range) registered a tool its manifest's "
    "contracts.tools does not list; the newer hosts refuse it, and so does the gateway.",
    "Add the tool name to contracts.tools in openclaw.plugin.json.",
)
OPENCLAW_HOST_RULES = define_code(
    "openclaw.host_rules",
    INFO,
    "The plugin declares OpenClaw >= 2026.10; the gateway applies the newer hosts' rules to it "
    "(an undeclared tool refused, not warned) while loading it with the 2026.9.6 SDK it pins.",
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

# --- nanobot Python sidecar (runtime): reported by adapters/nanobot/sidecar in -----------
# register.gateway.diagnostics (the sidecar repeats these strings in its _diagnostics.py).

NANOBOT_REGISTER_FAILED = define_code(
    "nanobot.register_failed",
    ERROR,
    "A nanobot package could not be loaded: its entry module failed to import, the entry "
    "attribute is missing, or register(api) raised (sys.exit included); everything it "
    "registered was rolled back, the sidecar's other packages are unaffected.",
    "Read the message and the package log (GATEWAY_HOME/logs) for the traceback.",
)
NANOBOT_REGISTER_RETURNED_VALUE = define_code(
    "nanobot.register_returned_value",
    ERROR,
    "register(api) returned something other than None (an `async def register` returns a "
    "coroutine); its registrations were rolled back.",
    "Make register a plain synchronous function that returns nothing.",
)
NANOBOT_UNDECLARED_REGISTRATION = define_code(
    "nanobot.undeclared_registration",
    ERROR,
    "A nanobot package called register_tool / register_command / register_hook_factory for "
    "a contribution its nanobot.extension.json does not declare; the call was refused.",
    "Declare the tool, command or hook in the manifest's contributions, or stop registering it.",
)
NANOBOT_REGISTRATION_INVALID = define_code(
    "nanobot.registration_invalid",
    ERROR,
    "A registration the protocol cannot carry: a tool without name/description/parameters/"
    "execute, a bad tool name or schema, a handler or factory that is not callable.",
    "Fix the tool object or handler named in the message.",
)
NANOBOT_REGISTRATION_CONFLICT = define_code(
    "nanobot.registration_conflict",
    WARNING,
    "Two packages in one sidecar registered the same tool or command; the first keeps it "
    "unless the second declares `replaces` with the first's id.",
    "Rename one, or declare the replacement in the manifest.",
)
NANOBOT_HOOK_POINT_UNMAPPED = define_code(
    "nanobot.hook_point_unmapped",
    WARNING,
    "A nanobot hook implements an AgentHook point the gateway has no event for (streaming, "
    "per-iteration, reasoning, finalize_content); it never fires.",
    "See docs/nanobot.md for the points that map to gateway events.",
)
NANOBOT_HOOK_FACTORY_FAILED = define_code(
    "nanobot.hook_factory_failed",
    WARNING,
    "A hook factory raised when the sidecar called it at registration; it is not registered.",
    "Make the factory work with the turn context described in docs/nanobot.md.",
)
NANOBOT_CONTRIBUTION_METADATA_ONLY = define_code(
    "nanobot.contribution_metadata_only",
    INFO,
    "A declared nanobot contribution the gateway cannot run (channel, llm_provider, "
    "transcription / image generation / web search provider, webui, skill, mcp_server) is "
    "listed but never executed.",
    "Nothing to fix; the package's tools, commands and hooks still run.",
)
NANOBOT_CONFIG_INVALID = define_code(
    "nanobot.config_invalid",
    ERROR,
    "A package's configuration file (--config-file ID=PATH; GATEWAY_HOME/config/<id>.json "
    "in gateway runs) cannot be read, is not JSON, or is not an object; the package gets an "
    "empty api.config.",
    "Make the file one JSON object, readable by you.",
)

ALL_CODES: tuple[DiagnosticCode, ...] = tuple(
    value for value in list(globals().values()) if isinstance(value, DiagnosticCode)
)

PI_PROJECT_EXTENSIONS_UNTRUSTED = define_code(
    "pi.project_extensions_untrusted",
    INFO,
    "The workspace's `.pi/extensions` holds Pi extensions, but the workspace is not trusted, "
    "so they were not loaded (as pi does before project trust).",
    "`gateway trust DIR`, or `--trust` for one run.",
)

# --- what each ecosystem's host accepts (gateway audit; adapters/*/_audit.py) ------------

PI_EVENT_REMOVED = define_code(
    "pi.event_removed",
    WARNING,
    "An audit found a handler for a Pi event removed in Pi 0.65 (session_switch, "
    "session_fork, session_directory): current Pi never fires it.",
    "Use session_start and its `reason` instead.",
)
PI_EVENT_UNKNOWN = define_code(
    "pi.event_unknown",
    WARNING,
    "An audit found a handler for a name that is not a Pi 1.6 event; Pi accepts it and "
    "never fires it.",
    "Check the event name against Pi's event list.",
)
PI_API_PARTIAL = define_code(
    "pi.api_partial",
    INFO,
    "A Pi API the gateway's Pi host honours only in part (sendMessage outside a command, "
    "session names, host actions such as newSession for the embedding agent).",
    "See docs/pi.md for what each API does in the gateway.",
)
PI_RESOURCE_METADATA_ONLY = define_code(
    "pi.resource_metadata_only",
    INFO,
    "A Pi package's themes are listed by `gateway inspect` only: they style Pi's terminal UI, "
    "which a headless gateway does not draw. (Its skills and prompt templates are served "
    "by the gateway.)",
    "Nothing to do; a theme has no effect outside Pi's TUI.",
)
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
NANOBOT_HOST_OBSERVE_ONLY = define_code(
    "nanobot.host_observe_only",
    INFO,
    "nanobot's compatibility layer delivers a Pi or OpenClaw lifecycle event as a serialized "
    "observation: the handler runs but cannot change nanobot's context.",
    "Nothing to do; use the gateway where the hook must transform.",
)
NANOBOT_HOST_UNSUPPORTED = define_code(
    "nanobot.host_unsupported",
    INFO,
    "nanobot's compatibility matrix lists this Pi or OpenClaw capability as unsupported, or "
    "does not list it (session trees, TUI, model control, host services, resources).",
    "Nothing to do; the matrix describes nanobot's current adapter.",
)
NANOBOT_GATEWAY_ONLY_API = define_code(
    "nanobot.gateway_only_api",
    WARNING,
    "The code uses an addition of the gateway's nanobot API that nanobot itself does not have "
    "(e.g. register_hook_factory's name= argument, api.config, api.data_dir): the package "
    "runs in the gateway and fails in nanobot.",
    "Use nanobot's API only (register_hook_factory(factory); name the factory after the "
    "manifest's hook), or declare that the package needs the gateway.",
)
NANOBOT_HOST_NOT_DISCOVERABLE = define_code(
    "nanobot.host_not_discoverable",
    INFO,
    "nanobot installs a Pi package only with the `pi-package` keyword and `pi.extensions`, "
    "an OpenClaw plugin only with `openclaw-plugin` and `openclaw.extensions` or "
    "`runtimeExtensions`; this package lacks them.",
    "Add the keyword and the manifest key, or write a nanobot.extension.json for it.",
)
NU_HOOK_UNKNOWN = define_code(
    "nu.hook_unknown",
    INFO,
    "An audit found a Nu extension hook that is not one of Nu's four (before_agent_start, "
    "input, turn_end, tool_execution_end).",
    "Check the hook name against the Nu document.",
)

# --- Claude Code plugins (.claude-plugin/plugin.json) -------------------------------------

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
CLAUDE_COMPONENT_UNSUPPORTED = define_code(
    "claude.component_unsupported",
    WARNING,
    "The plugin ships a component a headless host cannot run (subagents in agents/, output "
    "styles, LSP servers, status lines, monitors, http/sse MCP servers); it is listed, never "
    "run.",
    "Nothing to fix; the plugin's commands, skills, command hooks and stdio MCP servers "
    "still work.",
)
CLAUDE_COMMAND_FIELD_IGNORED = define_code(
    "claude.command_field_ignored",
    INFO,
    "A slash command uses something the gateway does not apply when it expands the command: "
    "`allowed-tools`, `model`, `disable-model-invocation` front matter, `!`-prefixed shell "
    "commands (the text is kept as written, never run); a command marked "
    "`user-invocable: false` is not offered.",
    "Nothing to fix; the gateway's own permission prompts and model apply instead.",
)
CLAUDE_HOOKS_INVALID = define_code(
    "claude.hooks_invalid",
    ERROR,
    "An entry of the plugin's hooks.json is malformed (not an object, no `hooks` list, no "
    "`command`, a bad timeout, a matcher that is not a valid regular expression); that "
    "entry is skipped, the others load.",
    "Fix the entry named in the message (Claude Code's hooks reference).",
)
CLAUDE_HOOK_EVENT_UNSUPPORTED = define_code(
    "claude.hook_event_unsupported",
    WARNING,
    "hooks.json subscribes to a Claude Code event a headless host has no counterpart for "
    "(Stop, SubagentStop, Notification, PermissionRequest, …) or to an unknown event; those "
    "hooks never run.",
    "Nothing to fix for the gateway; see docs/claude-plugins.md for the events that map.",
)
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
CLAUDE_MCP_INVALID = define_code(
    "claude.mcp_invalid",
    ERROR,
    "The plugin's .mcp.json (or plugin.json `mcpServers`) is malformed: not an object, a "
    "server without `command` or `url`, `args` not a list of strings, `env` not an object "
    "of strings; that server is skipped.",
    "Fix the server entry named in the message.",
)

# --- Agent Plugins 1.0 (plugin.json + skills/ + mcp.json) -------------------------------

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
)
AGENT_PLUGINS_SERVER_INVALID = define_code(
    "agent_plugins.server_invalid",
    WARNING,
    "One server entry of mcp.json breaks the schema (unknown field, command not one token, "
    "PLUGIN_ROOT/PLUGIN_DATA in env, cwd outside the plugin or its data, a ./ command "
    "missing); that server is skipped, the others are read.",
    "Fix the named server's entry.",
)
AGENT_PLUGINS_REMOTE_SERVER = define_code(
    "agent_plugins.remote_server_unsupported",
    WARNING,
    "A streamable-http or sse MCP server of an Agent Plugin is listed but not connected: the "
    "plugin host is a confined process without network by default.",
    "Use the server from a client that connects to remote servers, or ship a stdio server.",
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
    "launch; that server will fail to start.",
    "Install the program (or put it on PATH), or ship the server inside the plugin (./...).",
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
