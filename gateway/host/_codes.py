"""The diagnostic codes of the host: extensions that do not start, their replies and results,
declared contributions, process sharing, limits settings, the tools the gateway runs itself
and their journal, policy rules, and settings of running packages.
"""

from __future__ import annotations

from gateway.base import Severity, define_code

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741

# Extension processes
EXTENSION_START_FAILED = define_code(
    "extension.start_failed",
    W,
    "An extension could not be started: the program is missing, not executable, or exited "
    "or timed out before sending `register`.",
    "Check the manifest `command` and the extension log under GATEWAY_HOME/logs.",
)
PROTOCOL_TOOL_UPDATE_INVALID = define_code(
    "protocol.tool_update_invalid",
    W,
    "An extension sent a `tool_update` whose `content` is neither text nor an array of text "
    "parts (a number, an object, an image part, a part without a string `text`); the update "
    "was not shown and the call went on.",
    'Send `content` as a string, or as `[{"type": "text", "text": ...}]`.',
)
UI_UNANSWERED = define_code(
    "ui.unanswered",
    I,
    "An extension asked the user a question, but no one can answer (no interactive shell); "
    "it was answered `cancelled: true`.",
    "Use `gateway shell`, or give the extension a default.",
)
USER_MESSAGE_DROPPED = define_code(
    "user_message.dropped",
    W,
    "A `user_message` side effect lacked a non-empty `content` or a `deliver_as` of `now`, "
    "`steer` or `follow_up` (nimlet drops it silently); or a one-shot CLI run ended with "
    "messages no conversation could take.",
    "Send both fields; use `gateway shell` or the Python API to deliver messages.",
)
COMMAND_REPLY_IGNORED = define_code(
    "command.reply_ignored",
    I,
    "A command reply carried fields nimlet ignores in its order (`session` before `reload` "
    "before `prompt`), or a `session` that is not an object.",
    "Send only the action the command means to take.",
)
TOOL_INVALID_RESULT = define_code(
    "tool.invalid_result",
    W,
    "An extension tool replied with `content` the host cannot read: a part other than text "
    "or image, an image without mimeType or data/path, undecodable base64, or a path "
    "outside the workspace. The call is an error result with nimlet's code "
    "`invalid_extension_result`.",
    "Send text parts and image parts (`mimeType` with base64 `data` or a workspace `path`).",
)
TOOL_OUTPUT_SCHEMA_INVALID = define_code(
    "tool.output_schema_invalid",
    W,
    "A runtime's tool spec carried an output schema (negotiated `tool.output`: "
    "`gateway.output_schema`) that is not a valid JSON Schema of an object (MCP's rule for "
    "`outputSchema`). The tool registers without one; its structured results are not passed on.",
    'Declare the output schema as a JSON Schema with `type: "object"`.',
)
PERMISSIONS_FILE_INVALID = define_code(
    "permissions.file_invalid",
    W,
    "`.nimlet/permissions.json` could not be read, is not JSON or has no `allow` array (no "
    "project grants are used), or a project grant could not be saved.",
    'Repair the file (`{"allow": ["tool:NAME"]}`) or remove it.',
)

# Registry and events
EVENT_UNKNOWN = define_code(
    "event.unknown",
    I,
    "An extension subscribed to an event name the catalogue does not know; it never fires.",
    "Use one of the catalogue's event names (docs/protocol.md).",
)

# Sessions
TOOL_FAILED = define_code(
    "tool.failed",
    W,
    "A tool.json tool timed out, exited non-zero, wrote invalid JSON or too much output.",
    "Read the error result and the tool's stderr excerpt.",
)

# Declared contributions, process sharing, runtimes
PACKAGE_GROUP_SPLIT = define_code(
    "package.group_split",
    I,
    "A package the user grouped (`gateway group`) runs in a process of its own: its runtime "
    "hosts one package per process, it needs another package running first, or it is granted "
    "other permissions (or has another environment or timeouts) than the rest of its group, "
    "and a process is confined to one permission set.",
    "Grant the members of a group the same permissions, or leave the package out of it "
    "(`gateway ungroup ID`).",
)
PACKAGE_PREFERRED_NOT_INSTALLED = define_code(
    "package.preferred_not_installed",
    W,
    "A package the user prefers in name clashes (`gateway prefer`) is not installed (it was "
    "uninstalled since): the preference stays, and the other preferred packages and install "
    "order decide.",
    "Install it again, or set the preference without it (`gateway prefer ID…`, or "
    "`gateway prefer --clear`).",
)
UNDECLARED_CONTRIBUTION = define_code(
    "package.undeclared_contribution",
    W,
    "A package registered a tool or command its manifest does not declare (in a format that "
    "declares them, such as nanobot's); the registration was refused.",
    "Declare the contribution in the package's manifest, or stop registering it.",
)
CONTRIBUTION_MISSING = define_code(
    "package.contribution_missing",
    W,
    "A package declares a tool or command in its manifest but never registered it.",
    "Register it in the package's code, or remove it from the manifest.",
)
RUNTIME_DIAGNOSTIC_INVALID = define_code(
    "protocol.diagnostic_invalid",
    W,
    "A runtime reported a diagnostic (register.gateway.diagnostics) that is malformed or whose "
    "code is not in the catalogue; it is shown with this code instead.",
    "Report diagnostics with catalogued codes (docs/diagnostics.md).",
)
CONTRIBUTION_CONFLICT = define_code(
    "package.contribution_conflict",
    W,
    "A package that declares its contributions registered a tool or command another package "
    "already provides, without naming that package in the contribution's `replaces`; the "
    "first one keeps it.",
    "List the other package's id in `replaces` (nanobot manifests), or rename the contribution.",
)

