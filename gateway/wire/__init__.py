"""The nimlet wire: message models, framing, pipes, the reader, pending requests, one
``ExtensionProcess`` per child, and the negotiated gateway features.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.wire._errors import ExtensionError, RegisterInvalid, SandboxRefused, UiAnswer
    from gateway.wire._framing import DEFAULT_LINE_CAP, LineFramer, OversizedLine, read_lines
    from gateway.wire._logfiles import LogLimits, RotatingLog, log_path, open_log
    from gateway.wire._owners import Member, MemberNames, split_registration, split_specs
    from gateway.wire._pause import DeadlinePause
    from gateway.wire._pipes import ChildPipes, PipeClosed
    from gateway.wire._plan import LaunchPlan, TransportConfig
    from gateway.wire._tool_content import INVALID_RESULT, after_rewrite, read_tool_content
    from gateway.wire.process import ExtensionProcess, UiHandler
    from gateway.wire.protocol import (
        CancelMessage,
        CommandRequest,
        CommandSpec,
        Compaction,
        EventRequest,
        HostMessage,
        HostRequest,
        HostResponse,
        InitializeMessage,
        MessageError,
        Notification,
        RegisterMessage,
        ResponseMessage,
        ShutdownMessage,
        ToolRequest,
        ToolSpec,
        ToolUpdate,
        UiRequest,
        UiResponse,
        UpdateMessage,
        describe_validation_error,
        encode,
        parse_extension_message,
    )

_WHERE: dict[str, str] = {
    "CancelMessage": "gateway.wire.protocol",
    "ChildPipes": "gateway.wire._pipes",
    "CommandRequest": "gateway.wire.protocol",
    "CommandSpec": "gateway.wire.protocol",
    "Compaction": "gateway.wire.protocol",
    "DEFAULT_LINE_CAP": "gateway.wire._framing",
    "DeadlinePause": "gateway.wire._pause",
    "EventRequest": "gateway.wire.protocol",
    "ExtensionError": "gateway.wire._errors",
    "ExtensionProcess": "gateway.wire.process",
    "HostMessage": "gateway.wire.protocol",
    "HostRequest": "gateway.wire.protocol",
    "HostResponse": "gateway.wire.protocol",
    "INVALID_RESULT": "gateway.wire._tool_content",
    "InitializeMessage": "gateway.wire.protocol",
    "LaunchPlan": "gateway.wire._plan",
    "LineFramer": "gateway.wire._framing",
    "LogLimits": "gateway.wire._logfiles",
    "Member": "gateway.wire._owners",
    "MemberNames": "gateway.wire._owners",
    "MessageError": "gateway.wire.protocol",
    "Notification": "gateway.wire.protocol",
    "OversizedLine": "gateway.wire._framing",
    "PipeClosed": "gateway.wire._pipes",
    "RegisterInvalid": "gateway.wire._errors",
    "RegisterMessage": "gateway.wire.protocol",
    "ResponseMessage": "gateway.wire.protocol",
    "RotatingLog": "gateway.wire._logfiles",
    "SandboxRefused": "gateway.wire._errors",
    "ShutdownMessage": "gateway.wire.protocol",
    "ToolRequest": "gateway.wire.protocol",
    "ToolSpec": "gateway.wire.protocol",
    "ToolUpdate": "gateway.wire.protocol",
    "TransportConfig": "gateway.wire._plan",
    "UiAnswer": "gateway.wire._errors",
    "UiHandler": "gateway.wire.process",
    "UiRequest": "gateway.wire.protocol",
    "UiResponse": "gateway.wire.protocol",
    "UpdateMessage": "gateway.wire.protocol",
    "after_rewrite": "gateway.wire._tool_content",
    "describe_validation_error": "gateway.wire.protocol",
    "encode": "gateway.wire.protocol",
    "log_path": "gateway.wire._logfiles",
    "open_log": "gateway.wire._logfiles",
    "parse_extension_message": "gateway.wire.protocol",
    "read_lines": "gateway.wire._framing",
    "read_tool_content": "gateway.wire._tool_content",
    "split_registration": "gateway.wire._owners",
    "split_specs": "gateway.wire._owners",
}

__all__ = [
    "DEFAULT_LINE_CAP",
    "INVALID_RESULT",
    "CancelMessage",
    "ChildPipes",
    "CommandRequest",
    "CommandSpec",
    "Compaction",
    "DeadlinePause",
    "EventRequest",
    "ExtensionError",
    "ExtensionProcess",
    "HostMessage",
    "HostRequest",
    "HostResponse",
    "InitializeMessage",
    "LaunchPlan",
    "LineFramer",
    "LogLimits",
    "Member",
    "MemberNames",
    "MessageError",
    "Notification",
    "OversizedLine",
    "PipeClosed",
    "RegisterInvalid",
    "RegisterMessage",
    "ResponseMessage",
    "RotatingLog",
    "SandboxRefused",
    "ShutdownMessage",
    "ToolRequest",
    "ToolSpec",
    "ToolUpdate",
    "TransportConfig",
    "UiAnswer",
    "UiHandler",
    "UiRequest",
    "UiResponse",
    "UpdateMessage",
    "after_rewrite",
    "describe_validation_error",
    "encode",
    "log_path",
    "open_log",
    "parse_extension_message",
    "read_lines",
    "read_tool_content",
    "split_registration",
    "split_specs",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
