"""Where a child's namespaces come from (``_namespaces``) and what follows from them: the
plan for a policy, the policy this kernel can give it, the trampoline's SPEC, and the
egress proxy served for its listener.

Without ``CAP_SYS_ADMIN`` the child makes its namespaces itself, as the trampoline
(``_trampoline``): the gateway hands it one end of a socket pair, over which it sends back
the egress listener it opened inside its network namespace.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.base import Diagnostic
from gateway.sandbox._confine import Confinement
from gateway.sandbox._guard import GuardPlan, guard_plan
from gateway.sandbox._namespaces import NamespacePlan, private_tmp_plan
from gateway.sandbox._policy import NetworkAccess, SandboxPolicy
from gateway.sandbox._refusals import watch_refusals
from gateway.sandbox._support import KernelSupport

__all__ = [
    "TRAMPOLINE",
    "Trampoline",
    "effective_policy",
    "guard_for",
    "label_of",
    "namespace_plan",
    "serve_egress",
]

TRAMPOLINE = Path(__file__).with_name("_trampoline.py")
_SOURCE_ROOT = Path(__file__).resolve().parents[2]


def can_make_namespaces(support: KernelSupport) -> bool:
    return support.private_mounts or support.user_namespaces


def effective_policy(policy: SandboxPolicy, support: KernelSupport) -> SandboxPolicy:
    """``policy`` as this kernel can give it: without a way to make namespaces, network
    grants by destination give no network at all (never the whole network:
    ``missing_protections`` says so), and there is no private ``/tmp``."""
    if can_make_namespaces(support) and sys.platform.startswith("linux"):
        return policy
    changed = policy
    if policy.network.destinations:
        changed = dataclasses.replace(changed, network=NetworkAccess())
    if policy.private_tmp is not None:
        changed = dataclasses.replace(changed, private_tmp=None)
    return changed


def namespace_plan(policy: SandboxPolicy, cwd: Path | str | None) -> NamespacePlan | None:
    """The namespaces ``policy`` needs (None: none). What it may write beneath a temp
    folder is bound back over its private ``/tmp`` (``private_tmp_plan``)."""
    named: list[Path] = [*policy.read, *policy.execute, *policy.write]
    named += [*policy.read_only_within, *policy.reopened]
    if cwd is not None:
        named.append(Path(os.path.abspath(cwd)))
    covered, keep = private_tmp_plan(policy.private_tmp, named, policy.write)
    plan = NamespacePlan(
        read_only=policy.read_only_within,
        reopened=policy.reopened,
        private_tmp=policy.private_tmp if covered else None,
        covered=covered,
        keep=keep,
        network=bool(policy.network.destinations),
    )
    return plan if plan.mounts or plan.network else None


@dataclass(slots=True)
class Trampoline:
    """One start through the trampoline: its SPEC, the descriptors it inherits, and the
    gateway's end of the socket pair its egress listener comes back over."""

    spec: str
    inherited: tuple[int, ...]
    receiver: socket.socket | None = field(default=None)
    sender: socket.socket | None = field(default=None)
    guard: GuardPlan | None = None
    refusals: socket.socket | None = None
    """The gateway's end of the socket the supervisor reports refusals on."""
    reporter: socket.socket | None = None
    holds: bool = False
    """It stops itself first, for the gateway to set its limits (``_gate.release``)."""

    @classmethod
    def build(
        cls,
        plan: NamespacePlan | None,
        confinement: Confinement,
        support: KernelSupport,
        guard: GuardPlan | None = None,
        hold: bool = False,
    ) -> Trampoline:
        plan = plan if plan is not None else NamespacePlan()
        ruleset = confinement.compiled.ruleset.fd if confinement.compiled is not None else -1
        inherited = [ruleset] if ruleset >= 0 else []
        receiver = sender = refusals = reporter = None
        if plan.network:
            receiver, sender = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            inherited.append(sender.fileno())
        spec: dict[str, Any] = {
            "root": str(_SOURCE_ROOT),
            "plan": plan.to_json(),
            "user_namespace": not support.private_mounts,
            "listener_to": sender.fileno() if sender is not None else -1,
            "ruleset_fd": ruleset,
            "seccomp": (confinement.seccomp or b"").hex(),
            "drop_capabilities": confinement.drop_capabilities,
            "hold": hold,
        }
        if guard is not None and confinement.guard_seccomp is not None:
            refusals, reporter = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            inherited.append(reporter.fileno())
            spec |= {
                "guard": guard.to_json(),
                "guard_seccomp": confinement.guard_seccomp.hex(),
                "report_to": reporter.fileno(),
            }
        else:
            guard = None
        return cls(json.dumps(spec), tuple(inherited), receiver, sender, guard, refusals,
                   reporter, hold)  # fmt: skip

    def command(self, argv: Iterable[str]) -> list[str]:
        return [sys.executable, "-I", "-S", str(TRAMPOLINE), self.spec, *argv]

    def started(self) -> None:
        """The child has its copy of the sender: the gateway's goes (so a child that dies
        before sending is an end of file, not a wait)."""
        for sock in (self.sender, self.reporter):
            if sock is not None:
                sock.close()

    def abandon(self) -> None:
        """Nothing started: the gateway's end goes too."""
        for sock in (self.receiver, self.refusals):
            if sock is not None:
                sock.close()

    def watch(self, pid: int, label: str, report: Callable[[Diagnostic], object] | None) -> None:
        """Report what the supervisor refuses (``sandbox.protected_name``) to ``report``."""
        if self.refusals is not None and self.guard is not None:
            watch_refusals(self.refusals, pid, label, self.guard.roots[0], report)
            self.refusals = None

    def listener(self) -> int | None:
        """The egress listener the trampoline sent back; None when it sent none (it failed
        to confine, and said so on stderr)."""
        if self.receiver is None:
            return None
        with self.receiver:
            try:
                _, fds, _, _ = socket.recv_fds(self.receiver, 1, 1)
            except OSError:
                return None
        return fds[0] if fds else None


def guard_for(policy: SandboxPolicy, support: KernelSupport) -> GuardPlan | None:
    """The guard of ``policy``'s protected names (None: nothing guarded, or this kernel
    cannot: ``missing_protections`` says so)."""
    if not policy.guarded or not (support.user_notify and support.landlock):
        return None
    plan = guard_plan(policy.guarded)
    if plan is None:
        return None
    allowed = [os.path.realpath(p) for p in policy.guard_allowed]
    return plan.replace(allowed=tuple(dict.fromkeys(allowed)))


def label_of(policy: SandboxPolicy) -> str:
    """The package a policy belongs to, for what its child is refused."""
    return policy.limits.group if policy.limits is not None and policy.limits.group else "child"


def serve_egress(listener: int, policy: SandboxPolicy, pid: int, report: object) -> None:
    """Hand ``listener`` to the egress proxy for the child ``pid`` under ``policy``."""
    from gateway.sandbox.egress import Grant, egress_service

    grant = Grant(label_of(policy), policy.network.destinations)
    egress_service().serve(listener, grant, pid, report)  # type: ignore[arg-type]
