"""One hook command run the way Claude Code runs it: ``sh -c COMMAND`` with the event as
JSON on stdin, in a process group of its own, killed (the whole group) when it outlives its
timeout or writes more than ``OUTPUT_LIMIT`` bytes on either stream.

The command runs as a child of the plugin host, so it inherits the package's sandbox. Its
pipes and its exit (a pidfd) are waited on in the event loop directly: asyncio's
subprocess transport (a thread per child to wait for its exit, a protocol per pipe) cost
the host ~1.8 ms of CPU a run against ~1.2 ms, and a ``SessionStart`` hook runs at every
session (docs/performance/home.md).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO

import anyio

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
        process = _spawn(command, cwd, env)
    except OSError as error:
        return HookRun(None, "", "", f"could not start: {error}")
    assert process.stdin is not None and process.stdout is not None
    assert process.stderr is not None
    pipes = process.stdin, process.stdout, process.stderr
    for pipe in pipes:
        os.set_blocking(pipe.fileno(), False)
    exited = os.pidfd_open(process.pid)
    outputs: dict[str, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}
    failure: str | None = None
    overflow = False
    try:
        with anyio.move_on_after(seconds) as scope:
            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(_feed, process.stdin, stdin)
                    group.start_soon(_drain, process.stdout.fileno(), outputs["stdout"], limit)
                    group.start_soon(_drain, process.stderr.fileno(), outputs["stderr"], limit)
                await anyio.wait_readable(exited)
            except* _Overflow:
                failure = f"wrote more than {limit} bytes of output; killed"
                overflow = True
        if scope.cancelled_caught:
            failure = f"timed out after {seconds:g} s; killed"
    finally:
        if failure is not None or process.poll() is None:
            _kill_group(process.pid)
            with anyio.CancelScope(shield=True):
                await anyio.wait_readable(exited)
        process.wait()
        os.close(exited)
        for pipe in pipes:
            pipe.close()
    text = {name: bytes(data).decode("utf-8", "replace") for name, data in outputs.items()}
    code = None if failure is not None else process.returncode
    return HookRun(code, text["stdout"], text["stderr"], failure, overflow)


def _spawn(command: str, cwd: str, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """``sh -c command`` started, in a session of its own. In the loop's thread, as asyncio's
    own subprocess transport starts it: the fork (a ``vfork``) returns once it has run."""
    return subprocess.Popen(
        ["sh", "-c", command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=dict(env),
        start_new_session=True,
    )


async def _feed(pipe: IO[bytes], data: bytes) -> None:
    """``data`` to the hook's stdin, then end of file (a hook that does not read it: its
    business)."""
    view = memoryview(data)
    try:
        while view:
            try:
                view = view[os.write(pipe.fileno(), view) :]
            except BlockingIOError:
                await anyio.wait_writable(pipe.fileno())
    except OSError:
        pass  # the hook closed its stdin unread
    finally:
        pipe.close()


async def _drain(fd: int, into: bytearray, limit: int) -> None:
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            await anyio.wait_readable(fd)
            continue
        if not chunk:
            return
        into += chunk
        if len(into) > limit:
            del into[limit:]
            raise _Overflow


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
