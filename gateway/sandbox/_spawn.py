"""Spawning a confined child, and waiting for it without polling.

Landlock domains, seccomp filters, ``no_new_privs`` and capabilities all belong to a
thread. So each spawn starts a fresh ``threading.Thread`` that confines itself and then
forks and execs the child with ``subprocess.Popen``: the child inherits the confinement,
the gateway's other threads never see it, and there is no ``preexec_fn`` (unsafe once
threads exist) and no extra interpreter start. The thread ends right after the fork; a
confined thread is never reused, so no pool may run this.

Everything that can fail for a reason other than the kernel refusing (paths, the BPF
program, the ruleset, the package's cgroup) is prepared in the caller's thread first
(``_confine``); the confining thread only makes syscalls, and if any of them fails,
nothing is started.

Resource limits cannot be put on a thread: a child with limits starts behind a gate
(``_gate``) that holds it until the caller's thread has set them — a shell, or the
trampoline where the child's environment has names no shell carries.

Protected paths (``_protected``), the private ``/tmp`` and network grants by destination
need namespaces made before Landlock (``_namespaces``, ``_isolation``): with
``CAP_SYS_ADMIN`` the thread makes them; otherwise the child starts as the trampoline
(``_trampoline``), the one extra interpreter start, which makes its own user, mount and
network namespaces, then confines itself. A child whose protected names are guarded at any
depth (``_guard``) always starts so: the trampoline stays as its supervisor. A child in a
network namespace of its own gets the proxy variables, and its listener is served by the
egress proxy (``egress``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import anyio

from gateway.base import Diagnostic
from gateway.sandbox._cgroups import CgroupGroup, detect_cgroups
from gateway.sandbox._confine import prepare
from gateway.sandbox._gate import (
    can_gate,
    check_program,
    gated,
    own_filesystem_context,
    release,
)
from gateway.sandbox._isolation import (
    Trampoline,
    effective_policy,
    guard_for,
    label_of,
    namespace_plan,
    serve_egress,
)
from gateway.sandbox._landlock import LandlockError
from gateway.sandbox._limits import (
    ResourceLimits,
    apply_rlimits,
    node_heap_argument,
    rlimits_for,
)
from gateway.sandbox._namespaces import enter_namespaces
from gateway.sandbox._policy import SandboxPolicy
from gateway.sandbox._privileges import PrivilegeError
from gateway.sandbox._seccomp import SeccompError
from gateway.sandbox._support import (
    KernelSupport,
    SandboxError,
    SandboxUnavailable,
    detect_support,
    missing_protections,
)

__all__ = ["spawn_confined", "wait_for_exit"]

_File = int | IO[Any] | None


@dataclass(slots=True)
class _Limiting:
    """How one child's limits are set: its package's cgroup where there is one, rlimits
    for the rest."""

    limits: ResourceLimits
    group: CgroupGroup | None
    rlimits: dict[int, int]

    def prepare(self, pid: int) -> None:
        apply_rlimits(pid, self.rlimits)
        if self.group is not None:
            self.group.set_limits(self.limits)
            self.group.attach(pid)


def _limiting(limits: ResourceLimits | None) -> _Limiting | None:
    if limits is None or not sys.platform.startswith("linux"):
        return None
    group = detect_cgroups().group(limits.group)
    held = group.folders if group is not None else {}
    rlimits = rlimits_for(limits, memory="memory" not in held, pids="pids" not in held)
    return _Limiting(limits, group, rlimits)


def spawn_confined(
    argv: Sequence[str],
    *,
    policy: SandboxPolicy,
    stdin: _File = None,
    stdout: _File = None,
    stderr: _File = None,
    cwd: Path | str | None = None,
    env: dict[str, str] | None = None,
    start_new_session: bool = True,
    pass_fds: Sequence[int] = (),
    support: KernelSupport | None = None,
    require: bool = False,
    on_denied: Callable[[Diagnostic], object] | None = None,
) -> subprocess.Popen[bytes]:
    """Start ``argv`` confined by ``policy``; the arguments are ``subprocess.Popen``'s.

    ``support`` defaults to what this kernel offers (tests pass another). With
    ``require``, a policy the kernel cannot fully enforce raises ``SandboxUnavailable``
    and nothing starts. Raises ``SandboxError`` when confining fails, and what ``Popen``
    raises (``FileNotFoundError``, ``PermissionError``: the sandbox may deny the program
    itself) when the start fails. ``on_denied`` gets what the egress proxy refuses the
    child (``sandbox.network_denied``), on the caller's event loop when there is one.
    """
    support = support if support is not None else detect_support()
    if require:
        missing = missing_protections(policy, support)
        if missing:
            raise SandboxUnavailable(
                f"the sandbox is required but this kernel cannot enforce: {'; '.join(missing)}",
                missing,
            )
    policy = effective_policy(policy, support)
    confinement = prepare(policy, support)
    limiting = _limiting(policy.limits)
    plan = namespace_plan(policy, cwd) if confinement is not None else None
    guard = guard_for(policy, support) if confinement is not None else None
    gate = limiting is not None and can_gate(env)
    # An environment no shell carries: the trampoline holds the child instead (``_gate``;
    # limits exist only on Linux, where there is always a confinement to hand it).
    hold = limiting is not None and not gate
    # With CAP_SYS_ADMIN the confining thread makes the namespaces; else the child does, as
    # the trampoline; else none (missing_protections says what that leaves out). A guarded
    # child always starts as the trampoline, which stays as its supervisor.
    in_thread = plan is not None and support.private_mounts and guard is None
    trampoline = None
    namespaces = plan is not None and not in_thread and support.user_namespaces
    if confinement is not None and (namespaces or guard is not None or hold):
        # Namespaces the confining thread makes are not made again by the trampoline.
        trampoline = Trampoline.build(
            None if in_thread else plan, confinement, support, guard, hold
        )
    if plan is not None and plan.network:
        # Imported here: the proxy (HTTP, TLS names, upstream proxies) is for a child with
        # network grants by destination, not for every process that spawns one.
        from gateway.sandbox.egress import proxy_environment

        env = {
            **(os.environ if env is None else env),
            **proxy_environment(policy.network.destinations),
        }
    command = list(argv)
    if limiting is not None:
        command = node_heap_argument(command, limiting.limits)
    fds = tuple(pass_fds)
    if trampoline is not None:
        fds += trampoline.inherited
        command = trampoline.command(command)
    if gate:
        command = gated(command, env)
    outcome: list[subprocess.Popen[bytes] | BaseException] = []
    listener: list[int] = []

    def confine_and_spawn() -> None:
        try:
            if gate or in_thread or trampoline:  # before seccomp, which may refuse unshare
                try:
                    own_filesystem_context()
                    if in_thread and plan is not None:  # before Landlock: no mounts after
                        made = enter_namespaces(plan)
                        listener.extend([made] if made is not None else [])
                except OSError as error:
                    raise SandboxError(
                        error.errno, f"cannot confine {argv[0]}: {error.strerror}"
                    ) from None
            if confinement is not None and trampoline is None:
                try:
                    confinement.apply()
                except (PrivilegeError, LandlockError, SeccompError) as error:
                    raise SandboxError(
                        error.errno, f"cannot confine {argv[0]}: {error.strerror}"
                    ) from None
            if gate or trampoline:
                check_program(argv[0], env, cwd)  # what Popen would raise for argv itself
            outcome.append(
                subprocess.Popen(
                    command,
                    stdin=stdin,
                    stdout=stdout,
                    stderr=stderr,
                    cwd=cwd,
                    env=env,
                    start_new_session=start_new_session,
                    pass_fds=fds,
                    close_fds=True,
                )
            )
        except BaseException as error:  # handed to the caller's thread
            outcome.append(error)

    thread = threading.Thread(target=confine_and_spawn, name="gateway-confined-spawn")
    thread.start()
    _join(thread)
    if trampoline is not None:
        trampoline.started()
    result = outcome[0]
    if isinstance(result, BaseException):
        for fd in listener:
            os.close(fd)
        if trampoline is not None:
            trampoline.abandon()
        raise result
    if trampoline is not None:
        trampoline.watch(result.pid, label_of(policy), on_denied)
    if limiting is not None:
        # A supervisor forks the program: its limits must be set before (it holds).
        try:
            release(result, limiting.prepare)
        except OSError as error:
            for fd in listener:
                os.close(fd)
            if trampoline is not None:
                trampoline.abandon()
            raise SandboxError(
                error.errno, f"cannot set the limits of {argv[0]}: {error.strerror or error}"
            ) from None
    if trampoline is not None and plan is not None and plan.network:
        made = trampoline.listener()
        listener.extend([made] if made is not None else [])
    for fd in listener:
        serve_egress(fd, policy, result.pid, on_denied)
    return result


def _join(thread: threading.Thread) -> None:
    """Join even through a KeyboardInterrupt: the ruleset must outlive the thread's use."""
    interrupted: BaseException | None = None
    while thread.is_alive():
        try:
            thread.join()
        except BaseException as error:
            interrupted = error
    if interrupted is not None:
        raise interrupted


async def wait_for_exit(process: subprocess.Popen[bytes]) -> int:
    """Wait for ``process`` to exit and reap it, without polling and without a thread:
    a pidfd becomes readable when the process exits (asyncio and trio alike).

    This is the process's own exit, not the end of its output: a grandchild still
    holding its stdout does not keep this waiting."""
    if process.returncode is not None:
        return process.returncode
    try:
        pidfd = os.pidfd_open(process.pid)
    except ProcessLookupError:
        return process.wait()  # already reaped
    except (AttributeError, OSError):  # no pidfd (Linux < 5.3, another OS)
        return await anyio.to_thread.run_sync(process.wait, abandon_on_cancel=True)
    try:
        await anyio.wait_readable(pidfd)
    finally:
        os.close(pidfd)
    return process.wait()
