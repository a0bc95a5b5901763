"""An extension's child process from spawn to exit: started with its pipes (and confined),
stopped in steps that each have a bound — ``shutdown``, stdin closed, SIGTERM to its group,
SIGKILL to its group and to every descendant that left it — and its end told in words."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Awaitable, Callable

import anyio

from gateway.base import Diagnostic, Diagnostics
from gateway.runtime import Child, start_child
from gateway.sandbox import SandboxUnavailable, family, kill_family, settle_refusals
from gateway.wire import _codes
from gateway.wire._channel import ChannelClosed
from gateway.wire._errors import ExtensionError, ExtensionStartError, SandboxRefused
from gateway.wire._pipes import ChildPipes
from gateway.wire._plan import LaunchPlan, TransportConfig

__all__ = ["describe_exit", "spawn", "stop"]


def spawn(
    plan: LaunchPlan,
    config: TransportConfig,
    pipes: ChildPipes,
    on_denied: Callable[[Diagnostic], object] | None = None,
) -> tuple[Child, int]:
    """The started child and the non-blocking read end of its stderr. On failure the pipes
    are closed and ``SandboxRefused`` or ``ExtensionStartError`` raised. ``on_denied``
    gets the connections the egress proxy refuses it (``sandbox.network_denied``)."""
    stderr, child_stderr = os.pipe()
    os.set_blocking(stderr, False)
    try:
        child = start_child(
            plan.command,
            policy=plan.sandbox,
            require_sandbox=config.require_sandbox,
            stdin=pipes.child_stdin,
            stdout=pipes.child_stdout,
            stderr=child_stderr,
            cwd=plan.cwd,
            env=plan.env,
            on_denied=on_denied,
        )
    except (OSError, SandboxUnavailable) as error:
        pipes.close()
        os.close(stderr)
        if isinstance(error, SandboxUnavailable):
            raise SandboxRefused(str(error)) from None
        raise ExtensionStartError(f"cannot start {plan.command[0]}: {error}") from None
    finally:
        os.close(child_stderr)
    pipes.after_spawn()
    return child, stderr


async def stop(
    child: Child,
    name: str,
    *,
    shutdown: Callable[[], Awaitable[None]],
    pipes: ChildPipes,
    config: TransportConfig,
    diagnostics: Diagnostics,
) -> None:
    """shutdown → close stdin → grace → SIGTERM group → SIGKILL group; ``shutdown`` sends
    the ``shutdown`` message. An extension that ignores it is reported."""
    # Its descendants as they are now, the ones that left its group with setsid()
    # included: once it exits they are re-parented and cannot be found from it.
    escaped = await anyio.to_thread.run_sync(family, child.pid)
    try:
        await _stop_group(child, name, shutdown, pipes, config, diagnostics)
    finally:
        await anyio.to_thread.run_sync(kill_family, escaped)
        # What its supervisor refused it is said before its stop is over, as its stderr is.
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(settle_refusals, child.pid)


async def _stop_group(
    child: Child,
    name: str,
    shutdown: Callable[[], Awaitable[None]],
    pipes: ChildPipes,
    config: TransportConfig,
    diagnostics: Diagnostics,
) -> None:
    if child.returncode is None:
        with anyio.move_on_after(0.5), contextlib.suppress(ExtensionError, ChannelClosed):
            await shutdown()
        pipes.close_stdin()
        with anyio.move_on_after(config.shutdown_grace):
            await child.wait()
    if child.returncode is None:
        diagnostics.add(
            _codes.SHUTDOWN_FORCED(f"extension {name} ignored shutdown; sent SIGTERM", package=name)
        )
        child.signal_group(signal.SIGTERM)
        with anyio.move_on_after(config.term_grace):
            await child.wait()
    # Grandchildren may outlive the leader and hold our pipes open: kill the whole group.
    if child.returncode is None or child.group_alive():
        child.kill_group()
        with anyio.move_on_after(2):
            await child.wait()


async def describe_exit(child: Child | None) -> str:
    """How it ended, for a diagnostic: its exit code or signal (waited for briefly)."""
    if child is None:
        return "not started"
    with anyio.CancelScope(shield=True), anyio.move_on_after(0.5):
        await child.wait()
    if child.returncode is None:
        return "stdout closed"
    if child.returncode < 0:
        return f"killed by signal {-child.returncode}"
    return f"exit code {child.returncode}"
