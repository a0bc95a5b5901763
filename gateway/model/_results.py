"""What the embedding API returns, and the errors it raises for unknown names."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from gateway.base import Diagnostic, GatewayError


class UnknownTool(GatewayError, LookupError):
    pass


class UnknownCommand(GatewayError, LookupError):
    pass


@dataclass(frozen=True, slots=True)
class ToolResult:
    content: str
    is_error: bool
    blocked: bool = False
    arguments: dict[str, Any] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    parts: list[dict[str, Any]] | None = None
    """Structured content (``{type: "text", text}``, ``{type: "image", mime_type, data}``
    or ``{…, path}``): a current nimlet tool's ``content`` array, or a runtime's negotiated
    ``tool.parts``; None for string content. A tool_result hook that replaces the output
    keeps nimlet's images beside the new text, and drops a runtime's parts."""
    details: Any = None
    progress: list[dict[str, Any]] = field(default_factory=list)
    """Progress received while the call ran, in order: ``tool_update`` output
    (``{id, text, delta: true}``) and ``tool.progress`` snapshots (Pi's ``onUpdate``)."""
    error_code: str | None = None
    """Why the call failed, in nimlet's codes where it has one: ``approval_denied``
    (a denied permission or a blocking hook), ``tool_unavailable`` (plan mode),
    ``invalid_extension_result`` (content the host cannot read); and the gateway's own:
    ``policy_denied`` (an adopted policy rule), ``indeterminate`` (an identical
    at-most-once call was interrupted)."""
    policy: dict[str, Any] | None = None
    """The policy decision when an adopted rule decided the call: ``{decision, rule,
    reason}``; None when no adopted bundle applies."""
    structured: Any = None
    """The tool's structured result (negotiated ``tool.output``; Pi's ``structuredContent``),
    matching its ``ToolEntry.output_schema``; None without one, or when a ``tool_result``
    hook replaced the output (the text is what counts then)."""

    def to_dict(self) -> dict[str, Any]:
        found = {
            "content": self.content,
            "is_error": self.is_error,
            "blocked": self.blocked,
            "arguments": self.arguments,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }
        if self.parts is not None:
            found["parts"] = self.parts
        if self.details is not None:
            found["details"] = self.details
        if self.progress:
            found["progress"] = self.progress
        if self.error_code is not None:
            found["error_code"] = self.error_code
        if self.policy is not None:
            found["policy"] = self.policy
        if self.structured is not None:
            found["structured"] = self.structured
        return found


CompactionReason = Literal["manual", "threshold", "overflow"]
"""Why the embedding agent compacts (``Gateway.compact``): asked for, the context grew past its
limit, or a request overflowed it."""


@dataclass(frozen=True, slots=True)
class CompactionResult:
    did_compact: bool
    summary: str
    first_kept_index: int
    message: str
    instruction: str
    custom: bool


@dataclass(frozen=True, slots=True)
class InputResult:
    """What ``Gateway.submit_input`` decided about a user message."""

    action: str
    """``continue`` (unchanged), ``transform`` (use ``text``) or ``handled`` (an extension
    dealt with it: do not run the agent)."""
    text: str
    source: str
    handled_by: str | None = None
    """The owner that handled it (``action == "handled"``)."""


@dataclass(frozen=True, slots=True)
class AgentStartResult:
    """What ``Gateway.before_agent_start`` folded from its subscribers."""

    system_prompt: str
    """The system prompt for this run (replaced and chained by subscribers)."""
    messages: list[dict[str, Any]] = field(default_factory=list)
    """Messages to inject before the prompt, from every subscriber, in order."""
    prompt: str | None = None
    """The prompt for this run when a subscriber rewrote it (chained; e.g. OpenClaw's
    prependContext / appendContext); None when unchanged."""


Summarizer = Callable[[str, list[dict[str, Any]]], Awaitable[tuple[str, int]]]
