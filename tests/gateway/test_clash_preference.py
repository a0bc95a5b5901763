"""The owners the user prefers (``gateway prefer``) win a clashing name before load order,
under every ecosystem's rule and whatever order the registrations arrive in; the
duplicates Pi keeps stay numbered in load order (docs/architecture.md, "Name clashes")."""

from __future__ import annotations

import itertools

import pytest

from gateway.base import ToolRules
from gateway.model import BUILTIN_OWNER, Registry
from tests.gateway.test_clash_order import OWNERS, PI, _command, _tool

NIMLET = ToolRules()


def _registered(
    arrival: tuple[str, ...], rules: ToolRules, preferred: dict[str, int]
) -> tuple[Registry, list[str]]:
    registry = Registry()
    registry.set_order(OWNERS, preferred)
    said = []
    for owner in arrival:
        found = registry.register(
            owner, tools=[_tool(owner, rules)], commands=[_command(owner, rules)]
        )
        said += [d.message for d in found]
    said += [d.message for d in registry.settle()]
    return registry, said


@pytest.mark.parametrize("rules", [NIMLET, PI], ids=["nimlet", "pi"])
def test_the_preferred_owner_wins_the_tool_whatever_arrived_first(rules: ToolRules) -> None:
    seen = set()
    for arrival in itertools.permutations(OWNERS):
        registry, said = _registered(arrival, rules, {"b": 1})
        seen.add((registry.tool("shared").owner, frozenset(said)))  # type: ignore[union-attr]
    [(owner, said)] = seen
    assert owner == "b"
    assert any("of b replaces the one of" in m and "preferred" in m for m in said)


def test_the_first_preferred_wins_over_a_later_preferred() -> None:
    registry, _ = _registered(("a", "b", "c"), NIMLET, {"a": 2, "b": 1})
    assert registry.tool("shared").owner == "a"  # type: ignore[union-attr]
    assert registry.command("dup").owner == "a"  # type: ignore[union-attr]


def test_a_preferred_command_wins_its_name_under_nimlets_rule() -> None:
    registry, said = _registered(("c", "a", "b"), NIMLET, {"a": 1})
    assert registry.command("dup").owner == "a"  # type: ignore[union-attr]
    assert any("/dup of a replaces the one of c" in m for m in said)


def test_pis_duplicate_commands_stay_numbered_in_load_order_under_a_preference() -> None:
    registry, _ = _registered(("b", "c", "a"), PI, {"c": 1})
    assert [(c.name, c.owner) for c in registry.commands()] == [
        ("dup:1", "a"),
        ("dup:2", "b"),
        ("dup:3", "c"),
    ]


def test_no_preference_leaves_load_order_and_its_rules() -> None:
    nimlet, _ = _registered(("c", "b", "a"), NIMLET, {})
    pi, _ = _registered(("c", "b", "a"), PI, {})
    assert (nimlet.tool("shared").owner, pi.tool("shared").owner) == ("c", "a")  # type: ignore[union-attr]


def test_the_agents_built_in_tool_still_wins_over_a_preferred_owner() -> None:
    registry = Registry()
    registry.set_order(OWNERS, {"a": 1})
    registry.register("a", tools=[_tool("a", PI, name="read")])
    registry.register(BUILTIN_OWNER, tools=[_tool(BUILTIN_OWNER, NIMLET, name="read")])
    registry.settle()
    assert registry.tool("read").owner == BUILTIN_OWNER  # type: ignore[union-attr]
