"""What a request to an extension can fail with, a line that is not a protocol message,
and the answer to a user question.

Apart from ``process`` so the reader half of a process can use them too.
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.base import GatewayError

__all__ = [
    "ExtensionError",
    "ExtensionExited",
    "ExtensionStartError",
    "ExtensionTimeout",
    "MessageError",
    "RegisterInvalid",
    "SandboxRefused",
    "UiAnswer",
]


class MessageError(GatewayError, ValueError):
    """A line that is JSON but not a valid protocol message. ``str()`` names the problem."""


class ExtensionError(GatewayError):
    """A request to an extension failed; ``str()`` is the user-facing reason."""


class ExtensionTimeout(ExtensionError):
    def __init__(self) -> None:
        super().__init__("extension response timed out")


class ExtensionExited(ExtensionError):
    pass


class ExtensionStartError(ExtensionError):
    """Startup failed before a valid register (missing program, crash, timeout)."""


class RegisterInvalid(ExtensionStartError):
    """The first line arrived but was not a valid register."""


class SandboxRefused(ExtensionStartError):
    """Not started: the sandbox is required and this kernel cannot confine it fully."""


@dataclass(frozen=True, slots=True)
class UiAnswer:
    """The user's answer to a ``ui_request``. ``answer`` is the picked option or the text
    typed (a password too: never log it); an empty answer counts as cancelled, as in
    nimlet. For ``confirm`` set ``confirmed`` (or answer ``Yes`` / ``No``, the options the
    question is shown with)."""

    answer: str = ""
    cancelled: bool = False
    confirmed: bool | None = None

    def __repr__(self) -> str:
        # The answer may be a password: keep it out of logs and tracebacks.
        shown = "***" if self.answer else "''"
        return f"UiAnswer(answer={shown}, cancelled={self.cancelled}, confirmed={self.confirmed})"
