"""``tool.json`` tools: a fresh process per call.

Arguments go to stdin as one JSON document (through a temporary file, as nimlet does), the
tool writes one JSON document to stdout, stdout and stderr are each capped, a non-zero exit
marks an error, and on timeout or interruption the whole process group is killed. The tool
runs confined by its sandbox policy (its declared capabilities decide what it may touch).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gateway.base import DEFAULT_OUTPUT_CAP, Diagnostics
from gateway.model import DiscoveredTool, ToolOutcome
from gateway.runtime import LaunchError, resolve_command, run_child
from gateway.sandbox import SandboxPolicy, SandboxUnavailable

__all__ = ["DEFAULT_OUTPUT_CAP", "run_tool_json"]

"""Bytes kept of stdout and of stderr, each (nimlet's 100 kB)."""


async def run_tool_json(
    tool: DiscoveredTool,
    arguments: dict[str, Any],
    workspace: Path,
    env: Mapping[str, str],
    output_cap: int = DEFAULT_OUTPUT_CAP,
    *,
    policy: SandboxPolicy | None = None,
    require_sandbox: bool = False,
    diagnostics: Diagnostics | None = None,
) -> ToolOutcome:
    manifest = tool.manifest
    try:
        command = resolve_command(list(manifest.command), tool.folder, env.get("PATH"))
    except LaunchError as error:
        return ToolOutcome(f"{manifest.name}: {error}", is_error=True)
    with tempfile.TemporaryFile() as stdin:
        stdin.write(json.dumps(arguments).encode())
        stdin.seek(0)
        try:
            done = await run_child(
                command,
                policy=policy,
                require_sandbox=require_sandbox,
                stdin=stdin,
                cwd=workspace,
                env=env,
                time_limit=manifest.timeout_seconds,
                cap=output_cap,
            )
        except SandboxUnavailable as error:
            return ToolOutcome(f"{manifest.name}: not started: {error}", True)
        except OSError as error:
            return ToolOutcome(f"{manifest.name}: cannot start {command[0]}: {error}", True)
    if diagnostics is not None:
        diagnostics.extend(list(done.exceeded))  # a resource limit it ran into
    return _outcome(manifest.name, manifest.timeout_seconds, done.returncode, done.timed_out,
                    done.stdout, done.stderr, done.stdout_cut, output_cap)  # fmt: skip


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
