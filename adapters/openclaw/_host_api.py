"""What the gateway's OpenClaw host offers of OpenClaw's plugin API (OpenClaw 2026.9.6,
``openclaw-upstream.md``; the host is ``sidecars/lib/openclaw/``): the 42-hook catalogue and
the canonical event each runs at, the legacy hook names, the registrars it records as
unsupported or leaves undefined, the ``api.runtime`` methods, and the reserved command names.

``HOOKS``, ``LEGACY`` and ``ABSENT_IN`` mirror ``sidecars/lib/openclaw/hooks.mjs`` and
``RECORDED`` the recorded registrars of ``sidecars/lib/openclaw/api.mjs``;
``tests/gateway/audit/test_truth.py`` reads both from Node and checks they agree. The audit
(``_audit``) judges contributions with these tables.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ABSENT_IN",
    "HOOKS",
    "LEGACY",
    "NEVER_EMITTED",
    "RECORDED",
    "RESERVED_COMMANDS",
    "RUNTIME",
    "RUNTIME_RUNS",
    "UNDEFINED",
]

_M = "model and provider selection belong to the embedding agent"
_P = "provider calls belong to the embedding agent"
_L = "agent-loop control belongs to the embedding agent"
_C = "channels do not run in a headless gateway"
_S = "the gateway runs no subagents"
_CRON = "the gateway runs no cron jobs"
_HB = "the gateway runs no heartbeats"
_SK = "the gateway has no Skill Workshop"
_I = "gateway install never runs package code"
_X = "the host's exec environment is its allow-list"
_T = "the session transcript is written by the host"
# hook -> (needs conversation access, the gateway's canonical event or "host", or None, why not)
HOOKS: Final[dict[str, tuple[bool, str | None, str]]] = {
    "before_model_resolve": (True, None, _M),
    "agent_turn_prepare": (True, "before_agent_start", ""),
    "before_prompt_build": (True, "before_agent_start", ""),
    "before_agent_reply": (True, "input", ""),
    "model_call_started": (False, None, _P),
    "model_call_ended": (False, None, _P),
    "llm_input": (True, "context", ""),
    "llm_output": (True, "message_sending", ""),
    "before_agent_finalize": (True, None, _L),
    "agent_end": (True, "turn_end", ""),
    "before_compaction": (False, "session_before_compact", ""),
    "after_compaction": (False, "session_compact", ""),
    "before_reset": (False, "session_end", ""),
    "inbound_claim": (False, None, _C),
    "channel_pairing_requested": (False, None, _C),
    "message_received": (False, "message_received", ""),
    "message_sending": (False, "message_sending", ""),
    "reply_payload_sending": (False, "message_sending", ""),
    "message_sent": (False, "message_sent", ""),
    "before_tool_call": (False, "tool_call", ""),
    "after_tool_call": (False, "tool_result", ""),
    "tool_result_persist": (False, "tool_result", ""),
    "before_message_write": (False, None, _T),
    "session_start": (False, "session_start", ""),
    "session_end": (False, "session_end", ""),
    "subagent_delivery_target": (False, None, _S),
    "subagent_spawned": (False, None, _S),
    "subagent_progress": (False, None, _S),
    "subagent_ended": (False, None, _S),
    "gateway_start": (False, "host", ""),
    "gateway_stop": (False, "host", ""),
    "heartbeat_prompt_contribution": (False, None, _HB),
    "cron_reconciled": (False, None, _CRON),
    "cron_changed": (False, None, _CRON),
    "skill_proposal_evaluate": (False, None, _SK),
    "skill_proposal_changed": (False, None, _SK),
    "skill_changed": (False, None, _SK),
    "before_dispatch": (False, "input", ""),
    "reply_dispatch": (False, None, _C),
    "before_install": (False, None, _I),
    "before_agent_run": (True, "input", ""),
    "resolve_exec_env": (False, None, _X),
}
NEVER_EMITTED: Final = frozenset(
    name
    for name, (_, event, why) in HOOKS.items()
    if event is None and why in (_C, _S, _CRON, _HB, _SK)
)
"""Hooks of events a headless gateway never has: registered and kept, as OpenClaw keeps them
(``openclaw.hook_never_emitted``), never called. The other unmapped hooks are not registered
(``openclaw.hook_unmapped``)."""
LEGACY: Final = {
    "before_agent_start": "before_prompt_build",
    "deactivate": "gateway_stop",
    "subagent_spawning": "subagent_spawned",
}
"""Legacy names (<= 2026.7) and the hook the gateway runs them as; OpenClaw 2026.8+ drops
them."""

_SKILL_WORKSHOP = ("skill_proposal_evaluate", "skill_proposal_changed", "skill_changed")
ABSENT_IN: Final[dict[str, tuple[str, ...]]] = {
    "2026.4.29": (
        "channel_pairing_requested", "reply_payload_sending", "subagent_progress",
        "cron_reconciled", *_SKILL_WORKSHOP, "before_agent_run", "resolve_exec_env",
        "deactivate",
    ),
    "2026.7.35": ("subagent_progress", "cron_reconciled", *_SKILL_WORKSHOP),
    "2026.9.6": (),
}  # fmt: skip
"""The hook names (of ``HOOKS`` and ``LEGACY``) each OpenClaw release a plugin can be loaded
as does not have (``_lines.hook_catalog_for`` picks the release), read from the published
packages' ``PLUGIN_HOOK_NAMES``; where each list came from is in ``hooks.mjs``."""

