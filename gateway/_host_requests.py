"""Answering what a running extension asks the host: a user question (``ui_request``) and,
for runtimes offered ``host.request``, the session transcript, free-text answers and
``exec`` under the host's policy."""

from __future__ import annotations

import anyio

from . import _codes
from ._state import GatewayState
from .process import ExtensionProcess, UiAnswer, UiHandler
from .protocol import HostRequest, HostResponse, UiRequest

__all__ = ["HostRequestHandler"]


class HostRequestHandler:
    """Owns the UI handler the embedding agent gave (None: no one can answer)."""

    def __init__(self, state: GatewayState, ui: UiHandler | None) -> None:
        self._state = state
        self._ui = ui

    async def ask_user(self, process: ExtensionProcess, request: UiRequest) -> UiAnswer:
        if self._ui is None:
            self._state.diagnostics.add(
                _codes.UI_UNANSWERED(
                    f"{process.name} asked {request.prompt!r}; no one can answer, so it was "
                    "answered cancelled",
                    package=process.name,
                )
            )
            return UiAnswer(cancelled=True)
        return await self._ui(process, request)

    async def answer(self, process: ExtensionProcess, request: HostRequest) -> HostResponse:
        """``session.entries`` → the session transcript; ``ui.input`` / ``ui.editor`` → a
        free-text answer from the UI handler (method ``input``); ``exec`` → a command."""
        if request.method == "session.entries":
            return HostResponse(id=request.id, result=list(self._state.session.entries))
        if request.method in ("ui.input", "ui.editor"):
            prompt = request.params.get("prompt")
            asked = UiRequest(
                type="ui_request",
                id=request.id,
                method="input",
                prompt=prompt if isinstance(prompt, str) else "",
            )
            answer = await self.ask_user(process, asked)
            return HostResponse(
                id=request.id,
                result={"value": None if answer.cancelled else answer.answer,
                        "cancelled": answer.cancelled},
            )  # fmt: skip
        if request.method == "exec":
            return await self._exec(process, request)
        return HostResponse(id=request.id, error=f"unknown host_request method {request.method!r}")

    async def _exec(self, process: ExtensionProcess, request: HostRequest) -> HostResponse:
        """``exec`` under the host's shell policy: no shell, the allow-listed environment,
        refused in plan mode or when ``exec_policy`` says no; output capped."""
        state = self._state
        params = request.params
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
            with anyio.move_on_after(seconds) as scope:
                done = await anyio.run_process(
                    [command, *args], cwd=cwd, env=state.env, check=False,
                    start_new_session=True,
                )  # fmt: skip
        except OSError as error:
            return HostResponse(id=request.id, error=f"exec: {error}")
        if scope.cancelled_caught:
            return HostResponse(
                id=request.id,
                result={"stdout": "", "stderr": "", "code": 1, "killed": True, "truncated": False},
            )
        out = done.stdout.decode("utf-8", "replace")
        err = done.stderr.decode("utf-8", "replace")
        return HostResponse(
            id=request.id,
            result={"stdout": out[:cap], "stderr": err[: max(0, cap - len(out))],
                    "code": done.returncode, "killed": False,
                    "truncated": len(out) + len(err) > cap},
        )  # fmt: skip
