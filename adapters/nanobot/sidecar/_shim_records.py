"""The plain records nanobot hands to hooks and command handlers.

Upstream they are (slotted) dataclasses; these are small hand-written equivalents with the
same field names, positional order and defaults, because importing ``dataclasses`` costs
the sidecar ≈10 ms of its start budget before ``register``.
"""

from __future__ import annotations

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar


__all__ = [
    "AgentHookContext",
    "AgentRunHookContext",
    "AgentTurnHookContext",
    "CommandContext",
    "InboundMessage",
    "OutboundMessage",
    "ToolCallRequest",
]

_REQUIRED = object()


def _list() -> list[Any]:
    return []


def _dict() -> dict[str, Any]:
    return {}


class _Record:
    """Fields in order, each with a default value, a default factory or ``_REQUIRED``."""

    _fields: ClassVar[tuple[tuple[str, Any], ...]] = ()
    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(self._fields):
            raise TypeError(f"{type(self).__name__} takes at most {len(self._fields)} arguments")
        for index, (name, default) in enumerate(self._fields):
            if index < len(args):
                value = args[index]
            elif name in kwargs:
                value = kwargs.pop(name)
            elif default is _REQUIRED:
                raise TypeError(f"{type(self).__name__} missing required argument {name!r}")
            else:
                value = default() if callable(default) else default
            setattr(self, name, value)
        if kwargs:
            raise TypeError(f"{type(self).__name__} got unexpected arguments {sorted(kwargs)}")

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name, _ in self._fields)
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n, _ in self._fields)

    __hash__ = None  # type: ignore[assignment]  # mutable, like a dataclass


def _record(name: str, fields: tuple[tuple[str, Any], ...], doc: str) -> type[_Record]:
    namespace = {"_fields": fields, "__slots__": tuple(f for f, _ in fields), "__doc__": doc}
    return type(name, (_Record,), namespace)


ToolCallRequest = _record(
    "ToolCallRequest",
    (("id", _REQUIRED), ("name", _REQUIRED), ("arguments", _dict)),
    "One tool call the model asked for.",
)
AgentHookContext = _record(
    "AgentHookContext",
    (
        ("iteration", 0),
        ("messages", _list),
        ("response", None),
        ("usage", _dict),
        ("tool_calls", _list),
        ("tool_results", _list),
        ("tool_events", _list),
        ("streamed_content", False),
        ("streamed_reasoning", False),
        ("final_content", None),
        ("stop_reason", None),
        ("error", None),
        ("session_key", None),
    ),
    "Per-iteration state (the gateway drives one iteration per turn).",
)
AgentRunHookContext = _record(
    "AgentRunHookContext",
    (
        ("messages", _list),
        ("final_content", None),
        ("tools_used", _list),
        ("usage", _dict),
        ("stop_reason", None),
        ("error", None),
        ("tool_events", _list),
        ("had_injections", False),
        ("exception", None),
    ),
    "Per-run state: one run is one gateway turn.",
)
AgentTurnHookContext = _record(
    "AgentTurnHookContext",
    (
        ("on_progress", None),
        ("workspace", None),
        ("channel", "gateway"),
        ("chat_id", ""),
        ("message_id", None),
        ("session_key", ""),
        ("metadata", _dict),
        ("ephemeral", False),
        ("attributes", _dict),
        ("events", None),
    ),
    "What a hook factory receives at the start of each turn.",
)
OutboundMessage = _record(
    "OutboundMessage",
    (
        ("channel", _REQUIRED),
        ("chat_id", _REQUIRED),
        ("content", _REQUIRED),
        ("reply_to", None),
        ("media", _list),
        ("metadata", _dict),
    ),
    "A reply; a command handler's ``content`` becomes the command's message.",
)
CommandContext = _record(
    "CommandContext",
    (
        ("msg", _REQUIRED),
        ("session", None),
        ("key", ""),
        ("raw", ""),
        ("args", ""),
        ("loop", None),
        ("runtime", None),
        ("is_user_turn", False),
        ("turn_scopes", _list),
    ),
    "What a command handler receives: ``raw`` text, ``args`` after a prefix, the message.",
)


class InboundMessage(_Record):
    """A message from a channel; for the gateway the channel is ``gateway``."""

    _fields = (
        ("channel", _REQUIRED),
        ("sender_id", _REQUIRED),
        ("chat_id", _REQUIRED),
        ("content", _REQUIRED),
        ("media", _list),
        ("metadata", _dict),
        ("session_key_override", None),
    )
    __slots__ = tuple(name for name, _ in _fields)

    @property
    def session_key(self) -> str:
        return self.session_key_override or f"{self.channel}:{self.chat_id}"
