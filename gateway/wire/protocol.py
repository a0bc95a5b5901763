"""The nimlet v1 wire protocol: one pydantic model per message, both directions.

Host → extension: initialize, tool, command, event, cancel, ui_response, host_response,
shutdown. Extension → host: register, response, update, ui_request, tool_update,
host_request. Both generations of nimlet share ``version: 1``: the older document's
messages and current upstream's additions (``tool_update``, ``host_request``, a tool
``content`` array, command ``context``) are one vocabulary (docs/protocol.md says which
generation has which).

Messages an extension sends are validated strictly on types; unknown fields are ignored so
that extensions written for a newer host keep working (a real nimlet host ignores them too).
``register`` is the exception that is held to every rule in the spec, because an invalid
register fails startup.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)
from pydantic import ValidationError as PydanticValidationError

from gateway.base import CAPABILITIES, DEFAULT_CAPABILITIES, PROTOCOL_VERSION, schema_problem
from gateway.wire._errors import MessageError

__all__ = [
    "CancelMessage",
    "CommandRequest",
    "CommandSpec",
    "Compaction",
    "EventRequest",
    "ExtensionMessage",
    "HostRequest",
    "HostResponse",
    "InitializeMessage",
    "Notification",
    "RegisterMessage",
    "ResponseMessage",
    "ShutdownMessage",
    "Status",
    "ToolRequest",
    "ToolSpec",
    "ToolUpdate",
    "UiRequest",
    "UiResponse",
    "UpdateMessage",
    "Widget",
    "capability_problem",
    "encode",
    "parse_extension_message",
]


# defer_build: a validator is built on first use, not at import: a short command (``gateway
# call``) uses a few of these messages, and building them all cost more than its extension's start.
class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


class _Outgoing(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


# --------------------------------------------------------------------------- side effects


class Status(_Wire):
    key: StrictStr
    text: StrictStr


class Widget(_Wire):
    key: StrictStr
    lines: list[StrictStr]
    placement: StrictStr = ""


class Notification(_Wire):
    level: StrictStr = "info"
    message: StrictStr


class _SideEffects(_Wire):
    status: Status | None = None
    widget: Widget | None = None
    notification: Notification | None = None
    # ``entry`` may be any JSON value, including null; "absent" is told apart by
    # ``model_fields_set``.
    entry: Any = None
    # Current nimlet: ``{content, deliver_as}``; checked where it is delivered (a malformed
    # one is dropped with a diagnostic, not the whole line, as upstream drops it).
    user_message: Any = None

    @property
    def has_entry(self) -> bool:
        return "entry" in self.model_fields_set


# --------------------------------------------------------------------------- register


class CommandSpec(_Wire):
    name: Annotated[StrictStr, Field(min_length=1)]
    description: StrictStr = ""


def capability_problem(value: object) -> str | None:
    """Why a ``capabilities`` value is invalid (upstream's wording), or None. Matching is
    case-insensitive; ``null`` is valid (the unsafe default)."""
    if value is None:
        return None
    if not isinstance(value, list):
        return "capabilities must be an array"
    for item in value:
        if not isinstance(item, str):
            return "capabilities must contain strings"
        if item.lower() not in CAPABILITIES:
            return f"unknown capability: {item}"
    return None


class ToolSpec(_Wire):
    name: Annotated[StrictStr, Field(min_length=1)]
    description: StrictStr
    input_schema: dict[str, Any]
    capabilities: list[StrictStr] | None = None
    # Negotiated additions of a tool spec (docs/protocol.md; ``tool.output``: ``output_schema``),
    # read only from a process offered them (``ToolExtras.output_schema``).
    gateway: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _valid_capabilities(cls, data: Any) -> Any:
        # One bad value rejects the whole register, named as upstream names it.
        if isinstance(data, dict) and "capabilities" in data:
            problem = capability_problem(data["capabilities"])
            if problem is not None:
                raise ValueError(f"invalid capabilities for tool '{data.get('name')}': {problem}")
            if data["capabilities"] is not None:
                lowered = dict.fromkeys(item.lower() for item in data["capabilities"])
                data = {**data, "capabilities": list(lowered)}
        return data

    @field_validator("input_schema")
    @classmethod
    def _valid_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        problem = schema_problem(value)
        if problem is not None:
            raise ValueError(f"input_schema is not a valid JSON Schema: {problem}")
        return value

    @property
    def effective_capabilities(self) -> tuple[str, ...]:
        if self.capabilities is None:
            return DEFAULT_CAPABILITIES
        return tuple(self.capabilities)


class RegisterMessage(_Wire):
    type: Literal["register"]
    commands: list[CommandSpec]
    tools: list[ToolSpec] | None = None
    events: list[StrictStr] | None = None
    # Negotiated gateway extension (docs/protocol.md); plain v1 extensions omit it.
    gateway: dict[str, Any] | None = None


# --------------------------------------------------------------------------- extension → host


class Compaction(_Wire):
    summary: StrictStr
    first_kept_index: StrictInt
    details: Any = None


class ResponseMessage(_SideEffects):
    type: Literal["response"]
    id: StrictStr
    # A string (the older document) or an array of text / image parts (current nimlet);
    # the parts are checked where a tool reply is read (``gateway.wire._tool_content``).
    content: StrictStr | list[Any] | None = None
    is_error: StrictBool | None = None
    message: StrictStr | None = None
    prompt: StrictStr | None = None
    allow: StrictBool | None = None
    reason: StrictStr | None = None
    arguments: dict[str, Any] | None = None
    output: StrictStr | None = None
    instruction: StrictStr | None = None
    compaction: Compaction | None = None
    # Reply fields of the extended events (negotiated ``events.extended``: input,
    # before_agent_start, context). Only processes offered the feature receive those
    # events, so only their replies are read; any JSON is accepted here and the event rule
    # checks the kind (a wrong one is ``hook.failed``), so a plain v1 extension that happens
    # to send such a key is not broken.
    action: Any = None
    text: Any = None
    system_prompt: Any = None
    messages: Any = None
    # Current nimlet: the ``context`` event's additions (``system``, ``messages``) and a
    # command's ``session`` action and ``reload``; read where they apply, checked there.
    system: Any = None
    session: Any = None
    reload: Any = None
    # Negotiated gateway additions (docs/protocol.md: tool.parts, host.actions). Any JSON
    # is accepted here so a plain v1 extension that happens to send the key is not broken;
    # the host reads only the shapes it announced.
    gateway: Any = None


class UpdateMessage(_SideEffects):
    type: Literal["update"]
    id: StrictStr | None = None
    # Negotiated gateway additions (docs/protocol.md: tool.progress, registration.update).
    gateway: Any = None


class UiRequest(_Wire):
    type: Literal["ui_request"]
    id: StrictStr
    method: StrictStr
    prompt: StrictStr = ""
    options: list[StrictStr] = Field(default_factory=list)


class ToolUpdate(_Wire):
    """Current nimlet: progress text for an in-flight ``tool`` request. No reply.
    ``content`` is text or an array of text parts (``read_update_text``); the host reports
    any other as ``protocol.tool_update_invalid``, so it is not validated here."""

    type: Literal["tool_update"]
    id: StrictStr
    content: Any = None


class HostRequest(_Wire):
    """The extension asks the host during a call; answered with ``host_response``.

    Current nimlet puts a method's inputs beside ``method`` (``{"type": "host_request",
    "id", "method": "model.complete", "prompt": …}``); the gateway's negotiated
    ``host.request`` puts them in ``params``. Both arrive here: ``arguments`` merges them.
    """

    model_config = ConfigDict(extra="allow", frozen=True)

    type: Literal["host_request"]
    id: StrictStr
    method: StrictStr
    params: dict[str, Any] | None = None

    @property
    def negotiated_shape(self) -> bool:
        """Sent in the negotiated form (inputs in a ``params`` object)."""
        return self.params is not None

    def arguments(self) -> dict[str, Any]:
        return {**(self.model_extra or {}), **(self.params or {})}


ExtensionMessage = (
    RegisterMessage | ResponseMessage | UpdateMessage | UiRequest | HostRequest | ToolUpdate
)

_BY_TYPE: dict[str, type[_Wire]] = {
    "register": RegisterMessage,
    "response": ResponseMessage,
    "update": UpdateMessage,
    "ui_request": UiRequest,
    "host_request": HostRequest,
    "tool_update": ToolUpdate,
}


def describe_validation_error(error: PydanticValidationError) -> str:
    parts = []
    for item in error.errors(include_url=False):
        location = ".".join(str(piece) for piece in item["loc"]) or "message"
        message = item["msg"].removeprefix("Value error, ")
        parts.append(f"{location}: {message}")
    return "; ".join(parts)


def parse_extension_message(data: object) -> ExtensionMessage:
    """Validate one decoded JSON value from an extension's stdout."""
    if not isinstance(data, dict):
        raise MessageError(f"expected a JSON object, got {type(data).__name__}")
    kind = data.get("type")
    model = _BY_TYPE.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise MessageError(f"unknown message type {kind!r}")
    try:
        return model.model_validate(data)  # type: ignore[return-value]
    except PydanticValidationError as error:
        raise MessageError(f"invalid {kind}: {describe_validation_error(error)}") from None


