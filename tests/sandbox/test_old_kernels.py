"""Kernels with an older Landlock, emulated on this one: the ruleset is built the way an
ABI n kernel would accept it (only the rights and the struct part it knows), so what an old
kernel cannot deny really goes through, and what it can still holds.

``missing_protections`` must name exactly what goes through (tests/sandbox/test_support.py
checks the names; here the real child shows it)."""

from __future__ import annotations

import dataclasses
import os

from gateway.sandbox import KernelSupport, missing_protections

from ._probe import DENIED
from .conftest import World, needs_landlock, run_probe

pytestmark = needs_landlock


def _abi(abi: int, *, seccomp: bool = False) -> KernelSupport:
    return KernelSupport(landlock_abi=abi, seccomp=seccomp)


def test_abi_1_still_denies_files_outside_the_policy(world: World) -> None:
    outcome = run_probe(world, "read", {"path": str(world.secret)}, policy=world.policy,
                        support=_abi(1))  # fmt: skip
    assert outcome.code == DENIED, outcome


def test_abi_1_refuses_moving_files_between_folders(world: World) -> None:
    """Before ABI 2 (LANDLOCK_ACCESS_FS_REFER) every cross-folder rename is refused,
    even between two writable folders; from ABI 2 it is allowed there."""
    source = world.data / "note"
    source.write_text("x")
    args = {"source": str(source), "target": str(world.tmp / "note")}
    assert run_probe(world, "rename", args, policy=world.policy, support=_abi(1)).code == DENIED
    assert run_probe(world, "rename", args, policy=world.policy, support=_abi(2)).code == 0


def test_abi_3_without_seccomp_lets_tcp_through(world: World) -> None:
    support = _abi(3)
    assert any("network denial" in m for m in missing_protections(world.policy, support))
    args = {"port": world.servers.tcp_port}
    assert run_probe(world, "tcp_connect", args, policy=world.policy, support=support).code == 0
    assert (
        run_probe(world, "tcp_connect", args, policy=world.policy, support=_abi(4)).code == DENIED
    )


def test_abi_3_with_seccomp_still_has_no_network(world: World) -> None:
    support = _abi(3, seccomp=True)
    assert missing_protections(world.policy, support) == [
        "ioctl rules on devices (Landlock ABI 5)",
        "signal scoping (Landlock ABI 6)",
    ]
    args = {"port": world.servers.tcp_port}
    assert (
        run_probe(world, "tcp_connect", args, policy=world.policy, support=support).code == DENIED
    )


def test_abi_5_cannot_stop_signals_to_the_gateway(world: World) -> None:
    assert run_probe(world, "signal", {}, policy=world.policy, support=_abi(5)).code == 0
    assert run_probe(world, "signal", {}, policy=world.policy, support=_abi(6)).code == DENIED


def test_without_landlock_the_non_dumpable_gateway_keeps_its_environment(world: World) -> None:
    """A gateway run by an ordinary user has no capabilities, so a child without any is
    its equal: what then protects /proc/<gateway>/environ without Landlock is the
    gateway's non-dumpable flag."""
    none = KernelSupport(landlock_abi=0, seccomp=True)
    args = {"file": "environ"}
    dumpable = run_probe(world, "proc_file", args, policy=world.policy, support=none,
                         undumpable=False, gateway_capabilities=False)  # fmt: skip
    undumpable = run_probe(world, "proc_file", args, policy=world.policy, support=none,
                           gateway_capabilities=False)  # fmt: skip
    assert dumpable.code == 0, dumpable
    assert undumpable.code == DENIED, undumpable


def test_without_landlock_a_root_gateway_is_out_of_reach_of_children_without_capabilities(
    world: World,
) -> None:
    """Reading another process's memory needs every capability it holds: a child that
    dropped them cannot read a root gateway, dumpable or not (and one that kept them
    could, whatever the dumpable flag says)."""
    none = KernelSupport(landlock_abi=0, seccomp=True)
    args = {"file": "environ"}
    dropped = run_probe(world, "proc_file", args, policy=world.policy, support=none,
                        undumpable=False)  # fmt: skip
    assert dropped.code == DENIED, dropped
    if os.geteuid() == 0:
        kept = dataclasses.replace(world.policy, drop_capabilities=False)
        assert run_probe(world, "proc_file", args, policy=kept, support=none).code == 0
