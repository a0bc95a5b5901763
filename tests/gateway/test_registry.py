"""Registry rules: owners, built-in names, overrides, case-insensitive commands, plan mode."""

from __future__ import annotations

import pytest

from gateway import ToolOutcome, open_gateway
from gateway.base import ToolRules
from gateway.model import CommandEntry, CommandOutcome, HookEntry, Registry, make_tool
from gateway.model.registry import BUILTIN_OWNER
from tests._clock import virtual_time  # noqa: F401  (in memory: both backends, virtual time)

BUILTINS = ["ask_user", "bash", "edit", "git", "glob", "grep", "read", "read_skill", "write"]


async def _ok(arguments):
    return ToolOutcome("ok")


def tool(name: str, owner: str, capabilities=("read",)):
    return make_tool(name, f"{name} by {owner}", {"type": "object"}, capabilities, owner, _ok)


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_tool_names_are_refused_with_a_warning(name):
    registry = Registry()
    diagnostics = registry.register("ext", tools=[tool(name, "ext"), tool("mine", "ext")])
    assert registry.tool(name) is None
    assert registry.tool("mine") is not None
    assert [d.code for d in diagnostics] == ["registry.builtin_name"]


def test_later_extension_tool_wins_with_a_diagnostic():
    registry = Registry()
    registry.register("first", tools=[tool("shared", "first")])
    diagnostics = registry.register("second", tools=[tool("shared", "second")])
    assert registry.tool("shared").owner == "second"
    assert [d.code for d in diagnostics] == ["registry.tool_overridden"]
    assert "first" in diagnostics[0].message and "second" in diagnostics[0].message


def test_unregistering_the_winner_brings_the_earlier_tool_back():
    registry = Registry()
    registry.register("first", tools=[tool("shared", "first")])
    registry.register("second", tools=[tool("shared", "second")])
    registry.unregister("second")
    assert registry.tool("shared").owner == "first"


def test_unregister_removes_everything_an_owner_registered_and_nothing_else():
    registry = Registry()

    async def command(arguments):
        return CommandOutcome("hi")

    async def hook(event, payload):
        return None

    registry.register(
        "a",
        tools=[tool("ta", "a")],
        commands=[CommandEntry("ca", "", "a", command)],
        hooks=[HookEntry("turn_end", "a", hook)],
    )
    registry.register(
        "b",
        tools=[tool("tb", "b")],
        commands=[CommandEntry("cb", "", "b", command)],
        hooks=[HookEntry("turn_end", "b", hook)],
    )
    registry.unregister("a")
    assert [t.name for t in registry.tools()] == ["tb"]
    assert [c.name for c in registry.commands()] == ["cb"]
    assert [h.owner for h in registry.hooks("turn_end")] == ["b"]


def test_registering_an_owner_twice_is_refused_and_changes_nothing():
    registry = Registry()
    registry.register("a", tools=[tool("t1", "a")])
    with pytest.raises(ValueError):
        registry.register("a", tools=[tool("t2", "a")])
    assert [t.name for t in registry.tools()] == ["t1"]


def test_commands_are_case_insensitive():
    registry = Registry()

    async def command(arguments):
        return CommandOutcome("hi")

    registry.register("a", commands=[CommandEntry("Note", "", "a", command)])
    assert registry.command("note").name == "Note"
    assert registry.command("NOTE").name == "Note"


def test_same_command_from_two_owners_later_wins_with_a_diagnostic():
    registry = Registry()

    async def command(arguments):
        return CommandOutcome("hi")

    registry.register("a", commands=[CommandEntry("note", "", "a", command)])
    diagnostics = registry.register("b", commands=[CommandEntry("NOTE", "", "b", command)])
    assert registry.command("note").owner == "b"
    assert [d.code for d in diagnostics] == ["registry.command_overridden"]


@pytest.mark.parametrize(
    ("capabilities", "offered"),
    [
        (("read",), True),
        (("user",), True),
        (("read", "user"), True),
        ((), True),
        (("read", "write"), False),
        (("shell",), False),
        (("network",), False),
    ],
)
def test_plan_mode_offers_only_tools_within_read_and_user(capabilities, offered):
    registry = Registry()
    registry.register("a", tools=[tool("t", "a", capabilities)])
    assert bool(registry.tools(plan=True)) is offered
    assert registry.tools(plan=False)


