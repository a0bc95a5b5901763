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
    from .config import GatewayConfig
    from .diagnostics import Diagnostic, DiagnosticCode, Diagnostics, Severity, catalogue
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
    "AgentStartResult",
    "CommandOutcome",
    "CompactionResult",
    "Diagnostic",
    "DiagnosticCode",
    "Diagnostics",
    "EventCatalogue",
    "EventOutcome",
    "EventSpec",
    "ExtensionError",
    "ExtensionProcess",
    "Gateway",
    "GatewayConfig",
    "InputResult",
    "Registry",
    "Session",
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
    "catalogue",
    "open_gateway",
]


__getattr__, __dir__ = lazy_attributes(__name__, {k: f".{v}" for k, v in _WHERE.items()})
