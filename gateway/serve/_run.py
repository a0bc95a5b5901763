"""Running a server: open the gateway, serve, close everything in order.

``serve_mcp`` and ``serve_nimlet`` return an exit status for the CLI: 0 when the client
closed the connection, 1 when the server could not start (the reason is on stderr).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import anyio

from gateway.model import AgentLink
from gateway.serve._nimlet import Generation, NimletBridge
from gateway.serve._open import ServeError, ServeOptions, open_served, stderr_reporter
from gateway.serve._stdio import StdioLines
from gateway.wire import ExtensionProcess, UiAnswer, UiRequest

__all__ = ["serve_mcp", "serve_nimlet"]


def _version() -> str:
    from gateway.base import gateway_version

    return gateway_version()


async def serve_mcp(options: ServeOptions) -> int:
    """An MCP server on this process's stdin and stdout until the client goes."""
    from gateway.serve._mcp import McpBridge, run_mcp_stdio

    bridge: McpBridge | None = None

    async def ask(process: ExtensionProcess, request: UiRequest) -> UiAnswer:
        if bridge is None:
            return UiAnswer(cancelled=True)
        return await bridge.ask(process, request)

    try:
        async with open_served(options, ui=ask, on_diagnostic=stderr_reporter()) as gateway:
            bridge = McpBridge(gateway, version=_version())
            await gateway.start_session()
            try:
                await run_mcp_stdio(bridge)
            finally:
                with anyio.CancelScope(shield=True), anyio.move_on_after(5):
                    await gateway.end_session()
    except ServeError as error:
        stderr_reporter()(error.diagnostic)
        return 1
    return 0


async def serve_nimlet(options: ServeOptions, generation: Generation = "current") -> int:
    """A nimlet extension on this process's stdin and stdout until ``shutdown``. The
    workspace is the one the host's ``initialize`` names unless ``options`` gives one."""
    wire = StdioLines()
    bridge = NimletBridge(wire, generation)
    lines = wire.lines()
    try:
        try:
            initialize = await bridge.read_initialize(lines)
        except ValueError as error:
            print(f"gateway serve --nimlet: {error}", file=sys.stderr, flush=True)
            return 1
        workspace = options.workspace
        if not options.workspace_given and isinstance(initialize.get("workspace"), str):
            workspace = Path(initialize["workspace"])
        agent = AgentLink(complete=bridge.complete, submit_input=bridge.submit_input)
        if generation == "current":
            agent.edit_text = bridge.edit_text
        served = dataclasses.replace(options, workspace=workspace)
        failure: ServeError | None = None
        async with anyio.create_task_group() as group:
            group.start_soon(bridge.write_out)
            try:
                await _serve_nimlet(bridge, served, agent, lines)
            except ServeError as error:
                failure = error
            finally:
                bridge.close()
    finally:
        wire.restore()
    if failure is not None:
        stderr_reporter()(failure.diagnostic)
        return 1
    return 0


async def _serve_nimlet(
    bridge: NimletBridge, options: ServeOptions, agent: AgentLink, lines: Any
) -> None:
    async with open_served(
        options,
        ui=bridge.ask,
        agent=agent,
        on_effect=bridge.on_effect,
        on_diagnostic=stderr_reporter(),
    ) as gateway:
        await bridge.register(gateway)
        gateway.registry.on_change = bridge.registry_changed
        await bridge.serve(lines)
