"""What the embedding agent gives the gateway, and what the gateway asks of it.

Current nimlet lets an extension see and use the agent around it: a command request
carries the provider, the model and the messages; ``host_request`` asks for a completion,
an editor, the context usage; a ``user_message`` is delivered into the conversation; a
tool call may first need the user's permission. The gateway runs no model and owns no
terminal, so the agent provides these through one ``AgentLink`` (``open_gateway(agent=…)``,
or ``gateway.model.agent``, whose fields may change at any time: they are read when needed).
Whatever is left out is answered as nimlet answers in a non-interactive mode.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "AgentLink",
    "Approval",
    "ApprovalHandler",
    "ApprovalRequest",
    "Completion",
    "CompletionHandler",
    "CompletionRequest",
    "EditRequest",
    "EditResult",
    "EditorHandler",
    "ModelContext",
    "UserMessage",
]


@dataclass(frozen=True, slots=True)
class CompletionRequest:
    """``host_request`` ``model.complete``: one user message, no tools, not saved."""

    prompt: str
    system_prompt: str = ""
    max_tokens: int | None = None
    """None: the agent's configured output limit."""
    owner: str = ""
    """The extension asking."""


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    model: str
    finish_reason: str = "frEndTurn"
    """nimlet reports nimgent's names: ``frUnknown``, ``frEndTurn``, ``frToolUse``,
    ``frMaxTokens``, ``frStop``, ``frStepLimit``."""


CompletionHandler = Callable[[CompletionRequest], Awaitable[Completion]]
"""Raise to answer the extension with an error (the exception's text, as nimlet passes on
the provider's message)."""


@dataclass(frozen=True, slots=True)
class EditRequest:
    """``host_request`` ``ui.editor``: ``title`` is informational, ``text`` the initial
    contents."""

    title: str
    text: str


@dataclass(frozen=True, slots=True)
class EditResult:
    text: str | None = None
    """The edited text; None: cancelled (``error`` says why)."""
    error: str = ""


EditorHandler = Callable[[EditRequest], Awaitable[EditResult]]


class Approval(enum.Enum):
    """An answer to a permission prompt (nimlet's four)."""

    ONCE = "once"
    SESSION = "session"
    """Remembered until the session changes or the extensions restart."""
    PROJECT = "project"
    """Saved in ``<workspace>/.nimlet/permissions.json`` (read only when trusted)."""
    DENY = "deny"
    """This call only: the next one asks again."""


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    tool: str
    owner: str
    key: str
    """``tool:<name>``, the key a grant is remembered under."""
    prompt: str
    """What nimlet shows: ``Allow tool: <name>``."""
    arguments: dict[str, Any] = field(default_factory=dict)


ApprovalHandler = Callable[[ApprovalRequest], Awaitable[Approval]]


@dataclass(frozen=True, slots=True)
class UserMessage:
    """A ``user_message`` side effect: text an extension delivers into the conversation."""

    content: str
    deliver_as: str
    """``steer``: before the next model request of the running turn; ``follow_up``: after
    the final answer, the same run going on; ``now``: typed input when idle (a leading
    ``/`` runs a command), a follow-up while a turn runs."""
    extension: str


@dataclass(frozen=True, slots=True)
class ModelContext:
    """What one model request gets after the ``context`` event: the system blocks and the
    messages (the agent's own, then what extensions added for this request only)."""

    system: list[str]
    messages: list[dict[str, Any]]


@dataclass(slots=True)
class AgentLink:
    """Everything optional; each field is read when it is needed."""

    provider: str = ""
    model: str = ""
    context_window: int = 0
    """Tokens the model takes (``context.usage`` ``limit``); 0: unknown."""
    max_tokens: int | None = None
    """The configured output limit (``model.complete``'s default ``max_tokens``)."""
    messages: Callable[[], list[dict[str, Any]]] | None = None
    """The effective model context in session-entry shape (``{type, role, content:
    [parts]}``); None: built from the gateway's own session."""
    complete: CompletionHandler | None = None
    """``model.complete``; None: answered with an error (no model is reachable)."""
    edit_text: EditorHandler | None = None
    """``ui.editor``; None: cancelled ("interactive editor is unavailable"), and command
    requests say ``mode: non_interactive``. ``gateway.host.editor.terminal_editor`` runs
    ``$VISUAL`` / ``$EDITOR`` on the terminal."""
    approve: ApprovalHandler | None = None
    """Permission prompts; None: calls run without asking (nimlet's non-interactive rule)."""
    approve_policy: ApprovalHandler | None = None
    """Approvals an adopted policy rule requires (``require_approval``; the request's
    ``key`` is ``policy:<rule>``); None: ``approve`` is asked; neither: the call is
    refused, since no one can answer."""
    submit_input: Callable[[UserMessage], None] | None = None
    """A ``now`` user message while no turn runs: submit it as typed input. None: it waits
    with the follow-ups."""
    summarizer: Callable[[str, list[dict[str, Any]]], Awaitable[tuple[str, int]]] | None = None
    """The built-in summary for a ``compact`` session action (``Gateway.compact``)."""
    yolo: bool = False
    """Skip permission prompts (nimlet's ``/yolo``)."""
