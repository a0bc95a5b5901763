"""The plugin host's life: read ``initialize``, start every stdio server and connect every
remote one, write ``register``, serve ``tool`` / ``command`` / ``event`` / ``cancel`` until
``shutdown`` or end of input, then close every MCP session and child, bounded."""

from __future__ import annotations

import math
import os
import sys
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from adapters.plugin_host._channel import Channel, log, take_stdio
from adapters.plugin_host._config import ConfigError, HostConfig, load_config, start_timeout
from adapters.plugin_host._naming import namer
from adapters.plugin_host._registry import Registry
from adapters.plugin_host._requests import Requests
from gateway.base import HOOK_EVENTS

if TYPE_CHECKING:
    from adapters.plugin_host._command_hooks import CommandHooks
    from adapters.plugin_host._servers import McpServer
    from adapters.plugin_host._shell_commands import ShellCommands

__all__ = ["main"]

USAGE = "usage: python -P -m adapters.plugin_host --config FILE\n"
Message = dict[str, Any] | None
"""A message of the gateway's; None: the end of its input."""
SHUTDOWN_SECONDS = 3.0


def parse_args(argv: list[str]) -> str:
    if len(argv) == 1 and argv[0].startswith("--config="):
        return argv[0].partition("=")[2]
    if len(argv) == 2 and argv[0] == "--config":
        return argv[1]
    sys.stderr.write(USAGE)
    raise SystemExit(2)


def main(argv: list[str]) -> int:
    path = parse_args(argv)
    try:
        config = load_config(path)
        if config.commands:
            from adapters.plugin_host._shell_commands import read_shell_commands

            read_shell_commands(config.commands)  # checked before anything starts
    except ConfigError as error:
        sys.stderr.write(f"[plugin-host] invalid configuration: {error}\n")
        return 2
    sys.dont_write_bytecode = True  # never write into the (hashed, trusted) plugin root
    channel = take_stdio()
    initialize = channel.read_message()
    if initialize is None or initialize.get("type") == "shutdown":
        return 0
    workspace = initialize.get("workspace")
    # The session's workspace fills what names it (Gemini's ${workspacePath}); the host
    # is started in it, so its working directory is the fallback.
    config = config.in_workspace(
        workspace if isinstance(workspace, str) and os.path.isabs(workspace) else os.getcwd()
    )
    gateway = initialize.get("gateway")
    features = gateway.get("features") if isinstance(gateway, dict) else None
    listed = features if isinstance(features, list) else []
    negotiated = frozenset(f for f in listed if isinstance(f, str))
    try:
        anyio.run(_run, channel, config, negotiated)
    except KeyboardInterrupt:
        return 130
    return 0


def mcp_servers(config: HostConfig) -> list[McpServer]:
    """The stdio and remote MCP servers (``_servers``), loaded only when there are some: a
    plugin of hooks alone (a Claude Code hook plugin) never talks MCP. The MCP SDK (~0.8 s
    of CPU to import) is loaded only for a remote server (``_remote``) or a stdio server
    that cannot do the classic handshake (``_sdk_client``); the lean stdio client
    (``_stdio_client``) speaks to the others."""
    count = len(config.servers) + len(config.remote)
    if not count:
        return []
    from adapters.plugin_host._servers import McpServer

    servers = [
        McpServer(s, namer(config.tool_names, config.package, s.name, count))
        for s in config.servers
    ]
    return servers + remote_servers(config, count)


def remote_servers(config: HostConfig, count: int) -> list[McpServer]:
    """The remote servers (``_remote``), loaded only when the configuration has some."""
    if not config.remote:
        return []
    from adapters.plugin_host._remote import RemoteLink
    from adapters.plugin_host._servers import McpServer

    return [
        McpServer(
            spec,
            namer(config.tool_names, config.package, spec.name, count),
            RemoteLink(spec, config.package, config.sign_ins, os.environ),
        )
        for spec in config.remote
    ]


def _load_hooks(config: HostConfig) -> CommandHooks | None:
    """The hook seat: command hooks (``_command_hooks``, hooks.json on the gateway's hook
    chain, by Claude Code's or Gemini CLI's protocol), loaded only when the configuration
    has ``hooks``."""
    if config.hooks is None:
        return None
    from adapters.plugin_host._command_hooks import CommandHooks

    return CommandHooks.from_config(
        config.hooks, root=config.root, data_dir=config.data_dir, env=dict(os.environ),
        protocol=config.hook_protocol, kinds=config.hook_types, package=config.package,
    )  # fmt: skip


def _load_shell_commands(config: HostConfig) -> ShellCommands | None:
    """A Claude Code plugin's commands with ``!`` lines (``_shell_commands``), loaded only
    when the configuration has some."""
    if not config.commands:
        return None
    from adapters.plugin_host._shell_commands import ShellCommands, read_shell_commands

    return ShellCommands(
        read_shell_commands(config.commands), root=config.root, data_dir=config.data_dir,
        timeout=config.shell_timeout,
    )  # fmt: skip


