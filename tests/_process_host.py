"""A ``ProcessHost`` for tests that drive an ``ExtensionProcess`` without a gateway: it
hands out ids, keeps diagnostics, records effects, tool updates and exits, answers
questions through ``ui`` (default: cancelled) and host requests as unknown."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from gateway.base import Diagnostics
from gateway.wire import (
    DeadlinePause,
    ExtensionProcess,
    HostRequest,
    HostResponse,
    UiAnswer,
    UiRequest,
)

__all__ = ["StandaloneHost"]


async def _cancelled(process: ExtensionProcess, request: UiRequest) -> UiAnswer:
    return UiAnswer(cancelled=True)


@dataclass
class StandaloneHost:
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    pause: DeadlinePause = field(default_factory=DeadlinePause)
    ui: Callable[[ExtensionProcess, UiRequest], Awaitable[UiAnswer]] = _cancelled
    effects: list[Any] = field(default_factory=list)
    tool_updates: list[Any] = field(default_factory=list)
    exited: list[ExtensionProcess] = field(default_factory=list)
    _ids: Any = field(default_factory=lambda: itertools.count(1))

    def next_id(self) -> str:
        return str(next(self._ids))

    def on_effects(self, process: ExtensionProcess, message: Any) -> None:
        self.effects.append(message)

    def on_tool_update(self, process: ExtensionProcess, update: Any) -> None:
        self.tool_updates.append(update)

    async def ask_user(self, process: ExtensionProcess, request: UiRequest) -> UiAnswer:
        return await self.ui(process, request)

    async def answer(self, process: ExtensionProcess, request: HostRequest) -> HostResponse:
        return HostResponse(id=request.id, error=f"unknown host request: {request.method}")

    def on_exit(self, process: ExtensionProcess) -> None:
        self.exited.append(process)
