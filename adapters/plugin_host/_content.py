"""MCP results in nimlet replies: a tool's content blocks become the plain ``content``
string (the text, joined with newlines) and, when ``tool.parts`` was negotiated, the
structured ``gateway.parts`` (text and image parts) with ``details`` carrying the result's
``structuredContent``. What has no part type (audio, binary resources, resource links)
is described in a text part rather than dropped."""

from __future__ import annotations

import json
from typing import Any

from adapters.plugin_host._shapes import (
    Block,
    CallResult,
    Contents,
    PromptResult,
    ResourceResult,
)

__all__ = ["prompt_text", "resource_text", "tool_reply"]


def _blob(kind: str, uri: str, mime: str | None, data: str) -> str:
    size = len(data) * 3 // 4
    return f"[{kind} {uri} ({mime or 'application/octet-stream'}, about {size} bytes)]"


def _resource_contents(contents: Contents) -> str:
    if contents.text is not None:
        return contents.text
    return _blob("binary resource", contents.uri, contents.mime_type, contents.blob or "")


def _part(block: Block) -> dict[str, Any]:
    if block.type == "text":
        return {"type": "text", "text": block.text}
    if block.type == "image":
        return {"type": "image", "data": block.data, "mime_type": block.mime_type}
    if block.type == "resource" and block.contents is not None:
        return {"type": "text", "text": _resource_contents(block.contents)}
    if block.type == "audio":
        return {"type": "text", "text": _blob("audio", "(inline)", block.mime_type, block.data)}
    if block.type == "resource_link":
        return {"type": "text", "text": f"[resource link {block.name}: {block.uri}]"}
    return {"type": "text", "text": f"[unsupported MCP content {block.type!r}]"}


def tool_reply(result: CallResult, parts_negotiated: bool) -> dict[str, Any]:
    """The fields of the ``response`` to a ``tool`` request."""
    parts = [_part(block) for block in result.content]
    text = "\n".join(p["text"] for p in parts if p["type"] == "text")
    if not text and result.structured is not None:
        text = json.dumps(result.structured, ensure_ascii=False)
    reply: dict[str, Any] = {"content": text, "is_error": bool(result.is_error)}
    if parts_negotiated and (
        any(p["type"] == "image" for p in parts) or result.structured is not None
    ):
        gateway: dict[str, Any] = {"parts": parts or [{"type": "text", "text": text}]}
        if result.structured is not None:
            gateway["details"] = result.structured
        reply["gateway"] = gateway
    return reply


def resource_text(result: ResourceResult) -> str:
    return "\n".join(_resource_contents(contents) for contents in result.contents)


def prompt_text(result: PromptResult) -> str:
    """The prompt's messages as one text: a single message as is, several with their role."""
    texts = [(role, _part(block).get("text", "")) for role, block in result.messages]
    if len(texts) == 1:
        return texts[0][1]
    return "\n\n".join(f"{role}: {text}" for role, text in texts)
