"""A tool reply's ``content``, in either generation: a string (the older document) or an
array of ``text`` / ``image`` parts (current nimlet), read into the text the model and the
hooks see and the structured parts the embedding agent gets (``ToolResult.parts``).

Upstream fails the call for any part type but ``text`` and ``image``, with the error code
``invalid_extension_result``; so does the gateway, and it holds the parts it keeps to their
shape (an image needs a ``mimeType`` and either base64 ``data`` or a ``path`` inside the
workspace), since whatever an extension sends is hostile input.
"""

from __future__ import annotations

import binascii
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "INVALID_RESULT",
    "ToolContent",
    "after_rewrite",
    "read_tool_content",
    "read_update_text",
]

INVALID_RESULT = "invalid_extension_result"
"""Upstream's error code for a tool reply whose content it cannot read."""

_NOT_AN_ARRAY = "extension tool content must be an array"
_WRONG_PART = "extension tool content supports text and image parts"


@dataclass(frozen=True, slots=True)
class ToolContent:
    text: str
    """The text parts joined with a newline (images are not text)."""
    parts: list[dict[str, Any]] | None = None
    """The gateway's structured parts (``{type: "text", text}``, ``{type: "image",
    mime_type, data}`` or ``{type: "image", mime_type, path}``); None for string content."""
    error: str | None = None
    """Why the content is unusable (the call is then an error result, code
    ``invalid_extension_result``)."""


def read_tool_content(content: str | list[Any] | None, workspace: Path) -> ToolContent:
    if content is None:
        return ToolContent("")
    if isinstance(content, str):
        return ToolContent(content)
    if not isinstance(content, list):  # pragma: no cover - the wire model admits no other
        return ToolContent("", error=_NOT_AN_ARRAY)
    texts: list[str] = []
    parts: list[dict[str, Any]] = []
    for index, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            text = part.get("text")
            if not isinstance(text, str):
                return ToolContent("", error=f"content[{index}]: a text part needs a string text")
            texts.append(text)
            parts.append({"type": "text", "text": text})
        elif kind == "image":
            image = _image(part, workspace)
            if isinstance(image, str):
                return ToolContent("", error=f"content[{index}]: {image}")
            parts.append(image)
        else:
            return ToolContent("", error=_WRONG_PART)
    return ToolContent("\n".join(texts), parts)


def read_update_text(content: Any) -> tuple[str, str | None]:
    """A ``tool_update``'s ``content``: text, or an array of text parts joined with a newline
    as a result's are; returns the text and what is wrong with it (None when usable).
    Progress is text only: an image part is a problem too."""
    if isinstance(content, str):
        return content, None
    if not isinstance(content, list):
        kind = "missing" if content is None else f"a {type(content).__name__}"
        return "", f"content is {kind}, not text or an array of text parts"
    texts: list[str] = []
    for index, part in enumerate(content):
        if not isinstance(part, dict) or part.get("type") != "text":
            return "", f"content[{index}] is not a text part (progress is text only)"
        text = part.get("text")
        if not isinstance(text, str):
            return "", f"content[{index}]: a text part needs a string text"
        texts.append(text)
    return "\n".join(texts), None


def _image(part: dict[str, Any], workspace: Path) -> dict[str, Any] | str:
    """The gateway's image part, or what is wrong with it."""
    mime = part.get("mimeType")
    data, path = part.get("data"), part.get("path")
    if not isinstance(mime, str) or not mime:
        return "an image part needs a mimeType"
    if isinstance(data, str) and data:
        try:
            binascii.a2b_base64(data, strict_mode=True)
        except binascii.Error:
            return "image data is not base64"
        return {"type": "image", "mime_type": mime, "data": data}
    if isinstance(path, str) and path:
        resolved = _inside(workspace, path)
        if resolved is None:
            return f"image path {path!r} is outside the workspace"
        return {"type": "image", "mime_type": mime, "path": str(resolved)}
    return "an image part needs data or a path"


def _inside(workspace: Path, path: str) -> Path | None:
    """``path`` (relative to the workspace) resolved, symlinks too, if it stays inside."""
    root = Path(os.path.realpath(workspace))
    resolved = Path(os.path.realpath(root / path))
    return resolved if resolved == root or root in resolved.parents else None


def after_rewrite(
    parts: list[dict[str, Any]] | None, keep_images: bool, text: str
) -> list[dict[str, Any]] | None:
    """The parts once a ``tool_result`` hook replaced the output: nimlet keeps a result's
    images beside the new text; a runtime's ``tool.parts`` (Pi) are dropped, since Pi's
    patch replaces the whole content."""
    if parts is None or not keep_images:
        return None
    return [{"type": "text", "text": text}, *(p for p in parts if p.get("type") == "image")]
