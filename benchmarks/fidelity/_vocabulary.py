"""The harness's vocabulary: the categories compared, each cause a difference can have, the
ecosystems' event tables (docs/pi.md, docs/openclaw.md, docs/nanobot.md written out again, so
that the harness does not take them from the code it checks) and the patterns that name why a
load failed."""

from __future__ import annotations

import re

CATEGORIES = ("tools", "commands", "flags", "events", "skills", "prompts")

# Each cause a difference can have, and what it means.
CAUSES = {
    "builtin-override-refused": "a tool named like a built-in (gateway/base/names.py "
    "BUILTIN_TOOL_NAMES) is refused by the registry where its ecosystem lets an extension "
    "override it (Pi's tools take such a name unless the agent registered the built-in)",
    "pi-legacy-event-unmapped": "a Pi event removed in pi 0.65 that the gateway cannot translate "
    "(session_directory; session_switch and session_fork are translated to session_start): "
    "pi 1.6 keeps the handler, the gateway maps it to nothing",
    "pi-event-unsupported": "a Pi event with no canonical event (model_select, "
    "session_before_tree, user_bash, …): pi.event_unmapped",
    "openclaw-hook-unsupported": "an OpenClaw hook the gateway does not register "
    "(before_model_resolve, model_call_*, …: openclaw.hook_unmapped); the hooks of events a "
    "headless gateway never has (subagent_*, cron_*, …) are registered there as in OpenClaw "
    "(openclaw.hook_never_emitted) and compared by name",
    "nanobot-hook-point-unsupported": "an AgentHook point the gateway never calls",
    "extra-hooks-listed": "the gateway lists a hook for an event the package never subscribed "
    "to (nanobot: turn_end for every hook)",
    "pi-tool-inactive-by-host-version": "a tool Pi 1.6 registers inactive (defaultActive: false "
    "or an exposure other than direct / model-only) that the gateway registers active because "
    'the package declares a Pi before 0.99, which knew neither field (docs/pi.md, "Host '
    'versions")',
    "flags-not-surfaced": "Pi flags (registerFlag) load, but `gateway list` does not show them",
    "openclaw-skills-dropped": "the skills an OpenClaw plugin's manifest names are not listed",
    "openclaw-declared-before-tool-contract": "the gateway registers a tool outside "
    "contracts.tools because the plugin declares an OpenClaw before 2026.5.2 "
    "(openclaw.tool_contract), and the reference refuses it: since each plugin is measured "
    "against an OpenClaw of its declared band (_openclaw_reference.py), only when the two "
    "read the declaration differently",
    "openclaw-context-engine-fallback": "the plugin registers a context engine in OpenClaw; "
    "where registerContextEngine is undefined (the gateway, deliberately) it falls back to "
    "hooks",
    "openclaw-api-missing": "the plugin calls an `api` or `api.runtime` method the gateway "
    "does not provide, and its register fails",
    "openclaw-sdk-older-than-pinned": "the plugin declares an OpenClaw before 2026.8 and "
    "imports an SDK subpath that OpenClaw had then and 2026.8 removed (text-runtime); the "
    "gateway serves the pinned 2026.9.6 SDK only: openclaw.sdk_unavailable, naming it",
    "native-deps": "a dependency with a native addon or an install script: the gateway "
    "installs with --ignore-scripts",
    "sandbox-write": "the package writes under HOME or /tmp at load and the sandbox refuses",
    "gateway-load-failed": "the gateway failed to load what the own host loaded (other reasons)",
    "gateway-install-failed": "`gateway install` failed where the own host's install worked",
    "gateway-timeout": "the gateway did not finish in time",
    "unexplained": "a difference none of the above explains",
}

