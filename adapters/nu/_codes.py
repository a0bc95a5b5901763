"""The diagnostic codes of Nu packages: the manifest and its tools, bundling at install,
per-call runs, what ``gateway audit`` says of Nu's host, and what the Node sidecar's Nu
host reports (``sidecars/lib/diagnostics.mjs`` lists the codes it emits).
"""

from __future__ import annotations

from gateway.base import Severity, define_code

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

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

# What Nu's host accepts (gateway audit; _audit.py)
NU_HOOK_UNKNOWN = define_code(
    "nu.hook_unknown",
    INFO,
    "An audit found a Nu extension hook that is not one of Nu's four (before_agent_start, "
    "input, turn_end, tool_execution_end).",
    "Check the hook name against the Nu document.",
)
