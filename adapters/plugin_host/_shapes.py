"""What an MCP server sends, read by hand into small dataclasses: the listings (tools,
prompts, resources) and the results (a tool call's, a prompt's, a resource's). Both MCP
clients of the plugin host produce them: the lean stdio client (``_stdio_client``) from
the wire's JSON, the SDK's (``_sdk_client``, remote servers and the fallback) from its
pydantic models dumped with ``model_dump(by_alias=True, mode="json")``. So the registry
(``_registry``) and the reply mapping (``_content``) are written once, against these.

Everything a server sends is hostile: a field of the wrong type is an ``InvalidResult``
(a whole result) or a problem naming the item (one listed item: the others are kept)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from gateway.base import GatewayError

__all__ = [
    "CONNECTION_CLOSED",
    "Block",
    "CallResult",
    "Contents",
    "InvalidResult",
    "MCPError",
    "Progress",
    "Prompt",
    "PromptArgument",
    "PromptResult",
    "Resource",
    "ResourceResult",
    "Session",
    "Tool",
    "read_call_result",
    "read_prompt",
    "read_prompt_result",
    "read_resource",
    "read_resource_result",
    "read_tool",
]

CONNECTION_CLOSED = -32000
"""The JSON-RPC error code of a connection that ended with requests in flight (the SDK's)."""

Progress = Callable[[float, float | None, str | None], Awaitable[None]]
"""A call's progress callback: done, total (None: unknown), the server's note."""


class MCPError(GatewayError):
    """A JSON-RPC error answer, or the connection's end (``CONNECTION_CLOSED``). Named as
    the SDK's exception is, so what the host reports reads the same with either client."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class InvalidResult(GatewayError, ValueError):
    """A result that is not the protocol's shape."""


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str | None
    title: str | None
    input_schema: dict[str, Any]
    read_only: bool


@dataclass(frozen=True, slots=True)
class PromptArgument:
    name: str
    required: bool


@dataclass(frozen=True, slots=True)
class Prompt:
    name: str
    description: str | None
    title: str | None
    arguments: tuple[PromptArgument, ...]


@dataclass(frozen=True, slots=True)
class Resource:
    name: str
    uri: str
    description: str | None


@dataclass(frozen=True, slots=True)
class Contents:
    """A resource's contents: ``text``, or ``blob`` (base64)."""

    uri: str
    mime_type: str | None
    text: str | None
    blob: str | None


@dataclass(frozen=True, slots=True)
class Block:
    """A content block: ``text``, ``image`` / ``audio`` (``data``, ``mime_type``),
    ``resource`` (``contents``), ``resource_link`` (``name``, ``uri``), or another type
    this host does not know (``type`` as the server named it)."""

    type: str
    text: str = ""
    data: str = ""
    mime_type: str | None = None
    name: str = ""
    uri: str = ""
    contents: Contents | None = None


@dataclass(frozen=True, slots=True)
class CallResult:
    content: tuple[Block, ...]
    structured: dict[str, Any] | None
    is_error: bool


@dataclass(frozen=True, slots=True)
class PromptResult:
    messages: tuple[tuple[str, Block], ...]


@dataclass(frozen=True, slots=True)
class ResourceResult:
    contents: tuple[Contents, ...]


class Session(Protocol):
    """A connected server's requests, as ``_requests`` makes them (``meta``: the request's
    ``_meta``, its trace context). Errors: ``MCPError``, ``InvalidResult``, or any other
    exception for a connection that failed."""

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        progress: Progress | None,
        meta: dict[str, Any] | None,
    ) -> CallResult: ...

    async def read_resource(self, uri: str, meta: dict[str, Any] | None) -> ResourceResult: ...

    async def get_prompt(
        self, name: str, arguments: dict[str, str], meta: dict[str, Any] | None
    ) -> PromptResult: ...


