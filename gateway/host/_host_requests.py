"""Answering what a running extension asks the host: a user question (``ui_request``) and a
``host_request``.

One ``host_request`` message serves both generations. Current nimlet's methods
(``model.complete``, ``ui.editor``, ``session.info``, ``session.name``, ``context.usage``)
are answered for every process, as upstream answers them, and only while a turn, a command
or a tool call runs (else ``{cancelled, error: "host request is unavailable"}``). The
gateway's negotiated ``host.request`` keeps only what upstream has no equivalent for
(``session.entries``, ``exec``), plus two shapes a runtime written before upstream's may
still send: ``ui.input`` (upstream's equivalent is ``ui_request`` ``input``) and
``ui.editor`` with ``params`` (answered ``{value, cancelled}``). A plain extension asking
for a negotiated method gets upstream's "unknown host request".
"""

from __future__ import annotations

import subprocess

from gateway.base import telemetry
from gateway.host import _codes
from gateway.host._host_methods import UPSTREAM_METHODS, HostMethods
from gateway.host._state import GatewayState
from gateway.host.editor import UNAVAILABLE
from gateway.model import EditRequest
from gateway.runtime import run_child
from gateway.sandbox import SandboxUnavailable
from gateway.wire import ExtensionProcess, HostRequest, HostResponse, UiAnswer, UiHandler, UiRequest
from gateway.wire.features import HOST_REQUEST

__all__ = ["HostRequestHandler"]

UNAVAILABLE_REQUEST = "host request is unavailable"


class HostRequestHandler:
    """Owns the UI handler the embedding agent gave (None: no one can answer)."""

    def __init__(self, state: GatewayState, ui: UiHandler | None) -> None:
        self._state = state
        self._ui = ui
        self._methods = HostMethods(state)

    async def ask_user(self, process: ExtensionProcess, request: UiRequest) -> UiAnswer:
        """A plain extension is answered only while a turn, a command or a tool call runs
        (nimlet binds its UI only then); runtimes offered ``host.request`` follow their
        ecosystem (a dialog whenever there is a UI)."""
        outside = HOST_REQUEST not in process.plan.features and not self._state.in_progress
        if self._ui is None or outside:
            why = "no turn or command is running" if self._ui else "no one can answer"
            self._state.diagnostics.add(
                _codes.UI_UNANSWERED(
                    f"{process.name} asked {request.prompt!r} ({request.method}); {why}, so "
                    "it was answered cancelled",
                    package=process.name,
                )
            )
            return UiAnswer(cancelled=True)
        async with self._state.dialog:
            return await self._ui(process, request)

    async def answer(self, process: ExtensionProcess, request: HostRequest) -> HostResponse:
        negotiated = HOST_REQUEST in process.plan.features
        method = request.method
        if negotiated and request.negotiated_shape:
            if method == "session.entries":
                return HostResponse(id=request.id, result=self._state.session.history())
            if method == "ui.input":
                return await self._free_text(process, request)
            if method == "ui.editor":
                return await self._negotiated_editor(request)
            if method == "exec":
                return await self._exec(process, request)
        if method in UPSTREAM_METHODS:
            if not self._state.in_progress:
                return HostResponse(id=request.id, cancelled=True, error=UNAVAILABLE_REQUEST)
            return await self._methods.answer(self._state.owner_of(process), request)
        return HostResponse(id=request.id, error=f"unknown host request: {method}")

    async def _free_text(self, process: ExtensionProcess, request: HostRequest) -> HostResponse:
        """Negotiated ``ui.input {prompt}`` → ``{value, cancelled}``, asked as a
        ``ui_request`` ``input``."""
        prompt = request.arguments().get("prompt")
        asked = UiRequest(
            type="ui_request",
            id=request.id,
            method="input",
            prompt=prompt if isinstance(prompt, str) else "",
        )
        answer = await self.ask_user(process, asked)
        cancelled = answer.cancelled or not answer.answer
        return HostResponse(
            id=request.id,
            result={"value": None if cancelled else answer.answer, "cancelled": cancelled},
        )

    async def _negotiated_editor(self, request: HostRequest) -> HostResponse:
        """Negotiated ``ui.editor {prompt, prefill}`` → ``{value, cancelled}``: the same
        editor as upstream's ``ui.editor``, answered in the older shape."""
        arguments = request.arguments()
        title, text = arguments.get("prompt"), arguments.get("prefill")
        edit = self._state.agent.edit_text
        if edit is None:
            self._state.diagnostics.add(
                _codes.UI_UNANSWERED(f"ui.editor {title!r}: {UNAVAILABLE}; answered cancelled")
            )
            return HostResponse(id=request.id, result={"value": None, "cancelled": True})
        async with self._state.dialog:
            done = await edit(
                EditRequest(
                    title if isinstance(title, str) else "", text if isinstance(text, str) else ""
                )
            )
        return HostResponse(
            id=request.id, result={"value": done.text, "cancelled": done.text is None}
        )

    async def _exec(self, process: ExtensionProcess, request: HostRequest) -> HostResponse:
        """``exec`` under the host's shell policy: no shell, the allow-listed environment,
        refused in plan mode or when ``exec_policy`` says no; output capped."""
        state = self._state
        params = request.arguments()
        command, args = params.get("command"), params.get("args") or []
        if not isinstance(command, str) or not isinstance(args, list):
            return HostResponse(id=request.id, error="exec: command must be a string, args strings")
        if not all(isinstance(a, str) for a in args):
            return HostResponse(id=request.id, error="exec: command must be a string, args strings")
        if state.plan:
            return HostResponse(id=request.id, error="exec: not available in plan mode")
        owner = state.owner_of(process)
        if state.exec_policy is not None and not state.exec_policy(owner, command, list(args)):
            return HostResponse(id=request.id, error=f"exec: {command} refused by the host policy")
        cwd = params.get("cwd") if isinstance(params.get("cwd"), str) else str(state.workspace)
        timeout = params.get("timeout")
        seconds = timeout / 1000 if isinstance(timeout, int | float) and timeout > 0 else None
        cap = state.config.tool_output_cap
        try:
            # Under the asking runtime's own sandbox: exec grants it nothing it lacks.
            done = await run_child(
                [command, *args], policy=process.plan.sandbox,
                require_sandbox=state.config.require_sandbox, stdin=subprocess.DEVNULL,
                cwd=cwd, env={**state.env, **trace_environment(params.get("trace"))},
                time_limit=seconds, cap=cap,
            )  # fmt: skip
        except (OSError, SandboxUnavailable) as error:
            return HostResponse(id=request.id, error=f"exec: {error}")
        if done.timed_out:
            return HostResponse(
                id=request.id,
                result={"stdout": "", "stderr": "", "code": 1, "killed": True, "truncated": False},
            )
        out = done.stdout.decode("utf-8", "replace")
        err = done.stderr.decode("utf-8", "replace")
        return HostResponse(
            id=request.id,
            result={"stdout": out, "stderr": err[: max(0, cap - len(out))],
                    "code": done.returncode, "killed": False,
                    "truncated": done.stdout_cut or done.stderr_cut or len(out) + len(err) > cap},
        )  # fmt: skip


def trace_environment(trace: object) -> dict[str, str]:
    """``exec``'s ``trace`` (negotiated ``trace.context``: the W3C trace context of the
    request the command runs for) as ``TRACEPARENT`` / ``TRACESTATE``, the variables a
    traced program reads its parent from; {} when absent or malformed."""
    return {key.upper(): value for key, value in telemetry.checked_trace(trace).items()}


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