# --------------------------------------------------------------------------- host → extension


class InitializeMessage(_Outgoing):
    type: Literal["initialize"] = "initialize"
    version: int = PROTOCOL_VERSION
    workspace: str
    session_id: str
    gateway: dict[str, Any] | None = None


class ToolRequest(_Outgoing):
    type: Literal["tool"] = "tool"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    gateway: dict[str, Any] | None = None  # negotiated trace.context: {traceparent, tracestate?}


class CommandRequest(_Outgoing):
    type: Literal["command"] = "command"
    id: str
    name: str
    arguments: str = ""
    context: dict[str, Any] | None = None
    """Current nimlet: ``{mode, workspace, session_id, provider, model, messages}``."""
    gateway: dict[str, Any] | None = None  # negotiated trace.context: {traceparent, tracestate?}


class EventRequest(_Outgoing):
    type: Literal["event"] = "event"
    id: str
    event: str
    payload: dict[str, Any]
    gateway: dict[str, Any] | None = None
    """Negotiated ``register.owners``: ``{"package": id}`` addresses the event to one package
    of a process hosting several (``trace.context``: the trace beside it). Omitted otherwise."""


class CancelMessage(_Outgoing):
    type: Literal["cancel"] = "cancel"
    id: str


class UiResponse(_Outgoing):
    """``answer`` for question / input / password; ``confirmed`` (and no ``answer``) for confirm."""

    type: Literal["ui_response"] = "ui_response"
    id: str
    answer: str | None = ""
    confirmed: bool | None = None
    cancelled: bool = False


class HostResponse(_Outgoing):
    type: Literal["host_response"] = "host_response"
    id: str
    result: Any = None
    error: str | None = None
    cancelled: bool | None = None


class ShutdownMessage(_Outgoing):
    type: Literal["shutdown"] = "shutdown"


HostMessage = (
    InitializeMessage
    | ToolRequest
    | CommandRequest
    | EventRequest
    | CancelMessage
    | UiResponse
    | HostResponse
    | ShutdownMessage
)


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def encode(message: HostMessage) -> bytes:
    """One line of the wire: compact JSON and a newline.

    Only top-level ``None`` fields are dropped; ``None`` inside tool arguments or payloads is
    data and goes through untouched (pydantic's ``exclude_none`` would recurse into them).
    """
    fields = {key: value for key, value in message.__dict__.items() if value is not None}
    return (_ENCODER.encode(fields) + "\n").encode()