def _object(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidResult(f"{what} is not an object")
    return value


def _text(raw: dict[str, Any], key: str, what: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str):
        raise InvalidResult(f"{what}'s {key} is not a string")
    return value


def _optional_text(raw: dict[str, Any], key: str, what: str) -> str | None:
    value = raw.get(key)
    if value is not None and not isinstance(value, str):
        raise InvalidResult(f"{what}'s {key} is not a string")
    return value


def _list(raw: dict[str, Any], key: str, what: str) -> list[Any]:
    value = raw.get(key)
    if not isinstance(value, list):
        raise InvalidResult(f"{what}'s {key} is not a list")
    return value


def read_tool(value: Any) -> Tool:
    raw = _object(value, "the tool")
    schema = raw.get("inputSchema")
    if not isinstance(schema, dict):
        raise InvalidResult("the tool's inputSchema is not an object")
    annotations = raw.get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        raise InvalidResult("the tool's annotations is not an object")
    read_only = (annotations or {}).get("readOnlyHint")
    if read_only is not None and not isinstance(read_only, bool):
        raise InvalidResult("the tool's annotations.readOnlyHint is not a boolean")
    return Tool(
        name=_text(raw, "name", "the tool"),
        description=_optional_text(raw, "description", "the tool"),
        title=_optional_text(raw, "title", "the tool"),
        input_schema=schema,
        read_only=bool(read_only),
    )


def read_prompt(value: Any) -> Prompt:
    raw = _object(value, "the prompt")
    arguments: list[PromptArgument] = []
    listed = raw.get("arguments")
    if listed is not None and not isinstance(listed, list):
        raise InvalidResult("the prompt's arguments is not a list")
    for item in listed or []:
        argument = _object(item, "a prompt argument")
        required = argument.get("required")
        if required is not None and not isinstance(required, bool):
            raise InvalidResult("a prompt argument's required is not a boolean")
        arguments.append(
            PromptArgument(_text(argument, "name", "a prompt argument"), bool(required))
        )
    return Prompt(
        name=_text(raw, "name", "the prompt"),
        description=_optional_text(raw, "description", "the prompt"),
        title=_optional_text(raw, "title", "the prompt"),
        arguments=tuple(arguments),
    )


def read_resource(value: Any) -> Resource:
    raw = _object(value, "the resource")
    return Resource(
        name=_text(raw, "name", "the resource"),
        uri=_text(raw, "uri", "the resource"),
        description=_optional_text(raw, "description", "the resource"),
    )


def _contents(value: Any) -> Contents:
    raw = _object(value, "a resource's contents")
    what = "a resource's contents"
    text, blob = _optional_text(raw, "text", what), _optional_text(raw, "blob", what)
    if (text is None) == (blob is None):
        raise InvalidResult(f"{what} has neither text nor blob, or both")
    return Contents(_text(raw, "uri", what), _optional_text(raw, "mimeType", what), text, blob)


def _block(value: Any) -> Block:
    raw = _object(value, "a content block")
    kind = _text(raw, "type", "a content block")
    what = f"a {kind} content block"
    if kind == "text":
        return Block(kind, text=_text(raw, "text", what))
    if kind in ("image", "audio"):
        return Block(kind, data=_text(raw, "data", what), mime_type=_text(raw, "mimeType", what))
    if kind == "resource":
        return Block(kind, contents=_contents(raw.get("resource")))
    if kind == "resource_link":
        return Block(kind, name=_text(raw, "name", what), uri=_text(raw, "uri", what))
    return Block(kind[:40])


def read_call_result(value: Any) -> CallResult:
    raw = _object(value, "the tool's result")
    structured = raw.get("structuredContent")
    if structured is not None and not isinstance(structured, dict):
        raise InvalidResult("the tool's structuredContent is not an object")
    is_error = raw.get("isError")
    if is_error is not None and not isinstance(is_error, bool):
        raise InvalidResult("the tool's isError is not a boolean")
    content = raw.get("content", [])
    if not isinstance(content, list):
        raise InvalidResult("the tool's content is not a list")
    return CallResult(tuple(_block(b) for b in content), structured, bool(is_error))


def read_prompt_result(value: Any) -> PromptResult:
    raw = _object(value, "the prompt's result")
    messages: list[tuple[str, Block]] = []
    for item in _list(raw, "messages", "the prompt's result"):
        message = _object(item, "a prompt message")
        messages.append(
            (_text(message, "role", "a prompt message"), _block(message.get("content")))
        )
    return PromptResult(tuple(messages))


def read_resource_result(value: Any) -> ResourceResult:
    raw = _object(value, "the resource's result")
    return ResourceResult(
        tuple(_contents(c) for c in _list(raw, "contents", "the resource's result"))
    )
