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
    from gateway.base import Diagnostic as Diagnostic
    from gateway.base import DiagnosticCode as DiagnosticCode
    from gateway.base import Diagnostics as Diagnostics
    from gateway.base import GatewayConfig as GatewayConfig
    from gateway.base import GatewayError as GatewayError
    from gateway.base import HomeUnusable as HomeUnusable
    from gateway.base import Severity as Severity
    from gateway.base import catalogue as catalogue
    from gateway.host import AgentStartResult as AgentStartResult
    from gateway.host import CompactionResult as CompactionResult
    from gateway.host import Gateway as Gateway
    from gateway.host import InputResult as InputResult
    from gateway.host import ToolResult as ToolResult
    from gateway.host import UnknownCommand as UnknownCommand
    from gateway.host import UnknownTool as UnknownTool
    from gateway.host import open_gateway as open_gateway
    from gateway.host import terminal_editor as terminal_editor
    from gateway.model import AgentLink as AgentLink
    from gateway.model import Approval as Approval
    from gateway.model import ApprovalRequest as ApprovalRequest
    from gateway.model import CommandOutcome as CommandOutcome
    from gateway.model import Completion as Completion
    from gateway.model import CompletionRequest as CompletionRequest
    from gateway.model import EditRequest as EditRequest
    from gateway.model import EditResult as EditResult
    from gateway.model import EventCatalogue as EventCatalogue
    from gateway.model import EventOutcome as EventOutcome
    from gateway.model import EventSpec as EventSpec
    from gateway.model import ModelContext as ModelContext
    from gateway.model import Registry as Registry
    from gateway.model import Session as Session
    from gateway.model import SessionAction as SessionAction
    from gateway.model import SessionActionError as SessionActionError
    from gateway.model import SessionEffect as SessionEffect
    from gateway.model import SessionNotFound as SessionNotFound
    from gateway.model import ToolEntry as ToolEntry
    from gateway.model import ToolOutcome as ToolOutcome
    from gateway.model import UserMessage as UserMessage
    from gateway.wire import ExtensionError as ExtensionError
    from gateway.wire import ExtensionProcess as ExtensionProcess
    from gateway.wire import UiAnswer as UiAnswer
    from gateway.wire import UiRequest as UiRequest


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
