"""What the kernel can enforce, what a policy then misses, and what a run reports."""

from __future__ import annotations

import sys

import pytest

from gateway.base import GatewayConfig
from gateway.sandbox import (
    KernelSupport,
    NetworkAccess,
    SandboxPolicy,
    detect_support,
    missing_protections,
    support_diagnostics,
)

FULL = KernelSupport(landlock_abi=7, seccomp=True)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Landlock is Linux only")
def test_detected_support_matches_the_running_kernel() -> None:
    support = detect_support()
    with open("/proc/self/status") as handle:
        has_seccomp = "Seccomp:" in handle.read()
    assert support.seccomp == has_seccomp
    assert support.landlock == (support.landlock_abi > 0)
    # a reason exactly when Landlock is missing
    assert bool(support.reason) != support.landlock


def test_a_capable_kernel_misses_nothing() -> None:
    policy = SandboxPolicy(network=NetworkAccess(connect=frozenset({443})))
    assert missing_protections(policy, FULL) == []
    assert support_diagnostics(FULL) == []


def test_no_landlock_misses_the_filesystem_and_scoping() -> None:
    none = KernelSupport(landlock_abi=0, seccomp=True, reason="Landlock needs Linux")
    missing = missing_protections(SandboxPolicy(), none)
    assert missing[0] == "filesystem rules (no Landlock)"
    assert "signal scoping (Landlock ABI 6)" in missing
    # seccomp still denies sockets, so no network and no abstract sockets are lost
    assert not any("network" in m or "abstract" in m for m in missing)


def test_port_rules_need_abi_4() -> None:
    ports = SandboxPolicy(network=NetworkAccess(connect=frozenset({443})))
    assert "TCP port rules (Landlock ABI 4)" in missing_protections(ports, KernelSupport(3, True))
    everything = SandboxPolicy(network=NetworkAccess.unrestricted())
    assert not any("TCP" in m for m in missing_protections(everything, KernelSupport(3, True)))


def test_without_seccomp_unix_sockets_and_setuid_bits_are_not_denied() -> None:
    missing = missing_protections(SandboxPolicy(), KernelSupport(7, seccomp=False))
    assert missing == ["Unix socket denial (seccomp)", "setuid/setgid chmod denial (seccomp)"]


def test_abstract_socket_scoping_matters_once_unix_sockets_are_allowed() -> None:
    policy = SandboxPolicy(unix_sockets=True)
    assert "abstract Unix socket scoping (Landlock ABI 6)" in missing_protections(
        policy, KernelSupport(5, True)
    )
    assert "abstract Unix socket scoping (Landlock ABI 6)" not in missing_protections(
        SandboxPolicy(), KernelSupport(5, True)
    )


def test_a_kernel_without_landlock_is_reported_as_unavailable_with_the_reason() -> None:
    none = KernelSupport(
        landlock_abi=0, seccomp=False, reason="Landlock needs Linux; this is darwin"
    )
    [diagnostic] = support_diagnostics(none)
    assert diagnostic.code == "sandbox.unavailable"
    assert "this is darwin" in diagnostic.message
    assert "GATEWAY_REQUIRE_SANDBOX" in (diagnostic.hint or "")


def test_an_old_landlock_is_reported_as_partial_naming_what_is_missing() -> None:
    [diagnostic] = support_diagnostics(KernelSupport(landlock_abi=5, seccomp=True))
    assert diagnostic.code == "sandbox.partial"
    assert "ABI 5" in diagnostic.message and "signal scoping" in diagnostic.message


def test_require_sandbox_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GATEWAY_REQUIRE_SANDBOX", raising=False)
    assert GatewayConfig().require_sandbox is False
    monkeypatch.setenv("GATEWAY_REQUIRE_SANDBOX", "1")
    assert GatewayConfig().require_sandbox is True
