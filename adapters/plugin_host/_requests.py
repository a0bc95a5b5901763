"""Serving the gateway's requests: every ``tool``, ``command`` and ``event`` runs in a task
of its own under a cancel scope keyed by its id, so calls overlap and ``cancel`` cancels the
MCP request (the client then sends the server ``notifications/cancelled``); no reply is sent for
a cancelled request, as the gateway has stopped waiting.

With ``trace.context`` negotiated, a request's W3C trace context (``gateway.traceparent``,
the gateway's span of that request) goes on to the MCP server in the request's
``_meta`` (SEP-414), and to a command hook as ``TRACEPARENT`` / ``TRACESTATE``: the
client's trace continues into the package."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup

from adapters.plugin_host import _codes as codes
from adapters.plugin_host._channel import Channel, describe_error, log
from adapters.plugin_host._content import prompt_text, resource_text, tool_reply
from adapters.plugin_host._registry import Registry, prompt_arguments
from adapters.plugin_host._shapes import CONNECTION_CLOSED, InvalidResult, MCPError
from gateway.base import telemetry

if TYPE_CHECKING:
    from adapters.plugin_host._servers import McpServer

__all__ = ["Requests"]


class Requests:
    def __init__(
        self,
        channel: Channel,
        registry: Registry,
        hooks: Any,
        features: frozenset[str],
        shell: Any = None,
    ) -> None:
        self.channel, self.registry, self.hooks, self.shell = channel, registry, hooks, shell
        self.parts = "tool.parts" in features
        self.progress = "tool.progress" in features
        self.updates = "update.diagnostics" in features
        self.traced = "trace.context" in features
        self.scopes: dict[str, anyio.CancelScope] = {}
        self._idle = anyio.Event()
        self._idle.set()

    def handle(self, message: dict[str, Any], group: TaskGroup) -> None:
        kind, request_id = message.get("type"), message.get("id")
        if kind == "cancel":
            scope = self.scopes.pop(str(request_id), None)
            if scope is not None:
                scope.cancel()
        elif not isinstance(request_id, str):
            if kind not in ("initialize", "ui_response", "host_response"):
                log(f"ignored a {kind!r} message without an id")
        elif kind in ("tool", "command", "event"):
            scope = anyio.CancelScope()
            self.scopes[request_id] = scope
            self._idle = anyio.Event() if self._idle.is_set() else self._idle
            group.start_soon(self._run, scope, request_id, message)
        else:
            log(f"ignored a {kind!r} message")

    async def idle(self) -> None:
        await self._idle.wait()

    def cancel_all(self) -> None:
        for scope in self.scopes.values():
            scope.cancel()
        self.scopes.clear()

    def reply(self, request_id: str, fields: dict[str, Any]) -> None:
        self.channel.send({"type": "response", "id": request_id, **fields})

    async def _run(
        self, scope: anyio.CancelScope, request_id: str, message: dict[str, Any]
    ) -> None:
        try:
            with scope:
                kind = message["type"]
                if kind == "tool":
                    fields = await self.tool(request_id, message)
                elif kind == "command":
                    fields = await self.command(message)
                else:
                    fields = await self.event(message)
                self.reply(request_id, fields)
        finally:
            self.scopes.pop(request_id, None)
            if not self.scopes:
                self._idle.set()

    async def tool(self, request_id: str, message: dict[str, Any]) -> dict[str, Any]:
        name = str(message.get("name"))
        held = self.registry.tools.get(name)
        if held is None:
            return {"content": f"unknown tool {name!r}", "is_error": True}
        target = held[0]
        session = target.server.session
        if session is None:
            return self._not_running(target.server)
        arguments = message.get("arguments")
        meta = self.meta(message)
        try:
            if target.kind == "resource":
                text = resource_text(await session.read_resource(target.name, meta))
                return {"content": text, "is_error": False}

            result = await session.call_tool(
                target.name,
                arguments if isinstance(arguments, dict) else {},
                _Progress(self, request_id) if self.progress else None,
                meta,
            )
        except MCPError as error:
            if (sign_in := _held(target.server)) is not None:
                return {"content": f"{sign_in}; the tool was not run", "is_error": True}
            if error.code == CONNECTION_CLOSED:
                return self._lost(target.server, error)
            return {"content": f"MCP error: {error.message}", "is_error": True}
        except InvalidResult as error:
            return {"content": _invalid(target.server, error), "is_error": True}
        except Exception as error:
            return self._lost(target.server, error)
        return tool_reply(result, self.parts)

    async def command(self, message: dict[str, Any]) -> dict[str, Any]:
        name = str(message.get("name"))
        if self.shell is not None and name in self.shell.commands:
            return await self.shell_command(name, message)
        held = self.registry.commands.get(name)
        if held is None or held[0].prompt is None:
            return {"message": f"unknown command {name!r}"}
        target = held[0]
        assert target.prompt is not None
        values, problem = prompt_arguments(target.prompt, str(message.get("arguments") or ""))
        if problem is not None:
            return {"message": f"/{name}: {problem}"}
        session = target.server.session
        if session is None:
            return {"message": self._not_running(target.server)["content"]}
        try:
            result = await session.get_prompt(target.name, values, self.meta(message))
        except MCPError as error:
            if (sign_in := _held(target.server)) is not None:
                return {"message": f"/{name}: {sign_in}"}
            if error.code == CONNECTION_CLOSED:
                return {"message": self._lost(target.server, error)["content"]}
            return {"message": f"/{name}: MCP error: {error.message}"}
        except InvalidResult as error:
            return {"message": f"/{name}: {_invalid(target.server, error)}"}
        except Exception as error:
            return {"message": self._lost(target.server, error)["content"]}
        return {"prompt": prompt_text(result)}

    async def shell_command(self, name: str, message: dict[str, Any]) -> dict[str, Any]:
        """A command with ``!`` lines (``_shell_commands``): its lines' problems are
        diagnostics where ``update.diagnostics`` was negotiated, else the reply's message."""
        arguments = message.get("arguments")
        reply, problems = await self.shell.run(
            name, arguments if isinstance(arguments, str) else "", message.get("context")
        )
        if problems and self.updates:
            self.channel.send({"type": "update", "gateway": {"diagnostics": problems}})
        elif problems:
            reply["message"] = "\n".join(str(p["message"]) for p in problems)
        return dict(reply)

    async def event(self, message: dict[str, Any]) -> dict[str, Any]:
        event, payload = message.get("event"), message.get("payload")
        if self.hooks is None or event not in self.hooks.events or not isinstance(payload, dict):
            return {}
        try:
            fields: dict[str, Any] = await self.hooks.dispatch(
                str(event), payload, trace=self.trace(message)
            )
        except Exception as error:
            log(f"{event} hooks failed: {describe_error(error)}")
            return {}
        fresh = self.hooks.new_diagnostics()  # what this dispatch found (a hook that failed)
        if fresh and self.updates:
            self.channel.send({"type": "update", "gateway": {"diagnostics": fresh}})
        return fields

    def trace(self, message: dict[str, Any]) -> dict[str, str]:
        """The request's W3C trace context when ``trace.context`` was negotiated (checked:
        only its W3C shape is passed on), else {}."""
        return telemetry.checked_trace(message.get("gateway")) if self.traced else {}

    def meta(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The ``_meta`` of the MCP request made for ``message``: its trace context."""
        return dict(self.trace(message)) or None

    def _progress(
        self, request_id: str, done: float, total: float | None, note: str | None
    ) -> None:
        if request_id not in self.scopes:
            return
        text = note or (f"{done:g}/{total:g}" if total else f"{done:g}")
        progress = {"id": request_id, "text": text, "content": [{"type": "text", "text": text}]}
        self.channel.send({"type": "update", "gateway": {"progress": progress}})

    def report_problem(self, item: dict[str, Any]) -> None:
        """A diagnostic found while running (a remote server's sign-in refused)."""
        if self.updates:
            self.channel.send({"type": "update", "gateway": {"diagnostics": [item]}})

    def _not_running(self, server: McpServer) -> dict[str, Any]:
        if (held := _held(server)) is not None:
            return {"content": held, "is_error": True}
        why = server.exited or server.failure or "stopped"
        return {
            "content": f"MCP server {server.spec.name!r} is not running ({why})",
            "is_error": True,
        }

    def _lost(self, server: McpServer, error: BaseException) -> dict[str, Any]:
        if (held := _held(server)) is not None:
            return {"content": held, "is_error": True}
        self.server_lost(server, error)
        problem = describe_error(error)
        return {"content": f"MCP server {server.spec.name!r} failed: {problem}", "is_error": True}

    def server_lost(self, server: McpServer, error: BaseException) -> None:
        """A call found ``server`` gone: it is marked exited, and said once."""
        if _held(server) is None and server.mark_exited(describe_error(error)):
            self.report_exit(server)

    def report_exit(self, server: McpServer) -> None:
        message = f"MCP server {server.spec.name!r} exited: {server.exited}"
        if self.updates:
            item = {"code": codes.AGENT_PLUGINS_SERVER_EXITED.code, "message": message,
                    "contribution": server.spec.name}  # fmt: skip
            self.channel.send({"type": "update", "gateway": {"diagnostics": [item]}})

    async def watch_exit(self, server: McpServer, stop: anyio.Event) -> None:
        """A server whose transport ended while the host runs is reported once."""
        await server.finished.wait()
        gone = not stop.is_set() and server.failure is None
        if gone and server.mark_exited(server.exited or "its transport closed"):
            self.report_exit(server)


def _invalid(server: McpServer, error: InvalidResult) -> str:
    return f"MCP server {server.spec.name!r} answered with an invalid result: {error}"


def _held(server: McpServer) -> str | None:
    """Why a remote server's calls are held back: a person must sign in again."""
    link = server.link
    return link.sign_in_text() if link is not None and link.needs_sign_in is not None else None


class _Progress:
    """The progress callback of one request: a negotiated ``tool.progress`` update."""

    def __init__(self, requests: Requests, request_id: str) -> None:
        self.requests, self.request_id = requests, request_id

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.requests._progress(self.request_id, progress, total, message)
