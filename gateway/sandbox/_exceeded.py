"""Saying which resource limit a package ran into: ``sandbox.limit_exceeded``.

What shows it: the exit signal (``SIGXFSZ`` for the file size; ``SIGKILL`` with the
cgroup's ``oom_kill`` count grown for memory), the cgroup's ``pids.events`` count of forks
refused, and the lines Node, Python and shells print when an allocation, a fork or a write
is refused (an rlimit gives no counter). A line matches only when that limit is set: V8's
own heap limit is not the gateway's.
"""

from __future__ import annotations

import re
import signal

from gateway.base import Diagnostic
from gateway.sandbox._cgroups import detect_cgroups
from gateway.sandbox._codes import LIMIT_EXCEEDED
from gateway.sandbox._limits import ResourceLimits, format_size
from gateway.sandbox._policy import SandboxPolicy

__all__ = ["explain_exit", "explain_limit", "explain_output"]

_LINES = {
    "memory": re.compile(
        r"JavaScript heap out of memory|Array buffer allocation failed"
        r"|Fatal process out of memory|^MemoryError\b|\bCannot allocate memory\b"
    ),
    "pids": re.compile(
        r"\bfork\b.*(?:Resource temporarily unavailable|EAGAIN)|\bspawn\b.*\bEAGAIN\b"
        r"|Cannot fork|can't start new thread|pthread_create.*(?:EAGAIN|temporarily)"
    ),
    "file_size": re.compile(r"File too large|\bEFBIG\b"),
}


def _message(package: str, kind: str, limits: ResourceLimits, how: str) -> Diagnostic:
    if kind == "memory":
        what = f"its memory limit ({format_size(limits.memory)})"
    elif kind == "pids":
        what = f"its limit of {limits.pids} processes and threads"
    else:
        what = f"its file size limit ({format_size(limits.file_size)})"
    return LIMIT_EXCEEDED(
        f"{package}: went over {what}: {how}",
        package=package,
        hint=f"gateway config {package} '$gateway.limits.{kind}' VALUE, if it needs more",
    )


def explain_limit(line: str, policy: SandboxPolicy, package: str) -> Diagnostic | None:
    """``sandbox.limit_exceeded`` when ``line`` (from the package's stderr) shows a limit
    refusing it something; None otherwise."""
    limits = policy.limits
    if limits is None:
        return None
    text = line.strip()
    for kind, pattern in _LINES.items():
        if getattr(limits, kind) is not None and pattern.search(text):
            return _message(package, kind, limits, f"refused ({text[:120]})")
    return None


def explain_exit(returncode: int | None, policy: SandboxPolicy, package: str) -> list[Diagnostic]:
    """What limits a process of ``package`` that exited with ``returncode`` ran into (the
    cgroup's counts cover its other processes too, since the last look)."""
    limits = policy.limits
    if limits is None:
        return []
    found: list[Diagnostic] = []
    if returncode == -signal.SIGXFSZ and limits.file_size is not None:
        found.append(_message(package, "file_size", limits, "the kernel stopped it (SIGXFSZ)"))
    group = detect_cgroups().existing(limits.group)
    hit = group.exceeded() if group is not None else []
    if "memory" in hit and limits.memory is not None:
        found.append(_message(package, "memory", limits, "the kernel's OOM killer stopped it"))
    if "pids" in hit and limits.pids is not None:
        found.append(_message(package, "pids", limits, "the kernel refused a fork"))
    return found


def explain_output(
    returncode: int | None, stderr: bytes, policy: SandboxPolicy
) -> list[Diagnostic]:
    """What a short-lived child of the package ``policy`` limits ran into, from its exit and
    its stderr: each limit once."""
    package = policy.limits.group if policy.limits is not None else ""
    found = explain_exit(returncode, policy, package)
    for line in stderr.decode("utf-8", "replace").splitlines():
        limited = explain_limit(line, policy, package)
        if limited is not None:
            found.append(limited)
    unique: dict[str | None, Diagnostic] = {}
    for diagnostic in found:
        unique.setdefault(diagnostic.hint, diagnostic)  # the hint names the limit
    return list(unique.values())
