"""``tool.json`` tools: a fresh process per call.

Arguments go to stdin as one JSON document (through a temporary file, as nimlet does), the
tool writes one JSON document to stdout, stdout and stderr are each capped, a non-zero exit
marks an error, and on timeout or interruption the whole process group is killed.
"""

from __future__ import annotations

import json
import signal
import tempfile
from collections.abc import Mapping
from pathlib import Path
from subprocess import PIPE
from typing import Any

import anyio
from anyio.abc import ByteReceiveStream

from ._spawn import LaunchError, kill_group, resolve_command, signal_group
from .discovery import DiscoveredTool
from .registry import ToolOutcome

__all__ = ["DEFAULT_OUTPUT_CAP", "run_tool_json"]

DEFAULT_OUTPUT_CAP = 100_000
"""Bytes kept of stdout and of stderr, each (nimlet's 100 kB)."""


async def _drain(stream: ByteReceiveStream | None, cap: int, sink: bytearray) -> bool:
    """Read to EOF keeping at most ``cap`` bytes; True when something was cut."""
    if stream is None:
        return False
    cut = False
    while True:
        try:
            chunk = await stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            return cut
        room = cap - len(sink)
        if len(chunk) > room:
            cut = True
        sink += chunk[: max(room, 0)]


async def run_tool_json(
    tool: DiscoveredTool,
    arguments: dict[str, Any],
    workspace: Path,
    env: Mapping[str, str],
    output_cap: int = DEFAULT_OUTPUT_CAP,
) -> ToolOutcome:
    manifest = tool.manifest
    try:
        command = resolve_command(list(manifest.command), tool.folder, env.get("PATH"))
    except LaunchError as error:
        return ToolOutcome(f"{manifest.name}: {error}", is_error=True)
    stdout, stderr = bytearray(), bytearray()
    with tempfile.TemporaryFile() as stdin:
        stdin.write(json.dumps(arguments).encode())
        stdin.seek(0)
        try:
            process = await anyio.open_process(
                command,
                stdin=stdin,
                stdout=PIPE,
                stderr=PIPE,
                cwd=workspace,
                env=dict(env),
                start_new_session=True,
            )
        except OSError as error:
            return ToolOutcome(f"{manifest.name}: cannot start {command[0]}: {error}", True)
        cut = [False, False]
        timed_out = False
        try:
            with anyio.move_on_after(manifest.timeout_seconds) as scope:
                async with anyio.create_task_group() as tasks:

                    async def read(
                        index: int, stream: ByteReceiveStream | None, sink: bytearray
                    ) -> None:
                        cut[index] = await _drain(stream, output_cap, sink)

                    tasks.start_soon(read, 0, process.stdout, stdout)
                    tasks.start_soon(read, 1, process.stderr, stderr)
                    await process.wait()
                    # A finished tool's stray children would hold the pipes open until the
                    # timeout: they go with it, and the reads end at the buffered output.
                    signal_group(process.pid, signal.SIGKILL)
            timed_out = scope.cancelled_caught
        finally:
            with anyio.CancelScope(shield=True):
                if process.returncode is None:
                    kill_group(process.pid)
                else:
                    # Stray grandchildren of a finished tool go with it.
                    signal_group(process.pid, signal.SIGKILL)
                with anyio.move_on_after(2):
                    await process.aclose()
    return _outcome(manifest.name, manifest.timeout_seconds, process.returncode, timed_out,
                    bytes(stdout), bytes(stderr), cut[0], output_cap)  # fmt: skip


def _outcome(
    name: str,
    timeout: int,
    returncode: int | None,
    timed_out: bool,
    stdout: bytes,
    stderr: bytes,
    stdout_cut: bool,
    cap: int,
) -> ToolOutcome:
    errors = stderr.decode("utf-8", "replace").strip()
    if timed_out:
        return ToolOutcome(f"TIMEOUT after {timeout}s", is_error=True)
    if stdout_cut:
        return ToolOutcome(f"{name}: output exceeded {cap} bytes", is_error=True)
    text = stdout.decode("utf-8", "replace").strip()
    try:
        json.loads(text)
    except ValueError:
        detail = f"; stderr: {errors[:2000]}" if errors else ""
        return ToolOutcome(f"{name}: stdout is not one JSON document: {text[:2000]}{detail}", True)
    if returncode != 0:
        suffix = f"\n{errors[:2000]}" if errors else ""
        return ToolOutcome(f"{text}{suffix}", is_error=True)
    return ToolOutcome(text)
