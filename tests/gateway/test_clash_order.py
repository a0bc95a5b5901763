"""Name clashes are decided by the owners' load order, never by the order their
registrations arrive in (each package is its own process: they arrive as they start, and
again when a dormant package starts or a runtime restarts). docs/architecture.md, "Name
clashes"."""

from __future__ import annotations

import itertools

import pytest

from gateway import ToolOutcome
from gateway.base import ToolRules
from gateway.model import CommandEntry, CommandOutcome, HookEntry, Registry, make_tool

PI = ToolRules("pi", builtin_names_free=True, first_wins=True, command_suffixes=True)
OWNERS = ("a", "b", "c")


async def _ok(arguments):
    return ToolOutcome("ok")


def _tool(owner: str, rules: ToolRules, name: str = "shared"):
    return make_tool(name, owner, {"type": "object"}, ("read",), owner, _ok, rules=rules)


def _command(owner: str, rules: ToolRules, name: str = "dup") -> CommandEntry:
    async def run(arguments: str) -> CommandOutcome:
        return CommandOutcome(message=owner)

    return CommandEntry(name, owner, owner, run, rules=rules)


async def _hook(event, payload):
    return None


def _registered(arrival, rules: ToolRules) -> tuple[Registry, list[str]]:
    registry = Registry()
    registry.set_order(OWNERS)
    said = []
    for owner in arrival:
        found = registry.register(
            owner,
            tools=[_tool(owner, rules)],
            commands=[_command(owner, rules)],
            hooks=[HookEntry("tool_call", owner, _hook)],
        )
        said += [d.message for d in found]
    said += [d.message for d in registry.settle()]
    return registry, said


@pytest.mark.parametrize("rules", [ToolRules(), PI], ids=["nimlet", "pi"])
def test_every_arrival_order_gives_the_same_owners_and_diagnostics(rules):
    seen = set()
    for arrival in itertools.permutations(OWNERS):
        registry, said = _registered(arrival, rules)
        commands = tuple((c.name, c.owner) for c in registry.commands())
        hooks = tuple(h.owner for h in registry.hooks("tool_call"))
        seen.add((registry.tool("shared").owner, commands, hooks, frozenset(said)))
    assert len(seen) == 1


def test_nimlet_rules_the_last_in_load_order_wins_whatever_arrived_last():
    registry, _ = _registered(("c", "b", "a"), ToolRules())
    assert registry.tool("shared").owner == "c"
    assert registry.command("dup").owner == "c"


def test_pi_rules_the_first_tool_in_load_order_wins_whatever_arrived_first():
    registry, said = _registered(("c", "b", "a"), PI)
    assert registry.tool("shared").owner == "a"
    assert "tool 'shared' of c is shadowed by the one of a: the first registration wins" in (
        " ".join(said)
    )


@pytest.mark.anyio
async def test_pi_duplicate_commands_are_all_kept_with_load_order_suffixes():
    registry, said = _registered(("b", "c", "a"), PI)
    assert [(c.name, c.owner) for c in registry.commands()] == [
        ("dup:1", "a"),
        ("dup:2", "b"),
        ("dup:3", "c"),
    ]
    assert registry.command("dup") is None
    assert (await registry.command("DUP:2").handler("")).message == "b"
    assert sum("is registered more than once" in message for message in said) == 3


def test_a_suffix_never_takes_a_name_a_command_has_already():
    registry = Registry()
    registry.set_order(("a", "b", "c"))
    registry.register("a", commands=[_command("a", PI)])
    registry.register("b", commands=[_command("b", PI)])
    registry.register("c", commands=[_command("c", ToolRules(), name="dup:1")])
    assert {c.name: c.owner for c in registry.commands()} == {
        "dup:2": "a",
        "dup:3": "b",
        "dup:1": "c",
    }


def test_one_pi_duplicate_against_another_ecosystems_command_keeps_the_later_wins_rule():
    registry = Registry()
    registry.set_order(("a", "b"))
    registry.register("b", commands=[_command("b", ToolRules())])
    registry.register("a", commands=[_command("a", PI)])
    said = registry.settle()
    assert registry.command("dup").owner == "b"
    assert [d.code for d in said] == ["registry.command_overridden"]


def test_hooks_are_asked_in_load_order_after_an_owner_registers_again():
    registry, _ = _registered(("a", "b", "c"), ToolRules())
    registry.unregister("a")  # a dormant package started: its live registration replaces
    registry.register("a", hooks=[HookEntry("tool_call", "a", _hook)])
    assert [h.owner for h in registry.hooks("tool_call")] == ["a", "b", "c"]


def test_clashes_are_said_when_the_load_settles_as_the_load_order_decides_them():
    registry = Registry()
    registry.set_order(OWNERS)
    assert registry.register("c", tools=[_tool("c", PI)]) == []
    assert registry.register("b", tools=[_tool("b", PI)]) == []  # b over c, for now
    registry.register("a", tools=[_tool("a", PI)])
    messages = [d.message for d in registry.settle()]
    assert all("shadowed by the one of a" in message for message in messages)
    assert len(messages) == 2


def test_an_owner_registering_again_keeps_its_place_and_says_nothing_twice():
    registry, _ = _registered(("a", "b", "c"), PI)
    registry.unregister("a")
    said = registry.register("a", tools=[_tool("a", PI)], commands=[_command("a", PI)])
    assert registry.tool("shared").owner == "a"
    assert said == []


def test_a_second_extension_of_one_name_stands_right_after_the_first():
    registry = Registry()
    registry.set_order(("notes", "other"))
    registry.register("other", tools=[_tool("other", ToolRules())])
    registry.register("notes#2", tools=[_tool("notes#2", ToolRules())])
    registry.register("notes", tools=[_tool("notes", ToolRules())])
    assert registry.owners == ["notes", "notes#2", "other"]
    assert registry.tool("shared").owner == "other"


def test_owners_outside_the_order_come_after_it_in_the_order_they_first_registered():
    registry = Registry()
    registry.set_order(("a",))
    registry.register("late", tools=[_tool("late", ToolRules())])
    registry.register("a", tools=[_tool("a", ToolRules())])
    assert registry.owners == ["a", "late"]
    assert registry.tool("shared").owner == "late"
