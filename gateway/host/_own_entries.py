"""What the gateway runs itself, with no process of its own behind it, on the registry:
prompt templates found in the workspace or user folders, ``tool.json`` tools (a fresh
process per call), and the per-call tools and prompt commands an adapter planned for an
installed package (``CallPlan``)."""

from __future__ import annotations

from typing import Any

from gateway.host import _codes
from gateway.host._call_tools import CallRunner
from gateway.host._confinement import Confinement
from gateway.host._entries import client_command, prompt_command
from gateway.host._state import GatewayState
from gateway.host.external_tools import run_tool_json
from gateway.model import (
    CallPlan,
    CallTool,
    DiscoveredTool,
    PromptTemplate,
    ToolEntry,
    ToolOutcome,
    make_tool,
)
from gateway.runtime import LaunchError, resolve_command

__all__ = ["OwnEntries", "calls_owners"]


def calls_owners(package: str) -> tuple[str, str]:
    """The registry owners of what the gateway runs itself for ``package``: its per-call
    tools and its prompt commands."""
    return f"{package}:tools", f"{package}:commands"


class OwnEntries:
    """Registers what the gateway runs itself; owns the ``CallRunner`` of planned calls."""

    def __init__(self, state: GatewayState) -> None:
        self._state = state
        self._calls = CallRunner(state)

    def prompt(self, prompt: PromptTemplate) -> None:
        """A prompt template found in the workspace or user folders, owned by
        ``prompt:<name>``."""
        owner = f"prompt:{prompt.name}"
        command = prompt_command(prompt, owner)
        self._state.diagnostics.extend(self._state.registry.register(owner, commands=[command]))

    def tool_json(self, tool: DiscoveredTool) -> None:
        state, manifest = self._state, tool.manifest
        env = state.env
        try:
            command = resolve_command(list(manifest.command), tool.folder, env.get("PATH"))
        except LaunchError:
            command = list(manifest.command)  # the call says why it cannot start
        confinement = Confinement(state)
        policy = confinement.command(
            manifest.name, tool.folder, command, manifest.effective_capabilities
        )
        env = {**env, **confinement.environment(manifest.name)}

        async def handler(arguments: dict[str, Any]) -> ToolOutcome:
            outcome = await run_tool_json(
                tool, arguments, state.workspace, env, state.config.tool_output_cap,
                policy=policy, require_sandbox=state.config.require_sandbox,
                diagnostics=state.diagnostics,
            )  # fmt: skip
            if outcome.is_error:
                state.diagnostics.add(
                    _codes.TOOL_FAILED(
                        f"tool.json tool {manifest.name}: {outcome.content[:200]}",
                        package=manifest.name,
                    )
                )
            return outcome

        owner = f"tool.json:{manifest.name}"
        entry = make_tool(
            manifest.name,
            manifest.description,
            manifest.input_schema,
            manifest.effective_capabilities,
            owner,
            handler,
            ask_permission=True,
        )
        state.diagnostics.extend(state.registry.register(owner, tools=[entry]))

    def calls(self, package: str, plan: CallPlan) -> None:
        """What the gateway runs itself for an installed package (``CallPlan``): its
        per-call tools and prompt commands, each set under its own owner."""
        state = self._state
        tools_owner, commands_owner = calls_owners(package)
        for owner in (tools_owner, commands_owner):
            state.registry.unregister(owner)
            state.owner_packages[owner] = package
        tools = [self._call_tool(package, tools_owner, tool) for tool in plan.tools]
        commands = [client_command(commands_owner, command) for command in plan.commands]
        if tools:
            state.diagnostics.extend(state.registry.register(tools_owner, tools=tools))
        if commands:
            state.diagnostics.extend(state.registry.register(commands_owner, commands=commands))

    def _call_tool(self, package: str, owner: str, tool: CallTool) -> ToolEntry:
        runner = self._calls

        async def handler(arguments: dict[str, Any]) -> ToolOutcome:
            return await runner.call(package, tool, arguments)

        return make_tool(
            tool.name,
            tool.description,
            tool.input_schema,
            tool.capabilities,
            owner,
            handler,
            tool.ecosystem,
            display=tool.display,
        )
