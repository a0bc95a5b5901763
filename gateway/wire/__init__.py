"""The nimlet wire: message models, framing, the transports (a child's pipes, an in-memory
pair), the reader, pending requests, one ``ExtensionProcess`` per extension, and the
negotiated gateway features.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.wire._channel import Channel as Channel
    from gateway.wire._channel import ChannelClosed as ChannelClosed
    from gateway.wire._channel import LineSink as LineSink
    from gateway.wire._channel import PeerEnd as PeerEnd
    from gateway.wire._channel import Transport as Transport
    from gateway.wire._codes import EXTENSION_EXITED as EXTENSION_EXITED
    from gateway.wire._codes import EXTENSION_REGISTER_INVALID as EXTENSION_REGISTER_INVALID
    from gateway.wire._codes import PROTOCOL_UNKNOWN_ID as PROTOCOL_UNKNOWN_ID
    from gateway.wire._errors import ExtensionError as ExtensionError
    from gateway.wire._errors import ExtensionTimeout as ExtensionTimeout
    from gateway.wire._errors import MessageError as MessageError
    from gateway.wire._errors import RegisterInvalid as RegisterInvalid
    from gateway.wire._errors import SandboxRefused as SandboxRefused
    from gateway.wire._errors import UiAnswer as UiAnswer
    from gateway.wire._framing import DEFAULT_LINE_CAP as DEFAULT_LINE_CAP
    from gateway.wire._framing import LineFramer as LineFramer
    from gateway.wire._framing import OversizedLine as OversizedLine
    from gateway.wire._framing import read_lines as read_lines
    from gateway.wire._logfiles import LogLimits as LogLimits
    from gateway.wire._logfiles import RotatingLog as RotatingLog
    from gateway.wire._logfiles import calls_log as calls_log
    from gateway.wire._logfiles import log_path as log_path
    from gateway.wire._logfiles import open_log as open_log
    from gateway.wire._logfiles import runtime_log as runtime_log
    from gateway.wire._memory import MemoryChannel as MemoryChannel
    from gateway.wire._memory import MemoryPeer as MemoryPeer
    from gateway.wire._memory import MemoryTransport as MemoryTransport
    from gateway.wire._memory import Program as Program
    from gateway.wire._owners import Member as Member
    from gateway.wire._owners import MemberNames as MemberNames
    from gateway.wire._owners import split_registration as split_registration
    from gateway.wire._owners import split_specs as split_specs
    from gateway.wire._pause import DeadlinePause as DeadlinePause
    from gateway.wire._pipe_channel import PipeChannel as PipeChannel
    from gateway.wire._pipe_channel import PipeTransport as PipeTransport
    from gateway.wire._pipes import ChildPipes as ChildPipes
    from gateway.wire._pipes import PipeClosed as PipeClosed
    from gateway.wire._plan import LaunchPlan as LaunchPlan
    from gateway.wire._plan import TransportConfig as TransportConfig
    from gateway.wire._tool_content import INVALID_RESULT as INVALID_RESULT
    from gateway.wire._tool_content import after_rewrite as after_rewrite
    from gateway.wire._tool_content import read_tool_content as read_tool_content
    from gateway.wire._tool_content import read_update_text as read_update_text
    from gateway.wire.process import ExtensionProcess as ExtensionProcess
    from gateway.wire.process import ProcessHost as ProcessHost
    from gateway.wire.process import UiHandler as UiHandler
    from gateway.wire.protocol import CancelMessage as CancelMessage
    from gateway.wire.protocol import CommandRequest as CommandRequest
    from gateway.wire.protocol import CommandSpec as CommandSpec
    from gateway.wire.protocol import Compaction as Compaction
    from gateway.wire.protocol import EventRequest as EventRequest
    from gateway.wire.protocol import HostMessage as HostMessage
    from gateway.wire.protocol import HostRequest as HostRequest
    from gateway.wire.protocol import HostResponse as HostResponse
    from gateway.wire.protocol import InitializeMessage as InitializeMessage
    from gateway.wire.protocol import Notification as Notification
    from gateway.wire.protocol import RegisterMessage as RegisterMessage
    from gateway.wire.protocol import ResponseMessage as ResponseMessage
    from gateway.wire.protocol import ShutdownMessage as ShutdownMessage
    from gateway.wire.protocol import ToolRequest as ToolRequest
    from gateway.wire.protocol import ToolSpec as ToolSpec
    from gateway.wire.protocol import ToolUpdate as ToolUpdate
    from gateway.wire.protocol import UiRequest as UiRequest
    from gateway.wire.protocol import UiResponse as UiResponse
    from gateway.wire.protocol import UpdateMessage as UpdateMessage
    from gateway.wire.protocol import describe_validation_error as describe_validation_error
    from gateway.wire.protocol import encode as encode
    from gateway.wire.protocol import parse_extension_message as parse_extension_message


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
