"""The editor nimlet opens for ``host_request`` ``ui.editor``: ``$VISUAL``, else
``$EDITOR``, else ``nano``, on the terminal the gateway runs in. ``gateway shell`` uses
it; an embedding agent opts in with ``AgentLink(edit_text=terminal_editor)`` (or gives its
own editor)."""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from pathlib import Path

import anyio

from gateway.model import EditRequest, EditResult

__all__ = ["UNAVAILABLE", "editor_command", "terminal_editor"]

UNAVAILABLE = "interactive editor is unavailable"


def editor_command() -> list[str]:
    for name in ("VISUAL", "EDITOR"):
        value = os.environ.get(name, "").strip()
        if value:
            return shlex.split(value)
    return ["nano"]


def _on_a_terminal() -> bool:
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


async def terminal_editor(request: EditRequest) -> EditResult:
    """Edit ``request.text`` in the user's editor; without a terminal, cancelled with
    nimlet's reason. The text goes through a private temporary file, removed after."""
    if not _on_a_terminal():
        return EditResult(error=UNAVAILABLE)
    folder = await anyio.to_thread.run_sync(lambda: tempfile.mkdtemp(prefix="gateway-edit-"))
    path = Path(folder) / "message.md"
    try:
        await anyio.Path(path).write_text(request.text, encoding="utf-8")
        command = [*editor_command(), str(path)]
        try:
            process = await anyio.open_process(command, stdin=None, stdout=None, stderr=None)
        except OSError as error:
            return EditResult(error=f"cannot start editor {command[0]}: {error}")
        async with process:
            code = await process.wait()
        if code != 0:
            return EditResult(error=f"editor {command[0]} exited with code {code}")
        text = await anyio.Path(path).read_text(encoding="utf-8", errors="replace")
    finally:
        await anyio.to_thread.run_sync(_remove, Path(folder))
    if text.endswith("\n") and not request.text.endswith("\n"):
        text = text[:-1]  # the newline editors add at the end of the file
    return EditResult(text=text)


def _remove(folder: Path) -> None:
    for child in folder.iterdir():
        child.unlink(missing_ok=True)
    folder.rmdir()