@pytest.mark.anyio
async def test_omitted_capabilities_mean_write_shell_network(workspace):
    workspace.add_extension("ext")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.registry.tool("act").capabilities == ("write", "shell", "network")
    async with open_gateway(
        workspace.root,
        trust=True,
        plan=True,
        config=workspace.config,
        transport=workspace.transport,
    ) as gateway:
        assert gateway.tools() == []
        result = await gateway.call_tool("act", {})
        assert result.is_error and "plan mode" in result.content


@pytest.mark.anyio
async def test_extension_tool_with_builtin_name_is_skipped_through_the_host(workspace):
    workspace.add_extension("ext", tools=["bash", "fine"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.registry.tool("bash") is None
        assert gateway.registry.tool("fine") is not None
        assert any(d.code == "registry.builtin_name" for d in gateway.diagnostics)


@pytest.mark.anyio
async def test_two_extensions_with_one_name_both_run(workspace):
    workspace.add_extension("twin", folder="one", tools=["t1"])
    workspace.add_extension("twin", folder="two", tools=["t2"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert len(gateway.processes) == 2
        assert {t.name for t in gateway.tools()} == {"t1", "t2"}
        assert not (await gateway.call_tool("t1", {})).is_error
        assert not (await gateway.call_tool("t2", {})).is_error


# Rules an adapter gives its runtime's tools (``ToolRules``; Pi's: built-in names free unless
# the agent registered the built-in, first registration wins within the ecosystem).
FREE_FIRST = ToolRules("eco", builtin_names_free=True, first_wins=True)


def ruled(name: str, owner: str, rules: ToolRules = FREE_FIRST):
    return make_tool(
        name, f"{name} by {owner}", {"type": "object"}, ("read",), owner, _ok, rules=rules
    )


def builtin(name: str):
    return make_tool(name, "the agent's", {"type": "object"}, ("read",), BUILTIN_OWNER, _ok)


def test_a_tool_whose_rules_free_builtin_names_takes_one_the_agent_did_not_register():
    registry = Registry()
    assert registry.register("ext", tools=[ruled("bash", "ext")]) == []
    assert registry.tool("bash").owner == "ext"


def test_an_extension_tool_after_the_agents_builtin_of_its_name_is_skipped_naming_both():
    registry = Registry()
    registry.register(BUILTIN_OWNER, tools=[builtin("bash")])
    diagnostics = registry.register("ext", tools=[ruled("bash", "ext")])
    assert registry.tool("bash").owner == BUILTIN_OWNER
    assert [d.code for d in diagnostics] == ["registry.builtin_name"]
    assert "ext" in diagnostics[0].message and "built-in" in diagnostics[0].message


def test_the_agents_builtin_registered_later_wins_over_the_extension_tool_naming_both():
    registry = Registry()
    registry.register("ext", tools=[ruled("bash", "ext")])
    diagnostics = registry.register(BUILTIN_OWNER, tools=[builtin("bash")])
    assert registry.tool("bash").owner == BUILTIN_OWNER
    assert [d.code for d in diagnostics] == ["registry.tool_overridden"]
    assert "ext" in diagnostics[0].message and "built-in" in diagnostics[0].message


def test_of_two_first_wins_tools_the_first_registered_keeps_the_name():
    registry = Registry()
    registry.register("first", tools=[ruled("shared", "first")])
    diagnostics = registry.register("second", tools=[ruled("shared", "second")])
    assert registry.tool("shared").owner == "first"
    assert [d.code for d in diagnostics] == ["registry.tool_overridden"]
    assert "first registration wins" in diagnostics[0].message


def test_a_first_wins_owner_registering_again_keeps_the_name():
    registry = Registry()
    registry.register("first", tools=[ruled("shared", "first")])
    registry.register("second", tools=[ruled("shared", "second")])
    registry.unregister("first")  # a restart, or a dormant package started
    registry.register("first", tools=[ruled("shared", "first")])
    assert registry.tool("shared").owner == "first"


def test_when_the_first_wins_owner_leaves_the_next_one_takes_the_name():
    registry = Registry()
    registry.register("first", tools=[ruled("shared", "first")])
    registry.register("second", tools=[ruled("shared", "second")])
    registry.unregister("first")
    assert registry.tool("shared").owner == "second"


def test_first_wins_does_not_hold_against_a_tool_of_other_rules():
    registry = Registry()
    registry.register("nimlet", tools=[tool("shared", "nimlet")])
    registry.register("eco", tools=[ruled("shared", "eco")])
    assert registry.tool("shared").owner == "eco"
