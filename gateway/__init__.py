"""Extension Gateway: one host for nimlet, Nu, nanobot, Pi and OpenClaw extensions.

The public API an agent embeds::

    async with open_gateway("/path/to/workspace", trust=True) as gateway:
        schemas = gateway.tool_schemas()          # hand these to a model
        result = await gateway.call_tool("save_note", {"text": "hi"})
"""

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
