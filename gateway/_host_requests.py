"""Answering a runtime's ``host_request`` (negotiated ``host.request``): the session
transcript, free-text questions, and ``exec`` under the host's policy. A part of
``Gateway``."""

from __future__ import annotations

import anyio

from .process import ExtensionProcess
from .protocol import HostRequest, HostResponse, UiRequest


class _HostRequests:
    """``host_request`` handling; mixed into ``Gateway``."""

    async def _host_request(self, process: ExtensionProcess, request: HostRequest) -> HostResponse:
        """``host.request``: ``session.entries`` → the session transcript; ``ui.input`` /
        ``ui.editor`` → a free-text answer from the UI handler (method ``input``)."""
        if request.method == "session.entries":
            return HostResponse(id=request.id, result=list(self.session.entries))
        if request.method in ("ui.input", "ui.editor"):
            prompt = request.params.get("prompt")
            asked = UiRequest(
                type="ui_request",
                id=request.id,
                method="input",
                prompt=prompt if isinstance(prompt, str) else "",
            )
            answer = await self._ask_user(process, asked)
            return HostResponse(
                id=request.id,
                result={"value": None if answer.cancelled else answer.answer,
                        "cancelled": answer.cancelled},
            )  # fmt: skip
        if request.method == "exec":
            return await self._host_exec(process, request)
        return HostResponse(id=request.id, error=f"unknown host_request method {request.method!r}")

    async def _host_exec(self, process: ExtensionProcess, request: HostRequest) -> HostResponse:
        """``exec`` under the host's shell policy: no shell, the allow-listed environment,
        refused in plan mode or when ``exec_policy`` says no; output capped."""
        params = request.params
        command, args = params.get("command"), params.get("args") or []
        owner = self._owners.get(process, process.name)
        if not isinstance(command, str) or not all(isinstance(a, str) for a in args):
            return HostResponse(id=request.id, error="exec: command must be a string, args strings")
        if self.plan:
            return HostResponse(id=request.id, error="exec: not available in plan mode")
        if self.exec_policy is not None and not self.exec_policy(owner, command, list(args)):
            return HostResponse(id=request.id, error=f"exec: {command} refused by the host policy")
        cwd = params.get("cwd") if isinstance(params.get("cwd"), str) else str(self.workspace)
        timeout = params.get("timeout")
        seconds = timeout / 1000 if isinstance(timeout, int | float) and timeout > 0 else None
        cap = self.config.tool_output_cap
        killed = False
        try:
            with anyio.move_on_after(seconds) as scope:
                done = await anyio.run_process(
                    [command, *args], cwd=cwd, env=self.env, check=False,
                    start_new_session=True,
                )  # fmt: skip
            if scope.cancelled_caught:
                return HostResponse(
                    id=request.id,
                    result={"stdout": "", "stderr": "", "code": 1, "killed": True,
                            "truncated": False},
                )  # fmt: skip
        except OSError as error:
            return HostResponse(id=request.id, error=f"exec: {error}")
        out = done.stdout.decode("utf-8", "replace")
        err = done.stderr.decode("utf-8", "replace")
        truncated = len(out) + len(err) > cap
        return HostResponse(
            id=request.id,
            result={"stdout": out[:cap], "stderr": err[: max(0, cap - len(out))],
                    "code": done.returncode, "killed": killed, "truncated": truncated},
        )  # fmt: skip