async def _run(channel: Channel, config: HostConfig, features: frozenset[str]) -> None:
    send, inbox = anyio.create_memory_object_stream[Message](math.inf)
    with inbox:  # closed however the host ends (the reader closes ``send``)
        await _host(channel, config, features, send, inbox)


async def _host(
    channel: Channel,
    config: HostConfig,
    features: frozenset[str],
    send: MemoryObjectSendStream[Message],
    inbox: MemoryObjectReceiveStream[Message],
) -> None:
    stop = anyio.Event()
    servers = mcp_servers(config)
    async with anyio.create_task_group() as group:
        group.start_soon(_read, channel, send)
        for server in servers:
            group.start_soon(server.run, stop, start_timeout())
        stopped, early = await _started(servers, inbox)
        if stopped:
            # The gateway gave the start up (shutdown, or the end of input, before register):
            # nothing was offered, so nothing is in flight; each server's child is stopped
            # as its task is cancelled (bounded, shielded).
            stop.set()
            group.cancel_scope.cancel()
            return
        registry = Registry()
        for server in servers:
            registry.add_server(server)
        hooks = _load_hooks(config)
        shell = _load_shell_commands(config)
        if shell is not None:
            registry.add_local_commands(shell.specs())
        events: list[str] = list(hooks.events) if hooks is not None else []
        if hooks is not None:
            registry.diagnostics += list(hooks.new_diagnostics())  # all of them, the first time
        registry.none_started(servers, hooked=bool(events))
        diagnostics = "register.diagnostics" in features
        # The hooks' `input` and `before_agent_start` are extended events (docs/protocol.md):
        # subscribed only where negotiated; a plain nimlet host gets its own nine.
        extended = "events.extended" in features and any(e not in HOOK_EVENTS for e in events)
        if "events.extended" not in features:
            events = [event for event in events if event in HOOK_EVENTS]
        narrowed = hooks.hook_tools if hooks is not None else {}
        hook_tools = narrowed if "register.hook_tools" in features else None
        channel.send(
            registry.register_message(events, diagnostics, extended=extended, hook_tools=hook_tools)
        )
        requests = Requests(channel, registry, hooks, features, shell)
        if hooks is not None and servers:
            from adapters.plugin_host._mcp_tool_hooks import server_caller

            # mcp_tool hooks; a server one finds gone is said exited as a tool call says it
            hooks.call_tool = server_caller(servers, config.package, requests.server_lost)
        for server in servers:
            server.report = requests.report_problem
            group.start_soon(requests.watch_exit, server, stop)
        for message in early:
            requests.handle(message, group)
        await _serve(inbox, requests, group)
        await _shut_down(stop, servers, requests, group)


def _ends(message: Message) -> bool:
    return message is None or message.get("type") == "shutdown"


async def _read(channel: Channel, send: MemoryObjectSendStream[Message]) -> None:
    """The gateway's messages, from the start on — a shutdown can come while the servers
    are still starting — until ``shutdown`` or the end of input (``None``)."""
    async with send:
        while True:
            message = await channel.receive()
            await send.send(message)
            if _ends(message):
                return


async def _started(
    servers: list[McpServer], inbox: MemoryObjectReceiveStream[Message]
) -> tuple[bool, list[dict[str, Any]]]:
    """Every server ready, unless ``shutdown`` or the end of input comes first: (whether
    it did, the other messages that came meanwhile — to be served once registered)."""
    early: list[dict[str, Any]] = []
    stopped = False
    async with anyio.create_task_group() as race:

        async def ready() -> None:
            for server in servers:
                await server.ready.wait()
            race.cancel_scope.cancel()

        async def listen() -> None:
            nonlocal stopped
            async for message in inbox:
                if message is None or _ends(message):
                    stopped = True
                    race.cancel_scope.cancel()
                    return
                early.append(message)

        race.start_soon(ready)
        race.start_soon(listen)
    return stopped, early


async def _serve(
    inbox: MemoryObjectReceiveStream[Message], requests: Requests, group: TaskGroup
) -> None:
    async for message in inbox:
        if message is None or _ends(message):
            return
        requests.handle(message, group)


async def _shut_down(
    stop: anyio.Event, servers: list[McpServer], requests: Requests, group: TaskGroup
) -> None:
    """Calls in flight get a moment to answer, then every session and child is closed
    (each child as the SDK's transport ends one: stdin closed, then terminate, then kill)."""
    with anyio.move_on_after(0.25):
        await requests.idle()
    requests.cancel_all()
    stop.set()
    with anyio.move_on_after(SHUTDOWN_SECONDS) as scope:
        for server in servers:
            await server.finished.wait()
    if scope.cancelled_caught:
        log("servers did not close in time; stopping them")
    group.cancel_scope.cancel()
