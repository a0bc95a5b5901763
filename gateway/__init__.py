"""Extension Gateway: one host for nimlet, Nu, nanobot, Pi and OpenClaw extensions.

The public API an agent embeds::

    async with open_gateway("/path/to/workspace", trust=True) as gateway:
        schemas = gateway.tool_schemas()          # hand these to a model
        result = await gateway.call_tool("save_note", {"text": "hi"})

The names below load on first use: a runtime that needs only ``gateway.base.names`` or
``gateway.wire.features`` (the sidecars read them at start) does not pay for the host.
"""

from __future__ import annotations

from gateway.base import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.base import (
        Diagnostic,
        DiagnosticCode,
        Diagnostics,
        GatewayConfig,
        GatewayError,
        HomeUnusable,
        Severity,
        catalogue,
    )
    from gateway.host import (
        AgentStartResult,
        CompactionResult,
        Gateway,
        InputResult,
        ToolResult,
        UnknownCommand,
        UnknownTool,
        open_gateway,
        terminal_editor,
    )
    from gateway.model import (
        AgentLink,
        Approval,
        ApprovalRequest,
        CommandOutcome,
        Completion,
        CompletionRequest,
        EditRequest,
        EditResult,
        EventCatalogue,
        EventOutcome,
        EventSpec,
        ModelContext,
        Registry,
        Session,
        SessionAction,
        SessionActionError,
        SessionEffect,
        SessionNotFound,
        ToolEntry,
        ToolOutcome,
        UserMessage,
    )
    from gateway.wire import ExtensionError, ExtensionProcess, UiAnswer, UiRequest

_WHERE: dict[str, str] = {
    "SessionAction": "gateway.model._commands",
    "SessionActionError": "gateway.model._commands",
    "HomeUnusable": "gateway.base._home",
    "AgentLink": "gateway.model.agent",
    "Approval": "gateway.model.agent",
    "ApprovalRequest": "gateway.model.agent",
    "Completion": "gateway.model.agent",
    "CompletionRequest": "gateway.model.agent",
    "EditRequest": "gateway.model.agent",
    "EditResult": "gateway.model.agent",
    "ModelContext": "gateway.model.agent",
    "UserMessage": "gateway.model.agent",
    "terminal_editor": "gateway.host.editor",
    "GatewayConfig": "gateway.base.config",
    "GatewayError": "gateway.base.errors",
    "Diagnostic": "gateway.base.diagnostics",
    "DiagnosticCode": "gateway.base.diagnostics",
    "Diagnostics": "gateway.base._collection",
    "Severity": "gateway.base.diagnostics",
    "catalogue": "gateway.base.codes",
    "EventCatalogue": "gateway.model.events",
    "EventOutcome": "gateway.model.events",
    "EventSpec": "gateway.model.events",
    "AgentStartResult": "gateway.host._gateway",
    "CompactionResult": "gateway.host._gateway",
    "Gateway": "gateway.host._gateway",
    "InputResult": "gateway.host._gateway",
    "ToolResult": "gateway.host._gateway",
    "UnknownCommand": "gateway.host._gateway",
    "UnknownTool": "gateway.host._gateway",
    "open_gateway": "gateway.host._open",
    "ExtensionError": "gateway.wire.process",
    "ExtensionProcess": "gateway.wire.process",
    "UiAnswer": "gateway.wire.process",
    "UiRequest": "gateway.wire.protocol",
    "CommandOutcome": "gateway.model.registry",
    "Registry": "gateway.model.registry",
    "ToolEntry": "gateway.model.registry",
    "ToolOutcome": "gateway.model.registry",
    "Session": "gateway.model.session",
    "SessionEffect": "gateway.model.session",
    "SessionNotFound": "gateway.model.session",
}

__all__ = [
    "AgentLink",
    "AgentStartResult",
    "Approval",
    "ApprovalRequest",
    "CommandOutcome",
    "CompactionResult",
    "Completion",
    "CompletionRequest",
    "Diagnostic",
    "DiagnosticCode",
    "Diagnostics",
    "EditRequest",
    "EditResult",
    "EventCatalogue",
    "EventOutcome",
    "EventSpec",
    "ExtensionError",
    "ExtensionProcess",
    "Gateway",
    "GatewayConfig",
    "GatewayError",
    "HomeUnusable",
    "InputResult",
    "ModelContext",
    "Registry",
    "Session",
    "SessionAction",
    "SessionActionError",
    "SessionEffect",
    "SessionNotFound",
    "Severity",
    "ToolEntry",
    "ToolOutcome",
    "ToolResult",
    "UiAnswer",
    "UiRequest",
    "UnknownCommand",
    "UnknownTool",
    "UserMessage",
    "catalogue",
    "open_gateway",
    "terminal_editor",
]


__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
