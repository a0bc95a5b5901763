"""The diagnostic codes of Pi packages: package.json's ``pi`` key, the Pi release a package
was built for, precompiling, ``.pi/extensions`` discovery, what ``gateway audit`` says of
Pi's host, and what the Node sidecar's Pi host reports (``sidecars/lib/diagnostics.mjs``
lists the codes it emits).
"""

from __future__ import annotations

from gateway.base import Severity, define_code

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

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
    INFO,
    "A Pi host package (pi-ai, pi-coding-agent, pi-tui, typebox, ...) is in dependencies: the "
    "host's copy is loaded in its place, as Pi does, so nothing changes for its user.",
    'Nothing for a user to do; its author lists it in peerDependencies as "*" (the host '
    "supplies it).",
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

# Reported by the Node sidecar's Pi host in register.gateway
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
PI_RENEWAL_EVENTS_CHANGED = define_code(
    "pi.renewal_events_changed",
    WARNING,
    "A Pi package's extensions, made again for a new session after a session_end tore them "
    "down (as pi's /new does), subscribe to events the first start did not. Changed tools and "
    "commands reach the host (registration.update); events cannot: the host keeps the hooks "
    "of the first start, so the new handlers run only after the package starts again.",
    "Nothing to do for a user (a reload starts it again); its author can subscribe to the "
    "same events in every session.",
)
PI_LOAD_FAILED = define_code(
    "pi.load_failed",
    ERROR,
    "A Pi extension entry failed to load (import error, no factory, or the factory threw); "
    "its registrations were rolled back, the package's other entries still load.",
    "Read the message; check the package's dependencies are installed.",
)

# Discovery of .pi/extensions
PI_PROJECT_EXTENSIONS_UNTRUSTED = define_code(
    "pi.project_extensions_untrusted",
    INFO,
    "The workspace's `.pi/extensions` holds Pi extensions, but the workspace is not trusted, "
    "so they were not loaded (as pi does before project trust).",
    "`gateway trust DIR`, or `--trust` for one run.",
)

# What Pi's host accepts (gateway audit; _audit.py)
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
