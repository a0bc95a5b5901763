"""The Python API an agent embeds: its own built-in tools go through the hooks too."""

from __future__ import annotations

import pytest

from gateway import ToolOutcome, UnknownCommand, UnknownTool, open_gateway
from tests._clock import virtual_time  # noqa: F401  (in memory: both backends, virtual time)

pytestmark = pytest.mark.anyio

BASH_SCHEMA = {
    "type": "object",
    "properties": {"command": {"type": "string"}},
    "required": ["command"],
}


async def test_builtin_tool_registered_by_the_agent_passes_through_tool_call_hooks(workspace):
    workspace.add_extension(
        "guard",
        tools=[],
        events=["tool_call"],
        hooks={"tool_call": {"allow": False, "reason": "no network"}},
    )
    ran: list[dict] = []

    async def bash(arguments):
        ran.append(arguments)
        return ToolOutcome("ran")

    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.register_builtin_tool("bash", "Run a shell command", BASH_SCHEMA, bash)
        result = await gateway.call_tool("bash", {"command": "curl example.com"})
    assert result.blocked and result.content == "no network"
    assert ran == []


async def test_builtin_tool_results_pass_through_tool_result_hooks(workspace):
    workspace.add_extension(
        "patch", tools=[], events=["tool_result"], hooks={"tool_result": {"output": "redacted"}}
    )
    workspace.grant("patch", "hooks.rewrite")  # the agent's own tools are another package's

    async def read(arguments):
        return ToolOutcome("secret contents")

    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.register_builtin_tool("read", "Read a file", {"type": "object"}, read, ["read"])
        result = await gateway.call_tool("read", {"path": "x"})
    assert result.content == "redacted"


async def test_ask_user_does_not_trigger_tool_hooks(workspace):
    log = workspace.add_extension("obs", tools=[], events=["tool_call", "tool_result"])

    async def ask_user(arguments):
        return ToolOutcome("yes")

    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.register_builtin_tool("ask_user", "Ask", {"type": "object"}, ask_user, ["user"])
        result = await gateway.call_tool("ask_user", {})
    assert result.content == "yes"
    assert not [line for line in log.read_text().splitlines() if '"event"' in line]


async def test_builtin_tool_wins_over_a_later_extension_tool_of_that_name(workspace):
    workspace.add_extension("ext", tools=["lint"])

    async def lint(arguments):
        return ToolOutcome("agent lint")

    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.register_builtin_tool("lint", "Lint", {"type": "object"}, lint)
        await gateway.reload()
        assert gateway.registry.tool("lint").owner == "builtin"
        assert (await gateway.call_tool("lint", {})).content == "agent lint"
        assert any(d.code == "registry.builtin_name" for d in gateway.diagnostics)


async def test_invalid_arguments_are_an_error_result_naming_the_problem(workspace):
    workspace.add_extension(
        "ext",
        schema={"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        missing = await gateway.call_tool("act", {})
        wrong = await gateway.call_tool("act", {"n": "seven"})
    assert missing.is_error and "'n' is a required property" in missing.content
    assert (
        wrong.is_error
        and "'seven' is not of type 'integer'" in wrong.content
        and "at n" in wrong.content
    )
    assert not [m for m in workspace.received("ext") if m["type"] == "tool"]


async def test_arguments_nested_5000_deep_are_an_error_result_before_any_hook(workspace):
    workspace.add_extension("guard", tools=[], events=["tool_call"])
    workspace.add_extension("ext")
    deep: dict = {}
    for _ in range(5000):
        deep = {"x": deep}
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", deep)
    assert result.is_error and "nested deeper than 64 levels" in result.content
    assert not [m for m in workspace.received("guard") if m.get("event") == "tool_call"]
    assert not [m for m in workspace.received("ext") if m["type"] == "tool"]


async def test_tool_schemas_are_ready_for_a_model(workspace):
    workspace.add_extension(
        "ext", capabilities=["read"], schema={"type": "object", "properties": {}}
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        (schema,) = gateway.tool_schemas()
    assert schema == {
        "name": "act",
        "description": "tool act",
        "input_schema": {"type": "object", "properties": {}},
        "capabilities": ["read"],
        "owner": "ext",
    }


async def test_unknown_tool_and_command_raise(workspace):
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        with pytest.raises(UnknownTool):
            await gateway.call_tool("missing", {})
        with pytest.raises(UnknownCommand):
            await gateway.run_command("missing")


async def test_command_reply_carries_message_and_prompt(workspace):
    workspace.add_extension("ext", tools=[], commands=["Deploy"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        plain = await gateway.run_command("deploy", "now")
        with_prompt = await gateway.run_command("DEPLOY", "prompt:write the changelog")
    assert plain.message == "ran Deploy now" and plain.prompt is None
    assert with_prompt.prompt == "write the changelog"
    commands = [m for m in workspace.received("ext") if m["type"] == "command"]
    assert commands[0]["name"] == "Deploy" and commands[0]["arguments"] == "now"


@pytest.mark.parametrize("restart", ["reload", "new_session", "set_trust"])
async def test_restarts_send_a_fresh_initialize(workspace, restart):
    workspace.add_extension("ext", root="~/.nimlet/extensions")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        first = gateway.processes[0]
        if restart == "set_trust":
            await gateway.set_trust(False)
        else:
            await getattr(gateway, restart)()
        assert gateway.processes[0] is not first and not first.alive
        session_id = gateway.session.id
    initializes = [m for m in workspace.received("ext") if m["type"] == "initialize"]
    assert len(initializes) == 2
    assert initializes[-1]["session_id"] == session_id


async def test_trust_change_brings_project_extensions_in_and_out(workspace):
    workspace.add_extension("project", tools=["p"])
    async with open_gateway(
        workspace.root, trust=False, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.registry.tool("p") is None
        await gateway.set_trust(True)
        assert gateway.registry.tool("p") is not None
        await gateway.set_trust(False)
        assert gateway.registry.tool("p") is None


async def test_resume_restarts_extensions_with_the_resumed_session_id(workspace):
    workspace.add_extension("ext", root="~/.nimlet/extensions")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        original = gateway.session.id
        await gateway.new_session()
        await gateway.resume(original)
        assert gateway.session.id == original
    initializes = [m for m in workspace.received("ext") if m["type"] == "initialize"]
    assert initializes[-1]["session_id"] == original
