"""The way a tool call goes through the gateway: permission prompt → ``tool_call`` hooks →
adopted policy rules → argument validation → the tool → ``tool_result`` hooks, with plan
mode's shortcut; and the calls of one model step, concurrent where nimlet runs them so."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio

from gateway.base import MAX_ARGUMENT_DEPTH, json_depth
from gateway.base.telemetry import CallTrail
from gateway.host._lifecycle import Lifecycle
from gateway.host._observe import finish, observe_tool_call
from gateway.host._permissions import DENIED
from gateway.host._policy_gate import PolicyGate
from gateway.host._state import CALL_PROGRESS, GatewayState, ProgressListener
from gateway.model import ToolEntry, ToolOutcome, ToolResult, UnknownTool
from gateway.wire import ExtensionError, after_rewrite

__all__ = ["ToolPipeline"]


class ToolPipeline:
    """Runs tool calls for the ``Gateway``: its events go through the gateway's
    ``Lifecycle``, its policy checks through the gateway's ``PolicyGate``."""

    def __init__(self, state: GatewayState, lifecycle: Lifecycle, policy: PolicyGate) -> None:
        self._state = state
        self._lifecycle = lifecycle
        self._policy = policy

    async def call(
        self,
        name: str,
        arguments: dict[str, Any] | None,
        hooks: bool,
        progress: ProgressListener | None,
    ) -> ToolResult:
        """One call (``Gateway.call_tool``); ``UnknownTool`` when nothing has that name."""
        state = self._state
        tool = state.registry.tool(name)
        if tool is None:
            raise UnknownTool(name)
        arguments = dict(arguments or {})
        with observe_tool_call(state, tool) as trail:
            if json_depth(arguments, stop_at=MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH:
                # Hooks, validation and the wire would all recurse through it: refused first.
                trail.outcome = "invalid"
                return ToolResult(
                    f"Invalid arguments: nested deeper than {MAX_ARGUMENT_DEPTH} levels",
                    True, False, arguments,
                )  # fmt: skip
            state.running += 1
            token = CALL_PROGRESS.set(progress)
            try:
                return finish(trail, await self._run(tool, arguments, hooks, trail))
            finally:
                CALL_PROGRESS.reset(token)
                state.running -= 1

    async def call_all(self, calls: Sequence[tuple[str, dict[str, Any]]]) -> list[ToolResult]:
        """The calls of one model step (``Gateway.call_tools``): concurrent when there are
        two or more and every tool is declared exactly ``["read"]`` and needs no prompt."""
        state = self._state
        tools = [state.registry.tool(name) for name, _ in calls]
        for (name, _), tool in zip(calls, tools, strict=True):
            if tool is None:
                raise UnknownTool(name)
        concurrent = len(calls) > 1 and all(
            tool is not None
            and tool.read_only
            and (state.plan or state.permissions.allowed_without_asking(tool, state.agent))
            for tool in tools
        )
        if not concurrent:
            return [await self.call(name, arguments, True, None) for name, arguments in calls]
        results: list[ToolResult | None] = [None] * len(calls)

        async def one(index: int, name: str, arguments: dict[str, Any]) -> None:
            results[index] = await self.call(name, arguments, True, None)

        async with anyio.create_task_group() as group:
            for index, (name, arguments) in enumerate(calls):
                group.start_soon(one, index, name, arguments)
        return [result for result in results if result is not None]

    async def _run(
        self, tool: ToolEntry, arguments: dict[str, Any], hooks: bool, trail: CallTrail
    ) -> ToolResult:
        state = self._state
        emit = self._lifecycle.emit
        mark = state.diagnostics.mark()
        name = tool.name
        if state.plan and not tool.plan_safe:
            return ToolResult(
                "Tool unavailable in plan mode. The user must switch to act mode to enable "
                "implementation tools.",
                True, False, arguments, error_code="tool_unavailable",
            )  # fmt: skip
        # Plan mode runs plan tools directly: no prompt, and no hooks (emit skips them).
        hooked = hooks and name != "ask_user" and not state.plan
        if hooked and not await state.permissions.ask(tool, arguments, state.agent):
            trail.outcome = "denied"
            return ToolResult(
                DENIED, True, True, arguments, state.diagnostics.since(mark),
                error_code="approval_denied",
            )  # fmt: skip
        if hooked:
            gate = await emit("tool_call", {"tool": name, "arguments": arguments}, tool)
            if gate.asked:
                trail.hooks["tool_call"] = {
                    "asked": gate.asked, "failed": gate.failed, "blocked": not gate.allowed,
                    "rewrote": gate.payload["arguments"] != arguments,
                }  # fmt: skip
            arguments = gate.payload["arguments"]
            if not gate.allowed:
                return ToolResult(
                    gate.reason, True, True, arguments, state.diagnostics.since(mark),
                    error_code="approval_denied",
                )  # fmt: skip
        # Adopted policy rules decide on the arguments the tool would run with.
        verdict = await self._policy.check(tool, arguments)
        policy = verdict.decision.to_dict() if verdict.decision.rule is not None else None
        trail.policy = policy
        if not verdict.allowed:
            return ToolResult(
                verdict.message, True, True, arguments, state.diagnostics.since(mark),
                error_code="policy_denied", policy=policy,
            )  # fmt: skip
        outcome = await _run_tool(tool, arguments)
        content, is_error = outcome.content, outcome.is_error
        parts = outcome.extra.get("parts")
        structured = outcome.extra.get("structured")
        if hooked:
            after = await emit(
                "tool_result",
                {"tool": name, "arguments": arguments, "output": content, "is_error": is_error},
                tool,
            )
            if after.asked:
                trail.hooks["tool_result"] = {
                    "asked": after.asked, "failed": after.failed,
                    "replaced": str(after.payload["output"]) != content
                    or bool(after.payload["is_error"]) != is_error,
                }  # fmt: skip
            if str(after.payload["output"]) != content:
                # A hook replaced the output: the text is what counts now.
                parts = after_rewrite(
                    parts, bool(outcome.extra.get("keep_images")), str(after.payload["output"])
                )
                structured = None
            content, is_error = str(after.payload["output"]), bool(after.payload["is_error"])
        state.session.append(
            {"type": "tool_result", "id": state.next_id(), "output": content, "is_error": is_error}
        )
        return ToolResult(
            content, is_error, False, arguments, state.diagnostics.since(mark),
            parts=parts, details=outcome.extra.get("details"),
            progress=list(outcome.extra.get("progress") or []),
            error_code=outcome.extra.get("error_code"), policy=policy, structured=structured,
        )  # fmt: skip


async def _run_tool(tool: ToolEntry, arguments: dict[str, Any]) -> ToolOutcome:
    problem = tool.check_arguments(arguments)
    if problem is not None:
        return ToolOutcome(problem, True)
    try:
        return await tool.handler(arguments)
    except ExtensionError as error:
        return ToolOutcome(str(error), is_error=True)
