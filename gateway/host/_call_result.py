"""The result of a per-call tool: one JSON document in MCP's ``CallToolResult`` shape,
``{content: [...], isError}``, read into the text a model and the hooks see and the
structured parts an embedding agent gets (``ToolResult.parts``).

Text, image and audio parts are kept; image and audio data is also saved as a file under
``GATEWAY_HOME/workspace/tools/`` (Nu saves them under ``~/.nu/workspace/tools/``), and
the part carries its ``path``. Anything else is unusable content: the call is an error
result (``invalid_extension_result``), as nimlet fails a content part it cannot show.
Whatever the tool sends is hostile input: types, MIME types and base64 are checked.
"""

from __future__ import annotations

import binascii
import itertools
import json
import mimetypes
import os
import re
import time
from pathlib import Path
from typing import Any

from gateway.base import private_dir, private_file
from gateway.model import ToolOutcome
from gateway.sandbox import safe_name
from gateway.wire import INVALID_RESULT

__all__ = ["MEDIA_TYPES", "media_dir", "read_call_result"]

MEDIA_TYPES = ("image", "audio")
_MIME = re.compile(r"^[A-Za-z0-9][\w.+-]*/[\w.+-]+$")
_counter = itertools.count(1)
_EXTENSIONS = {"audio/wav": ".wav", "audio/x-wav": ".wav", "audio/mpeg": ".mp3",
               "audio/ogg": ".ogg", "audio/webm": ".webm", "image/webp": ".webp"}  # fmt: skip
"""Where ``mimetypes`` has no answer (it varies with the platform's tables)."""


def media_dir(home: Path) -> Path:
    return home / "workspace" / "tools"


def read_call_result(document: str, tool: str, home: Path) -> ToolOutcome | None:
    """The outcome, or None when ``document`` is not a result at all (the process ended
    without answering)."""
    try:
        data = json.loads(document)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("content"), list):
        return None
    texts: list[str] = []
    parts: list[dict[str, Any]] = []
    for index, part in enumerate(data["content"]):
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
            parts.append({"type": "text", "text": part["text"]})
        elif kind in MEDIA_TYPES:
            saved = _media(part, tool, home)
            if isinstance(saved, str):
                return _invalid(f"content[{index}]: {saved}")
            parts.append(saved)
        else:
            shown = kind if isinstance(kind, str) else type(part).__name__
            return _invalid(f"content[{index}]: {shown[:40]!r} parts are not supported "
                            "(text, image and audio are)")  # fmt: skip
    extra: dict[str, Any] = {"parts": parts, "keep_images": True}
    return ToolOutcome("\n".join(texts), data.get("isError") is True, extra)


def _invalid(problem: str) -> ToolOutcome:
    return ToolOutcome(problem, True, {"error_code": INVALID_RESULT})


def _media(part: dict[str, Any], tool: str, home: Path) -> dict[str, Any] | str:
    kind, mime, data = part["type"], part.get("mimeType"), part.get("data")
    if not isinstance(mime, str) or not _MIME.match(mime):
        return f"an {kind} part needs a mimeType such as {kind}/png"
    if not isinstance(data, str) or not data:
        return f"an {kind} part needs base64 data"
    try:
        raw = binascii.a2b_base64(data, strict_mode=True)
    except binascii.Error:
        return f"{kind} data is not base64"
    folder = private_dir(media_dir(home))
    extension = _EXTENSIONS.get(mime.lower()) or mimetypes.guess_extension(mime.lower()) or ".bin"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"{safe_name(tool)}-{stamp}-{os.getpid()}-{next(_counter)}{extension}"
    fd = private_file(path, exclusive=True)
    with os.fdopen(fd, "wb") as out:
        out.write(raw)
    return {"type": kind, "mime_type": mime, "data": data, "path": str(path)}
