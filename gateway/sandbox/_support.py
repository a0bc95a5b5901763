"""What this kernel can enforce, and what a policy then misses.

``KernelSupport`` is detected once per process; everything that decides on it takes it as
a parameter, so a test can hand in "a kernel with Landlock ABI n" (or none) and exercise
the fallback paths on any machine.
"""

from __future__ import annotations

import errno
import functools
import os
import sys
from dataclasses import dataclass

from gateway.base import Diagnostic, GatewayError
from gateway.sandbox import _codes
from gateway.sandbox._landlock import probe_abi
from gateway.sandbox._notify import user_notification_available
from gateway.sandbox._policy import SandboxPolicy
from gateway.sandbox._protected import can_mount_privately, user_namespaces_allowed
from gateway.sandbox._seccomp import seccomp_available

__all__ = [
    "FULL_ABI",
    "KernelSupport",
    "SandboxError",
    "SandboxUnavailable",
    "detect_support",
    "missing_protections",
    "support_diagnostics",
]

FULL_ABI = 6
"""The first Landlock ABI with everything the policy uses (filesystem, TCP, scoping)."""


class SandboxError(GatewayError, OSError):
    """The kernel refused to confine the spawning thread; nothing was started."""


class SandboxUnavailable(GatewayError):
    """The policy cannot be enforced here and the configuration requires it."""

    def __init__(self, message: str, missing: list[str]) -> None:
        super().__init__(message)
        self.missing = missing

    def diagnostic(self, package: str | None = None) -> Diagnostic:
        return _codes.SANDBOX_REFUSED(str(self), package=package)


@dataclass(frozen=True, slots=True)
class KernelSupport:
    landlock_abi: int
    """0: no Landlock."""
    seccomp: bool
    """seccomp filters work and this architecture's syscall numbers are known."""
    reason: str = ""
    """Why Landlock is missing, when it is."""
    private_mounts: bool = False
    """The gateway may make mount namespaces (protected paths in a writable workspace)."""
    user_namespaces: bool = False
    """Without that, a child may make its own user and mount namespaces (the trampoline)."""
    user_notify: bool = False
    """seccomp user notification (Linux 5.19): protected names guarded at any depth by a
    supervisor, whether they exist yet or not (``_guard``)."""

    @property
    def landlock(self) -> bool:
        return self.landlock_abi > 0

    def describe(self) -> str:
        if not self.landlock:
            return f"no Landlock ({self.reason or 'unavailable'})"
        extra = ", seccomp" if self.seccomp else ", no seccomp"
        return f"Landlock ABI {self.landlock_abi}{extra}"


def _reason(code: int) -> str:
    if not sys.platform.startswith("linux"):
        return f"Landlock needs Linux; this is {sys.platform}"
    if code == errno.EOPNOTSUPP:
        return "Landlock is built into this kernel but not enabled at boot"
    return f"this kernel ({os.uname().release}) has no Landlock"


SANDBOXED_VARIABLE = "GATEWAY_SANDBOXED"
"""Set (``1``) for a gateway the gateway runs inside its own sandbox (``migrate --load``'s
and ``audit --load``'s throwaway): there it cannot make mount or network namespaces —
Landlock forbids mount(2) to a confined process — and falls back as a kernel without them
would. Set by anyone else, that gateway likewise makes none: what they hold (protected
paths read-only, a private ``/tmp``, network by destination) is then missing as on such a
kernel — refused, or reported by ``missing_protections``."""


@functools.cache
def detect_support() -> KernelSupport:
    abi, code = probe_abi()
    linux = sys.platform.startswith("linux") and os.environ.get(SANDBOXED_VARIABLE) != "1"
    mounts = linux and can_mount_privately()
    users = linux and not mounts and user_namespaces_allowed()
    notify = linux and seccomp_available() and user_notification_available()
    return KernelSupport(
        abi, seccomp_available(), "" if abi else _reason(code), mounts, users, notify
    )


def missing_protections(policy: SandboxPolicy, support: KernelSupport) -> list[str]:
    """What of ``policy`` this kernel cannot enforce; empty when all of it holds."""
    missing: list[str] = []
    abi = support.landlock_abi
    if not support.landlock:
        missing.append("filesystem rules (no Landlock)")
    else:
        if abi < 3:
            missing.append("truncate() of readable files (Landlock ABI 3)")
        if abi < 5:
            missing.append("ioctl rules on devices (Landlock ABI 5)")
    network = policy.network
    if abi < 4:
        if not network.any:
            if not support.seccomp:
                missing.append("network denial (Landlock ABI 4 or seccomp)")
        elif network.connect is not True or network.bind is not True:
            missing.append("TCP port rules (Landlock ABI 4)")
    if abi < 6:
        if policy.scope_signals:
            missing.append("signal scoping (Landlock ABI 6)")
        if policy.scope_abstract_unix and (policy.unix_sockets or not support.seccomp):
            missing.append("abstract Unix socket scoping (Landlock ABI 6)")
    if not support.seccomp:
        if not policy.unix_sockets:
            missing.append("Unix socket denial (seccomp)")
        missing.append("setuid/setgid chmod denial (seccomp)")
    if policy.read_only_within and not (support.private_mounts or support.user_namespaces):
        names = ", ".join(p.name for p in policy.read_only_within)
        missing.append(
            f"read-only {names} inside the writable workspace (a private mount namespace: "
            "CAP_SYS_ADMIN, or user namespaces, which this kernel does not allow)"
        )
    if policy.guarded and not (support.user_notify and support.landlock):
        missing.append(
            "protected names that do not exist yet, and those below the workspace's top "
            "(seccomp user notification: Linux 5.19); only those that exist at its top are "
            "protected"
        )
    namespaces = support.private_mounts or support.user_namespaces
    if policy.network.destinations and not namespaces:
        shown = ", ".join(str(d) for d in policy.network.destinations)
        missing.append(
            f"network to {shown} (a network namespace: CAP_SYS_ADMIN, or user namespaces, "
            "which this kernel does not allow); it gets no network instead"
        )
    return missing


def support_diagnostics(
    support: KernelSupport, policy: SandboxPolicy | None = None
) -> list[Diagnostic]:
    """What a run should say once about the sandbox: nothing on a capable kernel,
    ``sandbox.unavailable`` without Landlock, ``sandbox.partial`` with an old one."""
    if not support.landlock:
        return [
            _codes.SANDBOX_UNAVAILABLE(
                f"extensions run unconfined: {support.reason}",
                hint="set GATEWAY_REQUIRE_SANDBOX=1 to refuse to run anything unconfined",
            )
        ]
    missing = missing_protections(policy or SandboxPolicy(), support)
    if not missing:
        return []
    return [
        _codes.SANDBOX_PARTIAL(
            f"Landlock ABI {support.landlock_abi} cannot enforce: {'; '.join(missing)}"
        )
    ]
