"""A child process the gateway starts: confined by its sandbox policy (``gateway.sandbox``)
when it has one, in its own session, awaited through a pidfd (its own exit, even while a
grandchild still holds its pipes), killed as a whole group.

Every process the gateway starts goes through ``start_child``: long-running extensions and
sidecars (``gateway.wire._lifetime``), per-call tools (``external_tools.py``) and the
commands a runtime asks the host to run (``_host_requests.py``).
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import anyio

from gateway.base import Diagnostic
from gateway.runtime._spawn import group_alive, kill_group, signal_group
from gateway.sandbox import SandboxPolicy, explain_output, spawn_confined, wait_for_exit

__all__ = ["Child", "ChildOutput", "run_child", "start_child"]

_File = int | IO[bytes] | None


class Child:
    """Owns one ``Popen``; its pid leads its own process group."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self._popen = popen

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> int | None:
        return self._popen.poll()

    async def wait(self) -> int:
        """Its exit status, once it has exited (and been reaped)."""
        return await wait_for_exit(self._popen)

    def signal_group(self, signum: int) -> bool:
        return signal_group(self.pid, signum)

    def group_alive(self) -> bool:
        return group_alive(self.pid)

    def kill_group(self) -> None:
        kill_group(self.pid)

    async def reap(self, within: float = 2.0) -> None:
        """Wait (bounded) for it to be gone, killing the group if it is not."""
        with anyio.move_on_after(within):
            await self.wait()
        if self.returncode is None:
            self.kill_group()
            with anyio.move_on_after(within):
                await self.wait()


def start_child(
    argv: Sequence[str],
    *,
    policy: SandboxPolicy | None,
    require_sandbox: bool = False,
    stdin: _File = None,
    stdout: _File = None,
    stderr: _File = None,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    on_denied: Callable[[Diagnostic], object] | None = None,
) -> Child:
    """Start ``argv`` in its own session, confined by ``policy`` (None: unconfined). Raises
    ``OSError`` when it cannot start (``SandboxError``, ``FileNotFoundError``, …) and
    ``SandboxUnavailable`` when ``require_sandbox`` and the kernel cannot enforce it."""
    environment = dict(env) if env is not None else None
    if policy is None:
        popen = subprocess.Popen(
            list(argv),
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            cwd=cwd,
            env=environment,
            start_new_session=True,
            close_fds=True,
        )
    else:
        popen = spawn_confined(
            argv,
            policy=policy,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            cwd=cwd,
            env=environment,
            require=require_sandbox,
            on_denied=on_denied,
        )
    return Child(popen)


@dataclass(frozen=True, slots=True)
class ChildOutput:
    """What a short-lived child left: its exit status (None: killed at the time limit),
    each stream up to the cap, and whether a stream was cut."""

    returncode: int | None
    stdout: bytes
    stderr: bytes
    stdout_cut: bool
    stderr_cut: bool
    exceeded: tuple[Diagnostic, ...] = ()
    """The resource limits it ran into (``sandbox.limit_exceeded``), for the caller to report."""

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


async def _collect(fd: int, cap: int, sink: bytearray) -> bool:
    """Read ``fd`` (non-blocking) to its end keeping at most ``cap`` bytes; True when
    something was cut. Closes ``fd``."""
    cut = False
    try:
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                try:
                    await anyio.wait_readable(fd)
                except (anyio.ClosedResourceError, OSError):
                    return cut
                continue
            except OSError:
                return cut
            if not chunk:
                return cut
            room = cap - len(sink)
            cut = cut or len(chunk) > room
            sink += chunk[: max(room, 0)]
    finally:
        anyio.notify_closing(fd)
        os.close(fd)


async def run_child(
    argv: Sequence[str],
    *,
    policy: SandboxPolicy | None,
    require_sandbox: bool = False,
    stdin: _File = None,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    time_limit: float | None = None,
    cap: int,
) -> ChildOutput:
    """Run a short-lived child to its end (or ``time_limit`` seconds): its stdout and stderr each
    capped at ``cap`` bytes. Its whole group is killed when it finishes (stray children
    would hold the pipes) or when the time is up, also when the caller is cancelled."""
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    for fd in (out_read, err_read):
        os.set_blocking(fd, False)
    try:
        child = start_child(
            argv, policy=policy, require_sandbox=require_sandbox, stdin=stdin,
            stdout=out_write, stderr=err_write, cwd=cwd, env=env,
        )  # fmt: skip
    except BaseException:
        os.close(out_read)
        os.close(err_read)
        raise
    finally:
        os.close(out_write)
        os.close(err_write)
    stdout, stderr = bytearray(), bytearray()
    cut = [False, False]
    returncode: int | None = None
    try:
        with anyio.move_on_after(time_limit):
            async with anyio.create_task_group() as tasks:

                async def read(index: int, fd: int, sink: bytearray) -> None:
                    cut[index] = await _collect(fd, cap, sink)

                tasks.start_soon(read, 0, out_read, stdout)
                tasks.start_soon(read, 1, err_read, stderr)
                returncode = await child.wait()
                # A finished child's stray children would hold the pipes open until the
                # time limit: they go with it, and the reads end at what is buffered.
                child.signal_group(signal.SIGKILL)
    finally:
        with anyio.CancelScope(shield=True):
            child.kill_group()
            await child.reap()
    exceeded = explain_output(returncode, bytes(stderr), policy) if policy is not None else []
    return ChildOutput(returncode, bytes(stdout), bytes(stderr), cut[0], cut[1], tuple(exceeded))
