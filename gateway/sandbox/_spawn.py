"""Spawning a confined child, and waiting for it without polling.

Landlock domains, seccomp filters, ``no_new_privs`` and capabilities all belong to a
thread. So each spawn starts a fresh ``threading.Thread`` that confines itself and then
forks and execs the child with ``subprocess.Popen``: the child inherits the confinement,
the gateway's other threads never see it, and there is no ``preexec_fn`` (unsafe once
threads exist) and no extra interpreter start. The thread ends right after the fork; a
confined thread is never reused, so no pool may run this.

Everything that can fail for a reason other than the kernel refusing (paths, the BPF
program, the ruleset, the package's cgroup) is prepared in the caller's thread first; the
confining thread only makes syscalls, and if any of them fails, nothing is started.

Resource limits cannot be put on a thread: a child with limits starts behind a gate
(``_gate``) that holds it until the caller's thread has set them.

Protected paths (``_protected``) need a mount namespace before Landlock: as root the thread
makes it; otherwise the child starts as the trampoline (``_trampoline``), the one extra
interpreter start, which makes its own user and mount namespaces, then confines itself.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import anyio

from gateway.sandbox._cgroups import CgroupGroup, detect_cgroups
from gateway.sandbox._gate import (
    can_gate,
    check_program,
    gated,
    own_filesystem_context,
    release,
    release_started,
)
from gateway.sandbox._landlock import (
    FS_READ,
    FS_READ_EXECUTE,
    FS_READ_WRITE,
    AccessNet,
    LandlockError,
    Ruleset,
    Scope,
    restrict_self,
)
from gateway.sandbox._limits import (
    ResourceLimits,
    apply_rlimits,
    node_heap_argument,
    rlimits_for,
)
from gateway.sandbox._policy import SandboxPolicy
from gateway.sandbox._privileges import PrivilegeError, drop_capabilities, set_no_new_privs
from gateway.sandbox._protected import mount_read_only
from gateway.sandbox._seccomp import FilterRules, SeccompError, build_filter, install_filter
from gateway.sandbox._support import (
    KernelSupport,
    SandboxError,
    SandboxUnavailable,
    detect_support,
    missing_protections,
)

__all__ = ["spawn_confined", "wait_for_exit"]

_File = int | IO[Any] | None


class _Compiled:
    """A built ruleset, shared by every spawn under the same policy. The descriptor closes
    when the last user lets go (the cache, or a spawn still running after an eviction)."""

    def __init__(self, ruleset: Ruleset, policy: SandboxPolicy) -> None:
        self.ruleset = ruleset
        # A rule holds the file or folder it saw, not its path: a temp folder made again
        # or a settings file replaced atomically is a new one, and needs a new ruleset.
        self.identity = _identity(_paths(policy))

    def current(self, policy: SandboxPolicy) -> bool:
        return _identity(_paths(policy)) == self.identity


def _paths(policy: SandboxPolicy) -> tuple[Path, ...]:
    return (*policy.read, *policy.execute, *policy.write)

    def __del__(self) -> None:
        self.ruleset.close()


def _identity(paths: tuple[Path, ...]) -> tuple[tuple[int, int] | None, ...]:
    identity: list[tuple[int, int] | None] = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            identity.append(None)
        else:
            identity.append((info.st_dev, info.st_ino))
    return tuple(identity)


class _RulesetCache:
    """Building a ruleset opens every path of the policy and adds a rule for each (about
    0.3 ms for a typical policy); a gateway spawns many children under few policies."""

    def __init__(self, size: int = 32) -> None:
        self._size = size
        self._entries: OrderedDict[tuple[SandboxPolicy, int], _Compiled] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, policy: SandboxPolicy, abi: int) -> _Compiled:
        key = (policy, abi)
        with self._lock:
            found = self._entries.get(key)
            if found is not None and found.current(policy):
                self._entries.move_to_end(key)
                return found
        compiled = _Compiled(_ruleset(policy, abi), policy)
        with self._lock:
            self._entries[key] = compiled
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return compiled

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_CACHE = _RulesetCache()


@functools.cache
def _seccomp_program(rules: FilterRules) -> bytes:
    return build_filter(rules)


@dataclass(slots=True)
class _Confinement:
    compiled: _Compiled | None
    seccomp: bytes | None
    drop_capabilities: bool

    def apply(self) -> None:
        """Confine the calling thread: capabilities, no_new_privs, Landlock, seccomp."""
        if self.drop_capabilities:
            drop_capabilities()
        set_no_new_privs()
        if self.compiled is not None:
            restrict_self(self.compiled.ruleset)
        if self.seccomp is not None:
            install_filter(self.seccomp)


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


def _ruleset(policy: SandboxPolicy, abi: int) -> Ruleset:
    network = policy.network
    restrict = AccessNet(0)
    if network.connect is not True:
        restrict |= AccessNet.CONNECT_TCP
    if network.bind is not True:
        restrict |= AccessNet.BIND_TCP
    scope = Scope(0)
    if policy.scope_signals:
        scope |= Scope.SIGNAL
    if policy.scope_abstract_unix:
        scope |= Scope.ABSTRACT_UNIX_SOCKET
    ruleset = Ruleset.create(abi, restrict_net=restrict, scope=scope)
    try:
        ruleset.allow_paths(policy.read, FS_READ)
        ruleset.allow_paths(policy.execute, FS_READ_EXECUTE)
        ruleset.allow_paths(policy.write, FS_READ_WRITE)
        for ports, access in (
            (network.connect, AccessNet.CONNECT_TCP),
            (network.bind, AccessNet.BIND_TCP),
        ):
            if not isinstance(ports, bool):
                for port in sorted(ports):
                    ruleset.allow_port(port, access)
    except BaseException:
        ruleset.close()
        raise
    return ruleset


def _prepare(policy: SandboxPolicy, support: KernelSupport) -> _Confinement | None:
    if not sys.platform.startswith("linux"):
        return None  # nothing to apply; support_diagnostics says so once per run
    seccomp = None
    if support.seccomp:
        rules = FilterRules(
            unix=policy.unix_sockets,
            inet=policy.network.any,
            anonymous_exec=policy.anonymous_exec,
        )
        seccomp = _seccomp_program(rules)
    compiled = None
    if support.landlock:
        try:
            compiled = _CACHE.get(policy, support.landlock_abi)
        except LandlockError as error:
            raise SandboxError(error.errno, f"cannot build the sandbox: {error}") from None
    return _Confinement(compiled, seccomp, policy.drop_capabilities)


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
) -> subprocess.Popen[bytes]:
    """Start ``argv`` confined by ``policy``; the arguments are ``subprocess.Popen``'s.

    ``support`` defaults to what this kernel offers (tests pass another). With
    ``require``, a policy the kernel cannot fully enforce raises ``SandboxUnavailable``
    and nothing starts. Raises ``SandboxError`` when confining fails, and what ``Popen``
    raises (``FileNotFoundError``, ``PermissionError``: the sandbox may deny the program
    itself) when the start fails.
    """
    support = support if support is not None else detect_support()
    if require:
        missing = missing_protections(policy, support)
        if missing:
            raise SandboxUnavailable(
                f"the sandbox is required but this kernel cannot enforce: {'; '.join(missing)}",
                missing,
            )
    confinement = _prepare(policy, support)
    limiting = _limiting(policy.limits)
    protect = bool(policy.read_only_within) and support.private_mounts
    # No CAP_SYS_ADMIN: the child makes the namespaces itself, as the trampoline.
    trampoline = (
        bool(policy.read_only_within)
        and not support.private_mounts
        and support.user_namespaces
        and confinement is not None
    )
    command = list(argv)
    gate = limiting is not None and can_gate(env)
    if limiting is not None:
        command = node_heap_argument(command, limiting.limits)
    fds = tuple(pass_fds)
    if trampoline and confinement is not None:
        spec, held = _trampoline_spec(policy, confinement)
        fds += held
        command = [sys.executable, "-I", "-S", str(_TRAMPOLINE), spec, *command]
    if gate:
        command = gated(command, env)
    outcome: list[subprocess.Popen[bytes] | BaseException] = []

    def confine_and_spawn() -> None:
        try:
            if gate or protect or trampoline:  # before seccomp, which may refuse unshare
                try:
                    own_filesystem_context()
                    if protect:  # before Landlock, which refuses mount changes
                        mount_read_only(policy.read_only_within, policy.reopened)
                except OSError as error:
                    raise SandboxError(
                        error.errno, f"cannot confine {argv[0]}: {error.strerror}"
                    ) from None
            if confinement is not None and not trampoline:
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
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    if limiting is not None:
        try:
            (release if gate else release_started)(result, limiting.prepare)
        except OSError as error:
            raise SandboxError(
                error.errno, f"cannot set the limits of {argv[0]}: {error.strerror or error}"
            ) from None
    return result


_TRAMPOLINE = Path(__file__).with_name("_trampoline.py")
_SOURCE_ROOT = Path(__file__).resolve().parents[2]


def _trampoline_spec(
    policy: SandboxPolicy, confinement: _Confinement
) -> tuple[str, tuple[int, ...]]:
    """The trampoline's SPEC argument, and the descriptors it must inherit."""
    ruleset = confinement.compiled.ruleset.fd if confinement.compiled is not None else -1
    spec = {
        "root": str(_SOURCE_ROOT),
        "read_only": [str(p) for p in policy.read_only_within],
        "reopened": [str(p) for p in policy.reopened],
        "ruleset_fd": ruleset,
        "seccomp": (confinement.seccomp or b"").hex(),
        "drop_capabilities": confinement.drop_capabilities,
    }
    return json.dumps(spec), (ruleset,) if ruleset >= 0 else ()


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
