"""The diagnostic codes the core emits. ``docs/diagnostics.md`` documents each one."""

from __future__ import annotations

from gateway.base.diagnostics import Severity, define_code

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741

# Manifests and discovery
MANIFEST_UNREADABLE = define_code(
    "manifest.unreadable",
    W,
    "An extension.json or tool.json could not be read or is not valid JSON.",
    "Fix the JSON syntax; the extension is skipped until then.",
)
MANIFEST_INVALID = define_code(
    "manifest.invalid",
    W,
    "A manifest is missing a required field or a field has the wrong type "
    "(e.g. `skipping PATH: missing name`).",
    "Add or correct the named field.",
)
WORKSPACE_UNTRUSTED = define_code(
    "workspace.untrusted",
    I,
    "The workspace has project extensions, tools, skills or prompts, but is not trusted, "
    "so they were not loaded.",
    "Run `gateway trust DIR` or pass `--trust` for one run.",
)
RESOURCE_OVERRIDDEN = define_code(
    "resource.overridden",
    I,
    "A skill, prompt template or tool.json tool of a later root replaced one of the same name "
    "from an earlier root.",
    "Nothing to do if intended; rename one of them otherwise.",
)
SKILL_INVALID = define_code(
    "skill.invalid",
    W,
    "A SKILL.md could not be read or its front matter is malformed.",
    "Fix the front matter (`name`, `description`) of the named file.",
)
PROMPT_INVALID = define_code(
    "prompt.invalid",
    W,
    "A prompt template could not be read or its front matter is malformed.",
    "Fix the named file.",
)

