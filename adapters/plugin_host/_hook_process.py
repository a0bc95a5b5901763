"""One hook command run the way Claude Code runs it: ``sh -c COMMAND`` with the event as
JSON on stdin, in a process group of its own, killed (the whole group) when it outlives its
timeout or writes more than ``OUTPUT_LIMIT`` bytes on either stream.

The command runs as a child of the plugin host, so it inherits the package's sandbox.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

import anyio
from anyio.abc import ByteReceiveStream, Process

from gateway.base import GatewayError

__all__ = ["OUTPUT_LIMIT", "HookRun", "run_hook_command"]

OUTPUT_LIMIT = 256 * 1024
"""Bytes kept from each of stdout and stderr; a hook that writes more is killed."""


@dataclass(frozen=True, slots=True)
class HookRun:
    """What one command did. ``exit_code`` is None when it did not finish by itself
    (``failure`` says why: timed out, too much output, could not start)."""

    exit_code: int | None
    stdout: str
    stderr: str
    failure: str | None = None
    overflow: bool = False
    """It wrote more than the limit (and was killed); the first ``limit`` bytes are kept."""
    code: str | None = None
    """The diagnostic a failure is (None: ``claude.hook_failed``)."""


class _Overflow(GatewayError):
    pass


async def run_hook_command(
    command: str,
    stdin: bytes,
    *,
    seconds: float,
    cwd: str,
    env: Mapping[str, str],
    limit: int = OUTPUT_LIMIT,
) -> HookRun:
    try:
        process = await anyio.open_process(
            ["sh", "-c", command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
        )
    except OSError as error:
        return HookRun(None, "", "", f"could not start: {error}")
    outputs: dict[str, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}
    failure: str | None = None
    overflow = False
    try:
        with anyio.move_on_after(seconds) as scope:
            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(_feed, process, stdin)
                    assert process.stdout is not None and process.stderr is not None
                    group.start_soon(_drain, process.stdout, outputs["stdout"], limit)
                    group.start_soon(_drain, process.stderr, outputs["stderr"], limit)
                await process.wait()
            except* _Overflow:
                failure = f"wrote more than {limit} bytes of output; killed"
                overflow = True
        if scope.cancelled_caught:
            failure = f"timed out after {seconds:g} s; killed"
    finally:
        if failure is not None or process.returncode is None:
            _kill_group(process)
            with anyio.CancelScope(shield=True):
                await process.wait()
        await process.aclose()
    text = {name: bytes(data).decode("utf-8", "replace") for name, data in outputs.items()}
    code = None if failure is not None else process.returncode
    return HookRun(code, text["stdout"], text["stderr"], failure, overflow)


async def _feed(process: Process, data: bytes) -> None:
    stream = process.stdin
    if stream is None:
        return
    try:
        await stream.send(data)
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        pass  # the hook did not read its input: that is its business
    finally:
        await stream.aclose()


async def _drain(stream: ByteReceiveStream, into: bytearray, limit: int) -> None:
    async for chunk in stream:
        into += chunk
        if len(into) > limit:
            del into[limit:]
            raise _Overflow


def _kill_group(process: Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
