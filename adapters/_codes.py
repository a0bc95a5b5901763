"""The diagnostic codes several adapters raise: finding and reading a package's files, the
Node sidecar they share, the hooks.json files both the Claude Code and Gemini CLI adapters and
the plugin host read, a remote MCP server, and the audit answers of their host knowledge.

Each adapter declares the codes only it raises in its own ``_codes.py``.
"""

from __future__ import annotations

from gateway.base import DiagnosticCode, Severity, define_code, find_code

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

# Finding and reading a package's files
NOT_DETECTED = define_code(
    "package.not_detected",
    ERROR,
    "No adapter recognises the directory as a package root.",
    "Check the path; a package needs extension.json, tool.json, SKILL.md, "
    "nanobot.extension.json, openclaw.plugin.json, .claude-plugin/plugin.json, an Agent "
    "Plugins plugin.json, .codex-plugin/plugin.json, gemini-extension.json, or package.json "
    "with a pi/nu/openclaw key.",
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
    "Use one of: agent-plugins, nanobot, openclaw, pi, nu, codex, claude, gemini, nimlet.",
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

# Reported by the Node sidecar (sidecars/lib/diagnostics.mjs lists the codes it emits)
SIDECAR_NAME_CONFLICT = define_code(
    "sidecar.name_conflict",
    WARNING,
    "Two hosts of one Node sidecar (its Pi and its OpenClaw packages) registered the same "
    "tool or command name; the host whose package comes first in the sidecar's spec keeps it.",
    "Rename one, or run the packages in separate sidecars (the default).",
)

# Planning a Node sidecar
OPENCLAW_SDK_NOT_INSTALLED = define_code(
    "openclaw.sdk_not_installed",
    ERROR,
    "The OpenClaw SDK (the real `openclaw` package, whose SDK OpenClaw plugins import) is not "
    "installed: `gateway setup` installs the Pi and Nu runtimes only, so an OpenClaw plugin "
    "(or a nanobot package with `runtime: openclaw`) is refused instead of downloading it "
    "unasked.",
    "Run `gateway setup --openclaw`; it says how much it downloads before it does.",
)

# hooks.json: read by the Claude Code plugins adapter and by the plugin host
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

GEMINI_HOOKS_NOT_RUN = define_code(
    "gemini.hooks_not_run",
    WARNING,
    "A Gemini CLI extension has hooks for an event with no gateway counterpart "
    "(AfterAgent: a retry of the turn; BeforeModel, AfterModel, BeforeToolSelection: the "
    "model request itself; Notification: the user's alerts). They never run; each event is "
    "named with the reason. Its other hooks run.",
    "Nothing to fix in the extension; those hooks run in Gemini CLI only.",
)

# MCP servers: Agent Plugins, and nanobot's host knowledge of them

# Audit cells: answers the adapters' host knowledge shares
NOT_APPLICABLE = define_code(
    "audit.not_applicable",
    INFO,
    "The host has no such kind of contribution (e.g. channels in nimlet).",
    "Nothing to do.",
)
LISTED_ONLY = define_code(
    "audit.listed_only",
    INFO,
    "The host reads and lists the contribution; nothing of it executes.",
    "Nothing to do if metadata is all you need.",
)


def declared(code: str) -> DiagnosticCode:
    """A code another package declares, by name (the plugin host's, say, which an adapter
    may not import): found without loading every code's module — ``catalogue()`` imported
    all of them, the migrate floor too, at each inspection of a Claude Code plugin."""
    found = find_code(code)
    if found is None:  # pragma: no cover - the code comes from a module that declared it
        raise LookupError(f"diagnostic code {code!r} is not declared")
    return found