# Extension processes
EXTENSION_START_FAILED = define_code(
    "extension.start_failed",
    W,
    "An extension could not be started: the program is missing, not executable, or exited "
    "or timed out before sending `register`.",
    "Check the manifest `command` and the extension log under GATEWAY_HOME/logs.",
)
REGISTER_INVALID = define_code(
    "extension.register_invalid",
    W,
    "The first line of an extension was not a valid `register` message; it was stopped.",
    "Fix the register message; the diagnostic names each invalid field.",
)
EXTENSION_EXITED = define_code(
    "extension.exited",
    W,
    "A running extension exited unexpectedly; calls in flight failed.",
    "Read the extension log; `/reload` starts it again.",
)
EXTENSION_TIMEOUT = define_code(
    "extension.timeout",
    W,
    "An extension did not answer a request within response_timeout_seconds "
    "(`extension response timed out`).",
    "Make the extension answer every request, or raise response_timeout_seconds.",
)
SHUTDOWN_FORCED = define_code(
    "extension.shutdown_forced",
    I,
    "An extension did not exit after `shutdown` and closed stdin; its process group got "
    "SIGTERM (and SIGKILL if needed).",
    "Stop the read loop on `shutdown` or at end of input.",
)
PROTOCOL_INVALID_JSON = define_code(
    "protocol.invalid_json",
    W,
    "An extension wrote a stdout line that is not JSON; the line was ignored.",
    "Write only protocol messages to stdout; log to a file.",
)
PROTOCOL_INVALID_UTF8 = define_code(
    "protocol.invalid_utf8",
    W,
    "An extension wrote a stdout line that is not valid UTF-8; the line was ignored.",
    "Encode output as UTF-8.",
)
PROTOCOL_LINE_TOO_LONG = define_code(
    "protocol.line_too_long",
    W,
    "An extension wrote a line longer than the line cap (16 MiB by default); it was skipped.",
    "Send less per message, or raise `line_cap` in the gateway config.",
)
PROTOCOL_INVALID_MESSAGE = define_code(
    "protocol.invalid_message",
    W,
    "An extension wrote JSON that is not a valid protocol message; it was ignored.",
    "Fix the message; the diagnostic names the invalid field.",
)
PROTOCOL_UNKNOWN_ID = define_code(
    "protocol.unknown_id",
    W,
    "An extension replied to an id the gateway never sent it.",
    "Echo the id of the request being answered.",
)
PROTOCOL_DUPLICATE_REPLY = define_code(
    "protocol.duplicate_reply",
    W,
    "An extension replied twice to the same request; the second reply was ignored.",
    "Send exactly one response per request.",
)
PROTOCOL_LATE_REPLY = define_code(
    "protocol.late_reply",
    I,
    "A reply arrived after its request had timed out or was cancelled; it was ignored.",
    "Answer faster, or raise response_timeout_seconds.",
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
UI_UNSUPPORTED_METHOD = define_code(
    "ui.unsupported_method",
    W,
    "An extension sent a ui_request with a method other than `question`, `confirm`, `input` "
    "or `password`; it was answered cancelled (nimlet would leave it unanswered).",
    "Use one of the four methods.",
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
TOOL_BUILTIN_NAME = define_code(
    "registry.builtin_name",
    W,
    "An extension registered a tool with a built-in name (ask_user bash edit git glob grep "
    "read read_skill write); the tool was skipped.",
    "Rename the tool.",
)
TOOL_OVERRIDDEN = define_code(
    "registry.tool_overridden",
    W,
    "Two extensions registered a tool with the same name; the later one in load order wins "
    "(of two Pi packages, the first), whatever order they started in.",
    "Rename one of the tools, or remove one extension.",
)
COMMAND_OVERRIDDEN = define_code(
    "registry.command_overridden",
    W,
    "Two sources registered the same command (names compare case-insensitively); the later "
    "one in load order wins, whatever order they started in.",
    "Rename one of the commands.",
)
COMMAND_RENAMED = define_code(
    "registry.command_renamed",
    I,
    "Two or more packages of an ecosystem that keeps every duplicate command (Pi) registered "
    "the same command, each in its own process; each is kept with a load-order suffix "
    "(/name:1, /name:2), as Pi does in one process.",
    "Invoke the suffixed name (`gateway list` shows them); the load order is install order.",
)
EVENT_UNKNOWN = define_code(
    "event.unknown",
    I,
    "An extension subscribed to an event name the catalogue does not know; it never fires.",
    "Use one of the catalogue's event names (docs/protocol.md).",
)
HOOK_FAILED = define_code(
    "hook.failed",
    W,
    "A hook subscriber crashed, timed out or replied with a malformed field; the event went "
    "on without its contribution (fail-open).",
    "Read the message and the extension log.",
)

# Sessions
SESSION_FILE_CORRUPT = define_code(
    "session.file_corrupt",
    W,
    "A line of a session file could not be read on resume; it was skipped.",
    "The session file is JSON lines; repair or remove the named line.",
)
SESSION_NOT_FOUND = define_code(
    "session.not_found",
    E,
    "`--session ID` named a session that does not exist.",
    "List sessions under GATEWAY_HOME/sessions, or start a new one.",
)
TOOL_FAILED = define_code(
    "tool.failed",
    W,
    "A tool.json tool timed out, exited non-zero, wrote invalid JSON or too much output.",
    "Read the error result and the tool's stderr excerpt.",
)

# State store
STORE_UNUSABLE = define_code(
    "store.unusable",
    E,
    "The state store under GATEWAY_HOME is corrupt, written by a newer gateway, or locked "
    "for too long; it was left untouched and treated as empty for this run (nothing trusted).",
    "Follow the message: restore or move the file aside, or upgrade the gateway.",
)

# Packages: install and the activation gates
INSTALL_REFUSED = define_code(
    "install.refused",
    E,
    "An install was refused: the source is not allowed (ext::, file://, credentials in a git "
    "URL), could not be fetched, breaks a limit (size, file count, a symlink leaving the "
    "package, a special file), or holds no package metadata.",
    "Read the message; nothing was installed and the previous version is intact.",
)
PACKAGE_CHANGED = define_code(
    "gate.content_changed",
    W,
    "An installed package's files changed since it was trusted (or a reinstall brought "
    "different content); its trust was revoked.",
    "Inspect the package, then `gateway trust ID` again if the change is yours.",
)
UPDATE_PERMISSIONS_GREW = define_code(
    "update.permissions_grew",
    W,
    "`gateway update` installed a newer version of a trusted package that requests "
    "permissions the installed one did not; its trust was revoked (an update whose "
    "permissions did not grow keeps its trust).",
    "Inspect the package, grant what it needs (`gateway permissions ID PERM…`), then "
    "`gateway trust ID`.",
)
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
GATE_UNTRUSTED = define_code(
    "gate.untrusted",
    I,
    "An installed package is not trusted, so nothing of it runs.",
    "`gateway inspect ID`, then `gateway trust ID`.",
)
GATE_PERMISSION_MISSING = define_code(
    "gate.permission_missing",
    W,
    "An installed package requests permissions that are not granted; it stays inactive.",
    "`gateway permissions ID PERM…` grants them (the reasons are in `gateway inspect ID`).",
)
GATE_DEPENDENCY_MISSING = define_code(
    "gate.dependency_missing",
    W,
    "A hard dependency of an installed package is not met (python distribution or version, "
    "npm module, executable on PATH, environment variable, another package); it stays inactive.",
    "Install or set what the message names; optional dependencies never block.",
)
GATE_DISABLED = define_code(
    "gate.disabled",
    I,
    "An installed package is disabled (new installs start disabled).",
    "`gateway enable ID`.",
)
GATE_BLOCKED = define_code(
    "gate.blocked",
    W,
    "An installed package depends on another package that is not active.",
    "Activate the named dependency first.",
)
GATE_DEPENDENCY_CYCLE = define_code(
    "gate.dependency_cycle",
    E,
    "Installed packages depend on each other in a cycle (optional edges excepted); none of "
    "them is activated.",
    "Break the cycle: make one edge optional or remove a package.",
)
RUNTIME_UNAVAILABLE = define_code(
    "runtime.unavailable",
    W,
    "A package passed every gate, but the runtime it needs is not available: the Node "
    "sidecar's modules are not installed (or were installed for another version of the "
    "gateway), no Node new enough was found, or the runtime is not built yet (OpenClaw, Nu); "
    "it was not started.",
    "Run `gateway setup` when the message names it; otherwise the runtime comes in a later "
    "release and `gateway inspect` shows the package's metadata meanwhile.",
)
INSTALL_NEEDS_GRANT = define_code(
    "install.needs_grant",
    I,
    "A package's code appears (by a text scan of its own sources) to use something its "
    "sandbox denies by default — network, writing the workspace, reading the user's home; "
    "the message shows where.",
    "Grant it knowingly with the command in the hint, or leave it denied.",
)
INSTALL_NATIVE_ADDON_UNBUILT = define_code(
    "install.native_addon_unbuilt",
    W,
    "A dependency of the installed package builds its native addon when it is installed "
    "(binding.gyp) and holds no prebuilt binary for this platform; install scripts never run "
    'here, so loading the package fails ("Failed to load native module").',
    "Install a version of the package (or of that dependency) that ships a prebuilt binary "
    "for this platform; the gateway does not build native code for a package.",
)
MODEL_INSTRUCTIONS = define_code(
    "package.model_instructions",
    W,
    "Text a package gives the model to read — a tool's or command's description, a skill, a "
    "prompt template — holds instruction-like text: telling it to override its instructions "
    "or hand over secrets, piping a download into a shell, characters the user cannot see, a "
    "long encoded blob, or a data-collection endpoint. A heuristic over text; the message "
    "quotes where.",
    "Read the quoted text before trusting the package. `gateway list --strict` and `gateway "
    "serve --mcp --strict` withhold flagged descriptions from the model.",
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

# The sandbox (gateway/sandbox)
SANDBOX_UNAVAILABLE = define_code(
    "sandbox.unavailable",
    W,
    "The kernel cannot confine the processes the gateway starts (no Landlock: another OS, "
    "a Linux before 5.13, or Landlock not enabled at boot). They run with the fallback "
    "checks only: no capabilities, no_new_privs, and the seccomp socket filter where "
    "available. Reported once per run.",
    "Use Linux 6.12 or later with Landlock enabled (`lsm=…,landlock` on the kernel command "
    "line); set GATEWAY_REQUIRE_SANDBOX=1 to refuse to run anything unconfined.",
)
SANDBOX_PARTIAL = define_code(
    "sandbox.partial",
    I,
    "The kernel's Landlock is older than the gateway's sandbox needs: the message names "
    "what is not enforced (TCP port rules need ABI 4, scoping of signals and abstract "
    "sockets ABI 6). Reported once per run.",
    "Use a newer kernel; set GATEWAY_REQUIRE_SANDBOX=1 to refuse to run what cannot be "
    "confined fully.",
)
SANDBOX_OFF = define_code(
    "sandbox.off",
    W,
    "The sandbox is switched off (GATEWAY_SANDBOX=off or GatewayConfig.sandbox=False): "
    "every process the gateway starts can read and write whatever the user can, as in "
    "hosts without a sandbox. Reported once per run.",
    "Unset GATEWAY_SANDBOX; if a package needs more than its sandbox allows, grant it "
    "(`gateway permissions ID PERM`) instead.",
)
SANDBOX_DENIED = define_code(
    "sandbox.denied",
    W,
    "A confined package printed an error showing the sandbox refused it something (an open, "
    "a connect, a socket); the message names the grant that would allow it, where one "
    "exists.",
    "If the package should do it, grant what the hint names (`gateway permissions ID "
    "PERM`); otherwise nothing to do — the sandbox did its job.",
)
SANDBOX_REFUSED = define_code(
    "sandbox.refused",
    E,
    "A process was not started: the gateway is configured to require the sandbox "
    "(GATEWAY_REQUIRE_SANDBOX=1 or GatewayConfig.require_sandbox) and this kernel cannot "
    "enforce all of its policy; the message names what is missing.",
    "Run on a kernel with Landlock ABI 6 or later, or unset GATEWAY_REQUIRE_SANDBOX.",
)

# The gateway home and the command line
HOME_UNUSABLE = define_code(
    "home.unusable",
    E,
    "GATEWAY_HOME cannot be used: it is a file, it cannot be created, or it is not "
    "writable (a read-only file system, another user's folder). Nothing was run.",
    "Point GATEWAY_HOME at a folder you can write (default ~/.gateway).",
)
ARGUMENT_INVALID = define_code(
    "cli.invalid_argument",
    E,
    "A command-line argument cannot be used: empty where a folder, id or source is needed "
    "(an empty one would silently mean the current folder), not valid UTF-8, or JSON nested "
    "deeper than the gateway accepts.",
    "Give the argument explicitly; `.` names the current folder.",
)
SESSION_UNREACHABLE = define_code(
    "cli.session_unreachable",
    W,
    "`gateway list`, `call` or `command` could not use the workspace's warm session: it did "
    "not start, stopped answering, or its folder or socket is not this user's alone "
    "(GATEWAY_HOME/run must be a 0700 folder of the user's; the socket's peer must be the "
    "same user). The command ran one-shot, as without a session.",
    "`gateway session status` shows the sessions; the session log is "
    "GATEWAY_HOME/logs/session.log. GATEWAY_SESSION=off runs every command one-shot.",
)
DOCS_TOPIC_UNKNOWN = define_code(
    "docs.unknown_topic",
    E,
    "`gateway docs TOPIC` was given a topic the shipped documentation does not have; the "
    "message lists the topics.",
    "`gateway docs` lists the topics; give one of them (e.g. `gateway docs cli`).",
)
DOCS_MISSING = define_code(
    "docs.missing",
    E,
    "The installation ships no documentation: `gateway/_docs` is missing or empty (a wheel "
    "built without its package data, or a checkout without `docs/`).",
    "Reinstall extension-gateway (`pip install --force-reinstall extension-gateway`).",
)
COMPLETION_SHELL_UNKNOWN = define_code(
    "completion.unknown_shell",
    E,
    "`gateway completion` was given no SHELL, or `--install` without one and `$SHELL` names "
    "none of bash, zsh and fish.",
    "Name the shell: `gateway completion bash|zsh|fish [--install]`.",
)
COMPLETION_INSTALL_FAILED = define_code(
    "completion.install_failed",
    E,
    "`gateway completion --install` could not write the script where the shell looks for it "
    "(a folder that cannot be made, a read-only file system).",
    "Print it instead (`gateway completion SHELL > FILE`) and put it where your shell loads it.",
)
PACKAGE_UNKNOWN = define_code(
    "package.unknown",
    E,
    "A command that acts on installed packages was given an id no installed package has. "
    "With several ids nothing was changed: every id is checked before any is acted on.",
    "`gateway list --packages` (or `gateway status`) lists the installed ids.",
)
SESSION_ENTRIES_DROPPED = define_code(
    "session.entries_dropped",
    W,
    "An extension wrote more session entries than the cap (10,000 per session), one larger "
    "than 256 KiB, or one that is not JSON; those were dropped. Reported once per session; "
    "the count is written to the session file when it closes.",
    "Keep entries small and few: they are state for resuming, not a log.",
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
