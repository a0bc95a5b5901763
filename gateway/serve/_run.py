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

from gateway.base import gateway_version
from gateway.model import AgentLink
from gateway.serve._codes import SERVE_METRICS_ADDRESS
from gateway.serve._nimlet import Generation, NimletBridge
from gateway.serve._open import ServeError, ServeOptions, open_served, serve_bridge, stopped
from gateway.serve._report import stderr_reporter
from gateway.serve._stdio import StdioLines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from anyio import AsyncFile

    from gateway.host import Gateway
    from gateway.serve._mcp import McpBridge
    from gateway.serve._observe import Observed

__all__ = ["serve_mcp", "serve_nimlet"]


async def serve_mcp(
    options: ServeOptions, stdin: AsyncFile[str] | None = None, stdout: AsyncFile[str] | None = None
) -> int:
    """An MCP server on this process's stdin and stdout until the client goes.

    The server answers before the gateway is open: ``initialize`` at once, listings as soon
    as the registry holds what the packages offer (from the registration cache), while the
    runtimes start in the background. ``stdin`` and ``stdout``: text streams to serve on
    instead (the MCP SDK's ``stdio_server`` takes them; a test's client in this process)."""
    from gateway.serve._mcp import McpBridge
    from gateway.serve._observe import start_observing, stdio_gauges

    bridge = McpBridge(
        version=gateway_version(), strict=options.strict, tool_search=options.tool_search
    )
    metrics_sock = None
    if options.metrics is not None:
        from gateway.serve._http import metrics_listener

        try:
            if options.metrics == "token":
                raise ServeError(SERVE_METRICS_ADDRESS(
                    "--metrics token serves /metrics on the --http address; on stdio give "
                    "the metrics a listener of their own", hint="--metrics 127.0.0.1:9464",
                ))  # fmt: skip
            metrics_sock = metrics_listener(options.metrics)
        except ServeError as error:
            stderr_reporter()(error.diagnostic)
            return 1
    observed = start_observing(
        bridge, stdio_gauges(), prometheus=metrics_sock is not None, transport="pipe",
        report=stderr_reporter(),
    )  # fmt: skip
    try:
        return await _serve_mcp(options, bridge, observed, metrics_sock, (stdin, stdout))
    finally:
        observed.close()
        if metrics_sock is not None:
            metrics_sock.close()


async def _serve_mcp(
    options: ServeOptions,
    bridge: McpBridge,
    observed: Observed,
    metrics_sock: Any,
    stdio: tuple[AsyncFile[str] | None, AsyncFile[str] | None],
) -> int:
    from gateway.serve._mcp import run_mcp_stdio

    failure: list[ServeError] = []
    settled = anyio.Event()
    """The gateway is open, or could not open."""
    async with anyio.create_task_group() as group:
        if observed.prometheus is not None and metrics_sock is not None:
            from gateway.serve._metrics_http import MetricsApp, serve_metrics
            from gateway.serve._prometheus import CONTENT_TYPE

            app = MetricsApp(observed.prometheus.render, CONTENT_TYPE)
            group.start_soon(serve_metrics, app, metrics_sock)

        stop, served = anyio.Event(), anyio.Event()

        async def serve_gateway() -> None:
            try:
                await serve_bridge(options, bridge, options.report(), attached=settled,
                                   warm_after=bridge.listed, stop=stop)  # fmt: skip
            except ServeError as error:
                failure.append(error)
                group.cancel_scope.cancel()  # nothing to serve: the server stops too
            finally:
                settled.set()
                served.set()

        group.start_soon(serve_gateway)
        await run_mcp_stdio(bridge, *stdio)  # until the client goes
        # A client gone at once still learns why the server could not have served it.
        await settled.wait()
        await stopped(stop, served)
        group.cancel_scope.cancel()
    if failure:
        stderr_reporter()(failure[0].diagnostic)
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
    report = options.report()

    async def warm(gateway: Gateway) -> None:
        await gateway.warm()
        report.started()  # the warnings of the start, by package

    try:
        async with open_served(
            options,
            ui=bridge.ask,
            agent=agent,
            on_effect=bridge.on_effect,
            on_diagnostic=report,
        ) as gateway:
            await bridge.register(gateway)
            gateway.registry.on_change = bridge.registry_changed
            async with anyio.create_task_group() as warming:
                # register came from the registration cache where it could; the runtimes
                # start meanwhile (a request for one that is not up yet waits for its start).
                warming.start_soon(warm, gateway)
                await bridge.serve(lines)
                warming.cancel_scope.cancel()
    finally:
        report.started()
