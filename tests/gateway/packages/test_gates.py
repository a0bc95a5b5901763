"""The activation gates: each blocks on its own and says why; dependencies order and block."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gateway.store import PermissionNotRequested, StateStore
from tests.gateway.packages._helpers import (
    by_id,
    codes,
    dependency,
    evaluate,
    install_from,
    make_ready,
    nanobot,
    nimlet,
)

PERMISSION = "workspace.read"
ALL_GATES = {"installed", "trusted", "permissions", "dependencies", "enabled"}
UNSET = "GATEWAY_TEST_SURELY_UNSET_VARIABLE"


def gate_codes(status: Any) -> list[str]:
    return [c for c in codes(status) if c.startswith("gate.") or c == "runtime.unavailable"]


def failed_gates(status: Any) -> set[str]:
    return {name for name, passed in status.to_dict()["gates"].items() if not passed}


def add(home: Path, tmp_path: Path, package_id: str, **options: Any) -> None:
    install_from(home, nanobot(tmp_path / "src" / package_id, package_id, **options))


@pytest.mark.parametrize(
    ("withheld", "gate", "reason", "code"),
    [
        ("trust", "trusted", "not trusted", "gate.untrusted"),
        (
            "grant",
            "permissions",
            f"permissions not granted: {PERMISSION}",
            "gate.permission_missing",
        ),
        ("enable", "enabled", "disabled", "gate.disabled"),
    ],
)
def test_each_gate_alone_blocks_activation_and_says_why(
    tmp_path: Path, withheld: str, gate: str, reason: str, code: str
) -> None:
    home = tmp_path / "home"
    add(home, tmp_path, "gated.pkg", permissions=[PERMISSION])
    make_ready(home, "gated.pkg", **{withheld: False})
    status = by_id(evaluate(home))["gated.pkg"]
    assert not status.active and not status.gates_passed
    assert failed_gates(status) == {gate}
    assert status.reasons == [reason]
    assert gate_codes(status) == [code]
    assert status.to_dict()["reasons"] == [reason]


@pytest.mark.parametrize(
    ("needed", "missing"),
    [
        (dependency("executable", "surely-not-an-executable-xyz"), "executable surely-not-an"),
        (dependency("environment", UNSET), f"environment variable {UNSET} is not set"),
        (dependency("python", "pytest", ">=999"), "does not satisfy >=999"),
        (dependency("python", "surely-not-a-distribution-xyz"), "is not installed"),
        (dependency("extension", "absent.ext"), "package absent.ext is not installed"),
    ],
    ids=["executable", "environment", "python-version", "python-missing", "extension"],
)
def test_missing_dependency_blocks_activation_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, needed: dict[str, Any], missing: str
) -> None:
    monkeypatch.delenv(UNSET, raising=False)
    home = tmp_path / "home"
    add(home, tmp_path, "needy.pkg", dependencies=[needed])
    make_ready(home, "needy.pkg")
    status = by_id(evaluate(home))["needy.pkg"]
    assert not status.active
    assert failed_gates(status) == {"dependencies"}
    assert len(status.reasons) == 1 and status.reasons[0].startswith("dependencies not met: ")
    assert missing in status.reasons[0]
    assert gate_codes(status) == ["gate.dependency_missing"]


def test_met_dependencies_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(UNSET, "set")
    home = tmp_path / "home"
    met = [
        dependency("executable", "git"),
        dependency("environment", UNSET),
        dependency("python", "pytest", ">=1"),
    ]
    add(home, tmp_path, "met.pkg", dependencies=met)
    make_ready(home, "met.pkg")
    status = by_id(evaluate(home))["met.pkg"]
    assert status.gates_passed and status.unmet_dependencies == []


def test_optional_dependencies_do_not_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(UNSET, raising=False)
    home = tmp_path / "home"
    optional = [
        dependency("executable", "surely-not-an-executable-xyz", optional=True),
        dependency("environment", UNSET, optional=True),
        dependency("python", "pytest", ">=999", optional=True),
        dependency("extension", "absent.ext", optional=True),
    ]
    add(home, tmp_path, "relaxed.pkg", dependencies=optional)
    make_ready(home, "relaxed.pkg")
    status = by_id(evaluate(home))["relaxed.pkg"]
    assert status.gates_passed and failed_gates(status) == set()
    assert gate_codes(status) == ["runtime.unavailable"]


def test_only_requested_permissions_can_be_granted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    add(home, tmp_path, "asks.pkg", permissions=[PERMISSION])
    with StateStore.open(home) as store:
        with pytest.raises(PermissionNotRequested, match=r"network\.fetch"):
            store.grant("asks.pkg", ["network.fetch"], [PERMISSION])
        assert store.granted("asks.pkg") == frozenset()
        assert store.grant("asks.pkg", [PERMISSION], [PERMISSION]) == {PERMISSION}


def test_package_whose_hard_dependency_is_inactive_is_blocked_and_nothing_else(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    install_from(home, nimlet(tmp_path / "src" / "base-ext", "base-ext", tmp_path / "never"))
    add(home, tmp_path, "user.pkg", dependencies=[dependency("extension", "base-ext")])
    add(home, tmp_path, "bystander.pkg")
    for package_id in ("base-ext", "user.pkg", "bystander.pkg"):
        make_ready(home, package_id, trust=package_id != "base-ext")
    statuses = by_id(evaluate(home))
    base, user, bystander = statuses["base-ext"], statuses["user.pkg"], statuses["bystander.pkg"]
    assert base.reasons == ["not trusted"] and gate_codes(base) == ["gate.untrusted"]
    assert user.blocked_by == ["base-ext"]
    assert user.reasons == ["blocked by inactive base-ext"]
    assert gate_codes(user) == ["gate.blocked"]
    assert user.to_dict()["gates"]["dependencies"] is False
    assert bystander.blocked_by == [] and gate_codes(bystander) == ["runtime.unavailable"]
    # Once the dependency is active the package is no longer blocked.
    make_ready(home, "base-ext")
    statuses = by_id(evaluate(home))
    assert statuses["base-ext"].active
    assert statuses["user.pkg"].blocked_by == []
    assert gate_codes(statuses["user.pkg"]) == ["runtime.unavailable"]


def test_dependency_cycle_is_refused_except_through_optional_edges(tmp_path: Path) -> None:
    home = tmp_path / "home"
    add(home, tmp_path, "cycle.a", dependencies=[dependency("extension", "cycle.b")])
    add(home, tmp_path, "cycle.b", dependencies=[dependency("extension", "cycle.a")])
    add(home, tmp_path, "soft.a", dependencies=[dependency("extension", "soft.b")])
    add(home, tmp_path, "soft.b", dependencies=[dependency("extension", "soft.a", optional=True)])
    for package_id in ("cycle.a", "cycle.b", "soft.a", "soft.b"):
        make_ready(home, package_id)
    statuses = by_id(evaluate(home))
    for package_id in ("cycle.a", "cycle.b"):
        status = statuses[package_id]
        assert not status.active
        assert gate_codes(status) == ["gate.dependency_cycle"]
        message = next(d.message for d in status.diagnostics if d.code == "gate.dependency_cycle")
        assert "cycle.a, cycle.b" in message
    for package_id in ("soft.a", "soft.b"):
        assert "gate.dependency_cycle" not in codes(statuses[package_id])
    # soft.b is inactive only for want of a runtime, which still blocks soft.a's hard edge.
    assert gate_codes(statuses["soft.b"]) == ["runtime.unavailable"]
    assert statuses["soft.a"].blocked_by == ["soft.b"]


def test_dependencies_come_first_in_the_returned_order(tmp_path: Path) -> None:
    home = tmp_path / "home"
    add(home, tmp_path, "a.app", dependencies=[dependency("extension", "z.lib")])
    add(home, tmp_path, "m.mid", dependencies=[dependency("extension", "a.app")])
    add(home, tmp_path, "z.lib")
    add(home, tmp_path, "b.alone")
    order = [status.id for status in evaluate(home)]
    assert sorted(order) == ["a.app", "b.alone", "m.mid", "z.lib"]
    assert order.index("z.lib") < order.index("a.app") < order.index("m.mid")


def test_package_passing_every_gate_without_a_runtime_is_inactive_and_says_so(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    add(home, tmp_path, "ready.pkg", permissions=[PERMISSION])  # declarative nanobot
    make_ready(home, "ready.pkg")
    status = by_id(evaluate(home))["ready.pkg"]
    assert status.gates_passed and not status.active
    assert failed_gates(status) == set() and set(status.to_dict()["gates"]) == ALL_GATES
    assert status.to_dict()["active"] is False
    assert gate_codes(status) == ["runtime.unavailable"]
    assert len(status.reasons) == 1 and "runtime not available" in status.reasons[0]
