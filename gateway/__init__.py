"""Extension Gateway: one host for nimlet, Nu, nanobot, Pi and OpenClaw extensions.

The public API an agent embeds::

    async with open_gateway("/path/to/workspace", trust=True) as gateway:
        schemas = gateway.tool_schemas()          # hand these to a model
        result = await gateway.call_tool("save_note", {"text": "hi"})

The names below load on first use: a runtime that needs only ``gateway.names`` or
``gateway.features`` (the sidecars read them at start) does not pay for the host.
"""

from __future__ import annotations

from .lazy import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from ._commands import SessionAction, SessionActionError
    from ._home import HomeUnusable
    from .agent import (
        AgentLink,
        Approval,
        ApprovalRequest,
        Completion,
        CompletionRequest,
        EditRequest,
        EditResult,
        ModelContext,
        UserMessage,
    )
    from .config import GatewayConfig
    from .diagnostics import Diagnostic, DiagnosticCode, Diagnostics, Severity, catalogue
    from .editor import terminal_editor
    from .events import EventCatalogue, EventOutcome, EventSpec
    from .host import (
        AgentStartResult,
        CompactionResult,
        Gateway,
        InputResult,
        ToolResult,
        UnknownCommand,
        UnknownTool,
        open_gateway,
    )
    from .process import ExtensionError, ExtensionProcess, UiAnswer
    from .protocol import UiRequest
    from .registry import CommandOutcome, Registry, ToolEntry, ToolOutcome
    from .session import Session, SessionEffect, SessionNotFound

_WHERE: dict[str, str] = {
    "SessionAction": "_commands",
    "SessionActionError": "_commands",
    "HomeUnusable": "_home",
    "AgentLink": "agent",
    "Approval": "agent",
    "ApprovalRequest": "agent",
    "Completion": "agent",
    "CompletionRequest": "agent",
    "EditRequest": "agent",
    "EditResult": "agent",
    "ModelContext": "agent",
    "UserMessage": "agent",
    "terminal_editor": "editor",
    "GatewayConfig": "config",
    "Diagnostic": "diagnostics",
    "DiagnosticCode": "diagnostics",
    "Diagnostics": "diagnostics",
    "Severity": "diagnostics",
    "catalogue": "diagnostics",
    "EventCatalogue": "events",
    "EventOutcome": "events",
    "EventSpec": "events",
    "AgentStartResult": "host",
    "CompactionResult": "host",
    "Gateway": "host",
    "InputResult": "host",
    "ToolResult": "host",
    "UnknownCommand": "host",
    "UnknownTool": "host",
    "open_gateway": "host",
    "ExtensionError": "process",
    "ExtensionProcess": "process",
    "UiAnswer": "process",
    "UiRequest": "protocol",
    "CommandOutcome": "registry",
    "Registry": "registry",
    "ToolEntry": "registry",
    "ToolOutcome": "registry",
    "Session": "session",
    "SessionEffect": "session",
    "SessionNotFound": "session",
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


__getattr__, __dir__ = lazy_attributes(__name__, {k: f".{v}" for k, v in _WHERE.items()})