# docs/pi.md, "Events (nimlet canonical → Pi)"; `None`: emitted by the sidecar's Pi host
# itself from a Pi API call (session_info_changed on setSessionName), not a subscription.
PI_EVENTS: dict[str, tuple[str, ...] | None] = {
    "tool_execution_start": ("tool_call",),
    "tool_call": ("tool_call",),
    "tool_result": ("tool_result",),
    "tool_execution_end": ("tool_result",),
    "agent_start": ("turn_start",),
    "turn_start": ("turn_start",),
    "turn_end": ("turn_end",),
    "agent_end": ("turn_end",),
    "agent_settled": ("turn_end",),
    "session_start": ("session_start",),
    "resources_discover": ("session_start",),
    "session_switch": ("session_start",),  # legacy, translated (pi.legacy_event_translated)
    "session_fork": ("session_start",),  # legacy, translated
    "session_before_switch": ("session_end",),
    "session_before_fork": ("session_end",),
    "session_shutdown": ("session_end",),
    "session_before_compact": ("session_before_compact",),
    "session_compact": ("session_compact",),
    "input": ("input",),
    "before_agent_start": ("before_agent_start",),
    "context": ("context_transform",),
    "message_start": ("message_received", "message_sending"),
    "message_end": ("message_received", "message_sending"),
    "session_info_changed": None,
}
PI_LEGACY_EVENTS = frozenset({"session_directory"})

# docs/openclaw.md, "Typed hooks (canonical event ← OpenClaw hook)"; `None`: run by the
# sidecar itself (start / stop), not a subscription.
OPENCLAW_HOOKS: dict[str, tuple[str, ...] | None] = {
    "before_tool_call": ("tool_call",),
    "tool_result_persist": ("tool_result",),
    "after_tool_call": ("tool_result",),
    "agent_end": ("turn_end",),
    "session_start": ("session_start",),
    "session_end": ("session_end",),
    "before_reset": ("session_end",),
    "before_compaction": ("session_before_compact",),
    "after_compaction": ("session_compact",),
    "before_dispatch": ("input",),
    "before_agent_reply": ("input",),
    "before_agent_run": ("input",),
    "agent_turn_prepare": ("before_agent_start",),
    "before_prompt_build": ("before_agent_start",),
    "before_agent_start": ("before_agent_start",),
    "llm_input": ("context",),
    "message_received": ("message_received",),
    "message_sending": ("message_sending",),
    "reply_payload_sending": ("message_sending",),
    "llm_output": ("message_sending",),
    "message_sent": ("message_sent",),
    "gateway_start": None,
    "gateway_stop": None,
    "deactivate": None,
}

# docs/nanobot.md, "Hooks: nanobot's AgentHook points on the gateway's events".
NANOBOT_POINTS: dict[str, tuple[str, ...]] = {
    "before_run": ("turn_start",),
    "after_run": ("turn_end",),
    "on_error": ("turn_end",),
    "on_finally": ("turn_end",),
    "before_execute_tool": ("tool_call",),
    "after_execute_tool": ("tool_result",),
    "on_execute_tool_error": ("tool_result",),
    "on_session_start": ("session_start",),
    "on_session_end": ("session_end",),
    "before_compact": ("session_before_compact",),
    "after_compact": ("session_compact",),
}

_NATIVE = re.compile(
    r"\.node\b|bindings file|NODE_MODULE_VERSION|node-gyp|prebuild|better-sqlite3|"
    r"sharp|node-pty|was compiled against|Cannot find module '[^']*build/Release",
    re.I,
)
_API_MISSING = re.compile(r"api\.[\w.]+ is not a function|api\.[\w.]+ is undefined")
_SANDBOX = re.compile(
    r"EACCES|EPERM|EROFS|read-only file system|operation not permitted|permission denied", re.I
)


# Diagnostics that say something did not load or start, whatever their severity.
FAILURES = frozenset(
    {
        "extension.exited",
        "runtime.unavailable",
        "openclaw.config_required",
        "sandbox.denied",
        "openclaw.sdk_unavailable",
        "openclaw.register_async",
    }
)
