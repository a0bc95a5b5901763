"""Answering what an extension asks while it runs: a ``ui_request`` (a question for the
user) or a ``host_request``. Every pending deadline pauses while either is answered, and an
answer that can no longer be sent (the process is gone) is dropped."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable

from gateway.base import Diagnostics
from gateway.wire import _codes
from gateway.wire._errors import ExtensionError, UiAnswer
from gateway.wire._pause import DeadlinePause
from gateway.wire.protocol import HostMessage, HostRequest, HostResponse, UiRequest, UiResponse

__all__ = ["CONFIRM_OPTIONS", "UI_METHODS", "Answers", "ui_response"]

UI_METHODS = frozenset({"question", "confirm", "input", "password"})
"""The ``ui_request`` methods a host answers (current nimlet; the older document has only
``question``)."""
CONFIRM_OPTIONS = ["Yes", "No"]
"""What a ``confirm`` is shown with (nimlet asks it as a question with these options)."""


class Answers:
    """Answers one process's questions through the host's handlers; ``write`` sends the
    reply to it."""

    def __init__(
        self,
        name: str,
        diagnostics: Diagnostics,
        pause: DeadlinePause,
        ask_user: Callable[[UiRequest], Awaitable[UiAnswer]],
        serve_host: Callable[[HostRequest], Awaitable[HostResponse]],
        write: Callable[[HostMessage], Awaitable[None]],
    ) -> None:
        self._name = name
        self._diagnostics = diagnostics
        self._pause = pause
        self._ask_user = ask_user
        self._serve_host = serve_host
        self._write = write

    async def ui(self, request: UiRequest) -> None:
        """question / confirm / input / password; anything else is answered cancelled
        (upstream leaves it unanswered, which would hang the extension)."""
        if request.method not in UI_METHODS:
            self._diagnostics.add(
                _codes.UI_UNSUPPORTED_METHOD(
                    f"extension {self._name}: ui_request method {request.method!r} is not "
                    "supported; answered cancelled",
                    package=self._name,
                )
            )
            answer = UiAnswer(cancelled=True)
        else:
            if request.method == "confirm":
                request = request.model_copy(update={"options": list(CONFIRM_OPTIONS)})
            with self._pause.hold():
                answer = await self._ask_user(request)
        with contextlib.suppress(ExtensionError):
            await self._write(ui_response(request, answer))

    async def host(self, request: HostRequest) -> None:
        """Time spent here does not count against any pending deadline, as for a user
        question."""
        with self._pause.hold():
            try:
                reply = await self._serve_host(request)
            except Exception as error:  # a host bug must not kill the reader
                reply = HostResponse(id=request.id, error=f"{request.method}: {error}")
        with contextlib.suppress(ExtensionError):
            await self._write(reply)


def ui_response(request: UiRequest, answer: UiAnswer) -> UiResponse:
    """The reply to ``request``: an empty answer is cancelled (nimlet's rule); ``confirm``
    answers ``confirmed`` and no ``answer``."""
    if request.method == "confirm":
        if answer.confirmed is not None:
            confirmed, cancelled = answer.confirmed, answer.cancelled
        else:
            cancelled = answer.cancelled or not answer.answer
            confirmed = answer.answer.strip().lower() in ("yes", "y")
        return UiResponse(
            id=request.id, answer=None, confirmed=confirmed and not cancelled, cancelled=cancelled
        )
    cancelled = answer.cancelled or not answer.answer
    return UiResponse(id=request.id, answer="" if cancelled else answer.answer, cancelled=cancelled)