_PROVIDERS = (
    "WorkerProvider", "ModelCatalogProvider", "EmbeddingProvider", "SpeechProvider",
    "RealtimeTranscriptionProvider", "RealtimeVoiceProvider", "MediaUnderstandingProvider",
    "TranscriptSourceProvider", "ImageGenerationProvider", "VideoGenerationProvider",
    "MusicGenerationProvider", "WebFetchProvider", "WebSearchProvider", "DecisionProvider",
    "CompactionProvider", "CliBackend", "MigrationProvider",
)  # fmt: skip
RECORDED: Final[dict[str, str]] = {
    "registerCli": "cli_command",
    "registerService": "service",
    "registerGatewayMethod": "gateway_method",
    "registerHttpRoute": "http_route",
    "registerHttpHandler": "http_route",
    "registerChannel": "channel",
    "registerProvider": "llm_provider",
    "registerMemoryCapability": "memory",
    "registerMemoryPromptSupplement": "memory",
    "registerMemoryPromptPreparation": "memory",
    "registerMemoryCorpusSupplement": "memory",
    **{f"register{name}": "llm_provider" for name in _PROVIDERS},
}
"""Registrars the gateway records as unsupported (``openclaw.unsupported_api``) because
plugins call them unconditionally."""
UNDEFINED: Final = {
    "registerContextEngine": "context_engine",
    "registerAgentHarness": "api",
    "registerAgentToolResultMiddleware": "api",
    "registerTrustedToolPolicy": "api",
    "registerToolMetadata": "api",
    "registerTextTransforms": "api",
    "registerSessionExtension": "api",
    "registerSessionAction": "api",
    "registerControlUiDescriptor": "api",
    "registerWidgetPresenter": "api",
    "registerInteractiveHandler": "api",
    "registerNodeHostCommand": "api",
    "registerSecurityAuditCollector": "api",
    "registerReload": "api",
    "registerConfigMigration": "api",
    "registerRuntimeLifecycle": "api",
    "registerAgentEventSubscription": "api",
}
"""Optional registrars the gateway leaves undefined, so plugins feature-detect and fall back."""
RUNTIME_RUNS: Final = frozenset(
    {
        "runtime.system.runCommandWithTimeout",
        "runtime.config.current",
        "runtime.state.resolveStateDir",
    }
)
"""The ``api.runtime`` methods the host runs; the others in ``RUNTIME`` are not offered
headless."""
RUNTIME: Final = {
    "runtime.llm.complete": "api",
    "runtime.subagent.run": "api",
    "runtime.config.current": "api",
    "runtime.config.mutateConfigFile": "api",
    "runtime.config.replaceConfigFile": "api",
    "runtime.system.runCommandWithTimeout": "api",
    "runtime.system.enqueueSystemEvent": "api",
    "runtime.events.onAgentEvent": "api",
    "runtime.state.resolveStateDir": "api",
    "runtime.state.openKeyedStore": "api",
}
"""The ``api.runtime`` methods the audit finds in a plugin's code."""
RESERVED_COMMANDS: Final = frozenset(
    [
        "help",
        "commands",
        "status",
        "diagnostics",
        "codex",
        "whoami",
        "context",
        "btw",
        "stop",
        "restart",
        "reset",
        "new",
        "compact",
        "config",
        "debug",
        "allowlist",
        "activation",
        "skill",
        "learn",
        "loop",
        "subagents",
        "kill",
        "steer",
        "tell",
        "model",
        "models",
        "queue",
        "send",
        "bash",
        "exec",
        "think",
        "verbose",
        "reasoning",
        "elevated",
        "usage",
    ]
)
"""Command names OpenClaw keeps for itself: a plugin's command of one of them is skipped."""
