"""What confines a child, built before the confining thread starts: the Landlock ruleset of
its policy (cached: building one opens every path of the policy) and its seccomp filter;
``Confinement.apply`` then only makes syscalls, on the thread that forks the child (or in
the trampoline). Everything that can fail for a reason other than the kernel refusing is
done here, in the caller's thread."""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

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
from gateway.sandbox._policy import SandboxPolicy
from gateway.sandbox._privileges import drop_capabilities, set_no_new_privs
from gateway.sandbox._seccomp import FilterRules, build_filter, install_filter
from gateway.sandbox._support import KernelSupport, SandboxError

__all__ = ["Confinement", "prepare"]


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

    def __del__(self) -> None:
        self.ruleset.close()


def _paths(policy: SandboxPolicy) -> tuple[Path, ...]:
    return (*policy.read, *policy.execute, *policy.write)


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
class Confinement:
    compiled: _Compiled | None
    seccomp: bytes | None
    drop_capabilities: bool
    guard_seccomp: bytes | None = None
    """The filter with the name-changing calls handed to a supervisor (``_guard``)."""

    def apply(self) -> None:
        """Confine the calling thread: capabilities, no_new_privs, Landlock, seccomp."""
        if self.drop_capabilities:
            drop_capabilities()
        set_no_new_privs()
        if self.compiled is not None:
            restrict_self(self.compiled.ruleset)
        if self.seccomp is not None:
            install_filter(self.seccomp)


def _ruleset(policy: SandboxPolicy, abi: int) -> Ruleset:
    network = policy.network
    restrict = AccessNet(0)
    if network.connect is not True:  # with destinations: within its own namespace
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


def prepare(policy: SandboxPolicy, support: KernelSupport) -> Confinement | None:
    if not sys.platform.startswith("linux"):
        return None  # nothing to apply; support_diagnostics says so once per run
    seccomp = guard_seccomp = None
    if support.seccomp:
        rules = FilterRules(
            unix=policy.unix_sockets,
            inet=policy.network.any,
            anonymous_exec=policy.anonymous_exec,
        )
        seccomp = _seccomp_program(rules)
        if policy.guarded and support.user_notify:
            guard_seccomp = _seccomp_program(dataclasses.replace(rules, guard_names=True))
    compiled = None
    if support.landlock:
        try:
            compiled = _CACHE.get(policy, support.landlock_abi)
        except LandlockError as error:
            raise SandboxError(error.errno, f"cannot build the sandbox: {error}") from None
    return Confinement(compiled, seccomp, policy.drop_capabilities, guard_seccomp)
