"""Extension Gateway: one host for nimlet, Nu, nanobot, Pi and OpenClaw extensions.

The public API an agent embeds::

    async with open_gateway("/path/to/workspace", trust=True) as gateway:
        schemas = gateway.tool_schemas()          # hand these to a model
        result = await gateway.call_tool("save_note", {"text": "hi"})

The names below load on first use: a runtime that needs only ``gateway.base.names`` or
``gateway.wire.features`` (the sidecars read them at start) does not pay for the host.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.base._collection import Diagnostics as Diagnostics
    from gateway.base._home import HomeUnusable as HomeUnusable
    from gateway.base.codes import catalogue as catalogue
    from gateway.base.config import GatewayConfig as GatewayConfig
    from gateway.base.diagnostics import Diagnostic as Diagnostic
    from gateway.base.diagnostics import DiagnosticCode as DiagnosticCode
    from gateway.base.diagnostics import Severity as Severity
    from gateway.base.errors import GatewayError as GatewayError
    from gateway.host._gateway import AgentStartResult as AgentStartResult
    from gateway.host._gateway import CompactionResult as CompactionResult
    from gateway.host._gateway import Gateway as Gateway
    from gateway.host._gateway import InputResult as InputResult
    from gateway.host._gateway import ToolResult as ToolResult
    from gateway.host._gateway import UnknownCommand as UnknownCommand
    from gateway.host._gateway import UnknownTool as UnknownTool
    from gateway.host._open import open_gateway as open_gateway
    from gateway.host.editor import terminal_editor as terminal_editor
    from gateway.model._commands import SessionAction as SessionAction
    from gateway.model._commands import SessionActionError as SessionActionError
    from gateway.model.agent import AgentLink as AgentLink
    from gateway.model.agent import Approval as Approval
    from gateway.model.agent import ApprovalRequest as ApprovalRequest
    from gateway.model.agent import Completion as Completion
    from gateway.model.agent import CompletionRequest as CompletionRequest
    from gateway.model.agent import EditRequest as EditRequest
    from gateway.model.agent import EditResult as EditResult
    from gateway.model.agent import ModelContext as ModelContext
    from gateway.model.agent import UserMessage as UserMessage
    from gateway.model.events import EventCatalogue as EventCatalogue
    from gateway.model.events import EventOutcome as EventOutcome
    from gateway.model.events import EventSpec as EventSpec
    from gateway.model.registry import CommandOutcome as CommandOutcome
    from gateway.model.registry import Registry as Registry
    from gateway.model.registry import ToolEntry as ToolEntry
    from gateway.model.registry import ToolOutcome as ToolOutcome
    from gateway.model.session import Session as Session
    from gateway.model.session import SessionEffect as SessionEffect
    from gateway.model.session import SessionNotFound as SessionNotFound
    from gateway.wire.process import ExtensionError as ExtensionError
    from gateway.wire.process import ExtensionProcess as ExtensionProcess
    from gateway.wire.process import UiAnswer as UiAnswer
    from gateway.wire.protocol import UiRequest as UiRequest


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