# Confinement settings
SANDBOX_OFF = define_code(
    "sandbox.off",
    W,
    "The sandbox is switched off (GATEWAY_SANDBOX=off or GatewayConfig.sandbox=False): "
    "every process the gateway starts can read and write whatever the user can, as in "
    "hosts without a sandbox. Reported once per run.",
    "Unset GATEWAY_SANDBOX; if a package needs more than its sandbox allows, grant it "
    "(`gateway permissions ID PERM`) instead.",
)

# Tools the gateway runs itself, one process per call (Nu's tool.yaml)
CALL_RETRIED = define_code(
    "tool.retried",
    I,
    "A per-call tool marked safe to retry crashed (killed by a signal, or exited without a "
    "result); the call ran once more.",
    "Read the package's log under GATEWAY_HOME/logs for why it crashed.",
)
CALL_CRASHED = define_code(
    "tool.crashed",
    W,
    "A per-call tool's process was killed by a signal or exited without a result (twice, "
    "for a tool safe to retry); the call is an error result.",
    "Read the package's log under GATEWAY_HOME/logs; the tool must answer with one result.",
)
JOURNAL_INDETERMINATE = define_code(
    "journal.indeterminate",
    W,
    "A call that must run at most once was interrupted by a gateway crash: it may or may not "
    "have had its effect. It is never run again by itself, and the same tool with the same "
    "arguments is refused until you resolve it.",
    "Check whether it happened, then `gateway journal resolve ID ran` or `… not_run`.",
)
JOURNAL_UNUSABLE = define_code(
    "journal.unusable",
    E,
    "A call that must run at most once could not be journaled in the state store (locked, "
    "damaged or unwritable); it was not run.",
    "Fix the state store (the message says why), then call the tool again.",
)

# Policy rules (gateway policy)
POLICY_DENIED = define_code(
    "policy.denied",
    I,
    "An adopted policy rule blocked a tool call (a deny rule, a rate limit, a package's "
    "default action, or an approval that was refused); the message names the rule.",
    "`gateway policy show ID` lists the rules; `gateway policy revoke ID` drops a package's.",
)
POLICY_UNANSWERED = define_code(
    "policy.unanswered",
    W,
    "A policy rule requires approval for a tool call, but no one can answer (no approval "
    "handler: a one-shot command or an embedder without `AgentLink.approve`), or no answer "
    "came within the rule's timeout; the call was refused.",
    "Use `gateway shell` on a terminal, or give the embedding agent an approval handler.",
)
POLICY_INVALID = define_code(
    "policy.invalid",
    W,
    "An adopted policy bundle no longer parses (the store was edited, or a newer gateway "
    "wrote it); it is not applied.",
    "Accept the package's policy again: `gateway policy accept ID`.",
)
POLICY_NOTE = define_code(
    "policy.note",
    I,
    "An adopted rule uses a part of rebuno's grammar the gateway applies differently: agent "
    "ids and steps other than tool calls never match here.",
    "Nothing to do if intended; otherwise adjust the rule and accept it again.",
)

# Settings and secrets of running packages
SETTINGS_RESTARTED = define_code(
    "package.settings_restarted",
    I,
    "A running package's settings or secrets changed (gateway config / gateway secret); its "
    "runtime was restarted with them, as Nu restarts its services.",
    "Nothing to do.",
)
SETTINGS_UNWATCHED = define_code(
    "package.settings_unwatched",
    I,
    "This platform has no file-change notification the gateway uses (inotify): a change of "
    "a package's settings or secrets takes effect when the gateway restarts the package.",
    "Call `Gateway.restart_package(ID)` or `/reload` after changing settings.",
)
LIMITS_INVALID = define_code(
    "sandbox.limits_invalid",
    W,
    "A package's `$gateway.limits` setting cannot be used (not a size, a number out of "
    "range, an unknown limit); that limit keeps its default.",
    "Fix it with `gateway config ID '$gateway.limits.KEY' VALUE` (sizes such as `512M`, "
    "`2G` or `off`), or remove it with `--unset`.",
)

SEARCH_PIN_INVALID = define_code(
    "search.pin_invalid",
    Severity.WARNING,
    "A package's `$gateway.pin` setting is neither `true` (pin every tool of the package) "
    "nor a list of tool names; nothing of that package is pinned.",
    "`gateway config ID '$gateway.pin' true`, or `'[\"TOOL\", …]'`; `--unset` removes it.",
)

# Pinned tool definitions
TOOL_DEFINITION_CHANGED = define_code(
    "tool.definition_changed",
    W,
    "A tool of an installed package no longer has the name, description or input schema it "
    "had when first listed after the package was trusted (a rug pull: a definition changed "
    "at a later start or in the middle of a session); the tool is held back — not listed, "
    "not callable — and the message says what changed.",
    "Read the new definition (`gateway inspect ID`), then `gateway trust ID` to accept it.",
)

# Text for the model with injection signals
MODEL_TEXT_HELD = define_code(
    "package.model_text_held",
    W,
    "A tool's description or input schema, a command's description or a prompt template of "
    "an installed package carries an injection signal (an instruction to override the "
    "model's instructions or hand over secrets, a download piped into a shell, characters "
    "the user cannot see, a data-collection endpoint); it is held back from the model — not "
    "listed, not callable — until the user accepts that text. The message quotes it "
    "(hidden characters escaped).",
    "Read it, then `gateway trust ID --accept-text`; a later change of the text is held again.",
)
