"""``gateway serve --nimlet``: the gateway as one nimlet extension.

Its ``register`` lists every tool, command and event of the packages behind it; the host's
requests go to them, and what they send back — side effects, questions, host requests,
progress — goes to the host. The host dispatches the lifecycle hooks: it sends each event
the packages subscribe to, this server folds their replies by the event's rule into one
reply, and a ``tool`` request runs the tool without dispatching ``tool_call`` /
``tool_result`` a second time (``Gateway.call_tool(hooks=False)``).

Two generations of the protocol share ``version: 1`` with no negotiation (docs/protocol.md),
so the host's generation is a choice (``--protocol``): ``current`` (upstream nimlet today:
tool ``content`` as parts, ``tool_update``, ``host_request``, four question kinds) or
``older`` (the documented protocol: string ``content``, ``question`` only, no host requests).
What a generation cannot carry is left out and named (``serve.not_carried``).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio

from gateway.base import GatewayError, counted
from gateway.host import Gateway
from gateway.model import (
    AgentLink,
    Completion,
    CompletionRequest,
    EditRequest,
    EditResult,
    SessionEffect,
)
from gateway.serve._codes import SERVE_CLIENT_FAILED, SERVE_NOT_CARRIED
from gateway.serve._nimlet_replies import event_reply, register_message, tool_reply
from gateway.serve._progress import progress_message
from gateway.serve._report import answering
from gateway.serve._stdio import StdioLines
from gateway.wire import ExtensionProcess, UiAnswer, UiRequest
from gateway.wire.features import REGISTER_DIAGNOSTICS

__all__ = ["Generation", "NimletBridge"]

Generation = Literal["current", "older"]
_QUESTIONS = {"current": ("question", "confirm", "input", "password"), "older": ("question",)}


class HostRequestFailed(GatewayError):
    """The host answered a ``host_request`` with an error (its text) or cancelled it."""


@dataclass(slots=True)
class _Waiting:
    done: anyio.Event = field(default_factory=anyio.Event)
    reply: dict[str, Any] = field(default_factory=dict)


class NimletBridge:
    """Serves one host over ``wire``, for the gateway it is given at ``register``."""

    def __init__(self, wire: StdioLines, generation: Generation = "current") -> None:
        self._wire = wire
        self._generation: Generation = generation
        self._gateway: Gateway | None = None
        self._tasks: dict[str, anyio.CancelScope] = {}
        self._waiting: dict[str, _Waiting] = {}
        self._ids = itertools.count(1)
        self._registered_tools: set[str] = set()
        self.initialize: dict[str, Any] | None = None
        # Replies, updates and questions leave through one ordered outbox: a progress line
        # never overtakes the reply it precedes.
        self._outbox, self._inbox = anyio.create_memory_object_stream[dict[str, Any]](math.inf)

    # ------------------------------------------------------------------ the handshake

    async def read_initialize(self, lines: Any) -> dict[str, Any]:
        """The host's first line; anything else first is an error (nothing to serve)."""
        async for line in lines:
            message = _decode(line)
            if message is not None and message.get("type") == "initialize":
                self.initialize = message
                return message
            raise ValueError(f"expected initialize first, got {_describe(line)}")
        raise ValueError("the host closed stdin before initialize")

    async def register(self, gateway: Gateway) -> None:
        self._gateway = gateway
        announced = (self.initialize or {}).get("gateway")
        offered = announced.get("features", []) if isinstance(announced, dict) else []
        message, left_out = register_message(gateway, diagnostics=REGISTER_DIAGNOSTICS in offered)
        for text in left_out:
            gateway.diagnostics.add(SERVE_NOT_CARRIED(text))
        self._registered_tools = {tool["name"] for tool in message.get("tools", [])}
        await self._send(message)

    def registry_changed(self) -> None:
        """A plain nimlet host takes one ``register``: a tool that comes later cannot reach
        it (the gateway's own host offers no ``registration.update`` to extensions)."""
        gateway = self._gateway
        if gateway is None:
            return
        for tool in gateway.tools():
            if tool.name not in self._registered_tools:
                self._registered_tools.add(tool.name)
                gateway.diagnostics.add(
                    SERVE_NOT_CARRIED(
                        f"tool {tool.name} of {tool.owner} was registered after start; a nimlet "
                        "host reads register once, so it is not offered until the host "
                        "restarts this extension (/reload)",
                        package=tool.owner,
                        contribution=tool.name,
                    )
                )

    # ------------------------------------------------------------------ the loop

    async def serve(self, lines: Any) -> None:
        """Route every line until ``shutdown`` or end of input."""
        async with anyio.create_task_group() as group:
            async for line in lines:
                message = _decode(line)
                if message is None:
                    self._client_failed(f"ignored a line that is not JSON: {_describe(line)}")
                    continue
                kind = message.get("type")
                if kind == "shutdown":
                    break
                if kind in ("ui_response", "host_response"):
                    self._answered(message)
                elif kind == "cancel":
                    scope = self._tasks.get(str(message.get("id")))
                    if scope is not None:
                        scope.cancel()
                elif kind in ("tool", "command", "event") and isinstance(message.get("id"), str):
                    group.start_soon(self._run_request, message)
                else:
                    self._client_failed(f"ignored a {kind!r} message: {_describe(line)}")
            group.cancel_scope.cancel()

    def close(self) -> None:
        self._outbox.close()

    async def _run_request(self, message: dict[str, Any]) -> None:
        request_id = message["id"]
        with anyio.CancelScope() as scope:
            self._tasks[request_id] = scope
            try:
                with answering():
                    reply = await self._handle(message)
            except Exception as error:
                # One request that fails unexpectedly never stops the server.
                kind, name = message["type"], message.get("name")
                self._client_failed(f"{kind} {name!r} failed: {error!r}")
                if kind == "tool":
                    reply = tool_reply(self._generation, f"gateway serve: {error}", True, None)
                elif kind == "command":
                    reply = {"message": f"gateway serve: {error}"}
                else:
                    reply = {}
            finally:
                self._tasks.pop(request_id, None)
            await self._send({"type": "response", "id": request_id, **reply})
            await self._deliver_user_messages()
        # A cancelled request gets no reply: the host stopped waiting for it.

    async def _handle(self, message: dict[str, Any]) -> dict[str, Any]:
        gateway = self._gateway
        assert gateway is not None
        kind, name = message["type"], message.get("name")
        if kind == "tool":
            arguments = message.get("arguments")
            if not isinstance(name, str) or gateway.registry.tool(name) is None:
                return tool_reply(self._generation, f"unknown tool {name!r}", True, None)
            result = await gateway.call_tool(
                name,
                arguments if isinstance(arguments, dict) else {},
                hooks=False,
                progress=self._progress(message["id"]),
            )
            return tool_reply(self._generation, result.content, result.is_error, result.parts)
        if kind == "command":
            return await self._command(gateway, message)
        return await event_reply(gateway, message, self._not_carried)

    async def _command(self, gateway: Gateway, message: dict[str, Any]) -> dict[str, Any]:
        name, arguments = message.get("name"), message.get("arguments")
        if not isinstance(name, str) or gateway.registry.command(name) is None:
            return {"message": f"unknown command /{name}"}
        context = message.get("context")
        if isinstance(context, dict):
            self._adopt_context(gateway.agent, context)
        outcome = await gateway.run_command(name, arguments if isinstance(arguments, str) else "")
        reply: dict[str, Any] = {}
        texts = [t for t in (outcome.message, outcome.error and f"{outcome.error}") if t]
        if texts:
            reply["message"] = "\n".join(texts)
        if outcome.session is not None:
            reply["session"] = outcome.session.to_dict()
        elif outcome.reload:
            reply["reload"] = True
        elif outcome.prompt:
            reply["prompt"] = outcome.prompt
        return reply

    @staticmethod
    def _adopt_context(link: AgentLink, context: dict[str, Any]) -> None:
        """The host's model and messages, as the packages would see them locally."""
        for key in ("provider", "model"):
            if isinstance(context.get(key), str):
                setattr(link, key, context[key])
        messages = context.get("messages")
        if isinstance(messages, list):
            kept = [m for m in messages if isinstance(m, dict)]
            link.messages = lambda: list(kept)

    def _progress(self, request_id: str) -> Callable[[str, dict[str, Any]], None] | None:
        if self._generation == "older":
            return None  # the older protocol has no progress message

        def forward(owner: str, item: dict[str, Any]) -> None:
            text = progress_message(item)
            if text:
                self._post({"type": "tool_update", "id": request_id, "content": text})

        return forward

    # ------------------------------------------------------------------ side effects

    def on_effect(self, effect: SessionEffect) -> None:
        """An effect of a package behind the server, applied to the host's session as an
        ``update`` (keys keep the package's name: ``<package>:<key>`` under this
        extension's)."""
        update: dict[str, Any] = {"type": "update"}
        if effect.kind == "status":
            update["status"] = {"key": effect.key, "text": effect.value}
        elif effect.kind == "widget":
            update["widget"] = {"key": effect.key, "lines": effect.value}
        elif effect.kind == "notification":
            update["notification"] = {"level": effect.value.level, "message": effect.value.message}
        elif effect.kind == "entry":
            update["entry"] = {"extension": effect.extension, "data": effect.value}
        else:
            return
        self._post(update)

    async def _deliver_user_messages(self) -> None:
        """``user_message`` of the packages (current protocol): to the host, as they were
        asked for."""
        gateway = self._gateway
        if gateway is None or not gateway.pending_user_messages:
            return
        messages = [*gateway.take_steering("all"), *gateway.take_follow_ups("all")]
        if self._generation == "older":
            self._not_carried(
                f"{counted(len(messages), 'user message')} (user_message): the older protocol "
                "has none"
            )
            return
        for item in messages:
            await self._send(
                {"type": "update",
                 "user_message": {"content": item.content, "deliver_as": item.deliver_as}}
            )  # fmt: skip

    def submit_input(self, message: Any) -> None:
        """A ``now`` user message while no turn runs: the host decides what it is."""
        if self._generation == "current":
            self._post(
                {"type": "update",
                 "user_message": {"content": message.content, "deliver_as": "now"}}
            )  # fmt: skip

    # ------------------------------------------------------------------ asking the host

    async def ask(self, process: ExtensionProcess, request: UiRequest) -> UiAnswer:
        """A package's question, asked of the host's user."""
        if request.method not in _QUESTIONS[self._generation]:
            self._not_carried(
                f"{process.name} asked a {request.method!r} question; the {self._generation} "
                "protocol has none, so it was answered cancelled"
            )
            return UiAnswer(cancelled=True)
        question = {"type": "ui_request", "id": f"q{next(self._ids)}", "method": request.method,
                    "prompt": request.prompt, "options": list(request.options)}  # fmt: skip
        reply = await self._round_trip(question)
        cancelled = reply.get("cancelled") is True
        if request.method == "confirm":
            return UiAnswer(confirmed=reply.get("confirmed") is True, cancelled=cancelled)
        answer = reply.get("answer")
        return UiAnswer(answer=answer if isinstance(answer, str) else "", cancelled=cancelled)

    async def complete(self, request: CompletionRequest) -> Completion:
        result = await self._host_request(
            "model.complete",
            {"prompt": request.prompt, "system_prompt": request.system_prompt,
             **({"max_tokens": request.max_tokens} if request.max_tokens else {})},
        )  # fmt: skip
        return Completion(
            text=str(result.get("text", "")),
            model=str(result.get("model", "")),
            finish_reason=str(result.get("finish_reason", "frUnknown")),
        )

    async def edit_text(self, request: EditRequest) -> EditResult:
        try:
            result = await self._host_request("ui.editor", {"title": request.title,
                                                            "text": request.text})  # fmt: skip
        except HostRequestFailed as error:
            return EditResult(None, str(error))
        if result.get("cancelled") is True or not isinstance(result.get("text"), str):
            return EditResult(None, str(result.get("error") or "cancelled"))
        return EditResult(result["text"])

    async def _host_request(self, method: str, inputs: dict[str, Any]) -> dict[str, Any]:
        if self._generation == "older":
            raise HostRequestFailed(f"the host speaks the older protocol, which has no {method}")
        reply = await self._round_trip(
            {"type": "host_request", "id": f"h{next(self._ids)}", "method": method, **inputs}
        )
        if reply.get("cancelled") is True and "result" not in reply:
            raise HostRequestFailed(str(reply.get("error") or "cancelled by the host"))
        if isinstance(reply.get("error"), str):
            raise HostRequestFailed(reply["error"])
        result = reply.get("result")
        return result if isinstance(result, dict) else {}

    async def _round_trip(self, message: dict[str, Any]) -> dict[str, Any]:
        waiting = self._waiting[message["id"]] = _Waiting()
        try:
            await self._send(message)
            await waiting.done.wait()
            return waiting.reply
        finally:
            self._waiting.pop(message["id"], None)

    def _answered(self, message: dict[str, Any]) -> None:
        waiting = self._waiting.get(str(message.get("id")))
        if waiting is None:
            self._client_failed(f"a {message.get('type')} for no question asked: {message!r:.200}")
            return
        waiting.reply = message
        waiting.done.set()

    # ------------------------------------------------------------------ reporting

    def _not_carried(self, text: str) -> None:
        if self._gateway is not None:
            self._gateway.diagnostics.add(SERVE_NOT_CARRIED(text))

    def _client_failed(self, text: str) -> None:
        if self._gateway is not None:
            self._gateway.diagnostics.add(SERVE_CLIENT_FAILED(text))

    def _post(self, message: dict[str, Any]) -> None:
        """Send from a callback that cannot wait: in order with every other line."""
        # When the server is stopping, the host stopped listening.
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._outbox.send_nowait(message)

    async def _send(self, message: dict[str, Any]) -> None:
        if self._outbox.statistics().current_buffer_used == 0:
            # Nothing queued ahead of it: the one write, without a hop through the writer.
            await self._wire.send(message)
        else:
            await self._outbox.send(message)

    async def write_out(self) -> None:
        """The one writer of the host's stdin… our stdout: every line, in order."""
        async with self._inbox:
            async for message in self._inbox:
                await self._wire.send(message)


def _decode(line: bytes | Any) -> dict[str, Any] | None:
    if not isinstance(line, bytes):
        return None
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _describe(line: Any) -> str:
    if isinstance(line, bytes):
        return repr(line[:120])
    return f"a line over the cap ({getattr(line, 'size', '?')} bytes)"
