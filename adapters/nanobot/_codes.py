"""The diagnostic codes of nanobot packages: the manifest, published plugins, what
``gateway audit`` says of nanobot's host, and what the Python sidecar
(``adapters/nanobot/sidecar``, which reads the names from here) reports in
``register.gateway.diagnostics``.
"""

from __future__ import annotations

from gateway.base import Severity, define_code

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

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

# Reported by the Python sidecar in register.gateway.diagnostics (sidecar/_diagnostics.py)
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

# What nanobot's host accepts (gateway audit; _audit.py)
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

AGENT_PLUGINS_REMOTE_SERVER = define_code(
    "agent_plugins.remote_server_unsupported",
    WARNING,
    "An audited host does not connect an Agent Plugin's streamable-http or sse MCP server "
    "(nanobot 0.3 starts stdio servers only). The gateway itself connects it through the "
    "plugin host (`remote_mcp.*`).",
    "Use the server from a host that connects remote servers (the gateway), or ship a stdio "
    "server.",
)
