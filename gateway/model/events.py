"""The event catalogue and dispatch with each event's result rule.

Every event is declared up front with the fields a reply may contribute:
- ``gate``: any ``allow: false`` blocks; reasons are joined with ``; ``.
- ``chain``: reply fields that replace the same payload field; each subscriber sees the
  previous subscriber's result.
- ``append``: reply fields appended to the payload field with a newline.
- ``replace``: reply fields where a contribution replaces the default (the last one wins,
  since mutations chain through one payload).
- ``collect``: reply fields gathered from every subscriber, in order, into
  ``EventOutcome.collected`` (a list value contributes its items, anything else itself).
- ``stop_when``: ``(field, value)``; a reply whose field equals the value stops the event:
  later subscribers are not asked (``EventOutcome.stopped_by`` names who stopped it).
- ``deny_discards``: a reply with ``allow: false`` contributes nothing else (nimlet's
  ``context``: it only withdraws that subscriber's own additions).
- ``acts_on_tool``: chain fields whose change makes a tool act otherwise or say otherwise
  (``tool_call``'s arguments, ``tool_result``'s output): a reply changing one is first put
  to the dispatcher's ``rewrite`` check, which refuses it for a hook that may not act on
  that tool (``hooks.rewrite``, ``gateway.host._rewrites``).

A chained value replaces the payload field only when it has the same JSON kind as the value
it replaces (text for text, list for list, …); anything else is a failed contribution.

Subscribers are asked in startup order, and every one is asked even after a block, so all
reasons are collected (only ``stop_when`` ends an event early). An event whose replies can
change what a later subscriber is sent or whether it is asked — one with ``chain``,
``append`` or ``stop_when`` (``tool_call``, ``tool_result``, ``input``, …) — asks them one
after another. Any other (the observing ones: ``turn_start``, ``turn_end``,
``session_start``, ``session_end``, ``session_compact``, ``message_received``,
``message_sent``; ``context``, whose subscribers all see the same payload) is delivered to
all its subscribers at once, since none of them can see another's reply; the replies are
then folded in startup order, so the outcome — ``gate`` reasons, ``collect``ed lists,
``replace``d fields, diagnostics, ``asked``/``failed`` — is the one asking them in turn
would give, whatever order they answer in. Failures are fail-open: a warning, and the event
goes on without that contribution; a subscriber that fails or is slow does not stop the
others being asked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio

from gateway.base import HOOK_EVENTS, Diagnostic, Diagnostics
from gateway.model import _codes
from gateway.model.registry import HookEntry
from gateway.wire import ExtensionError

__all__ = [
    "CANONICAL_EVENTS",
    "DEFAULT_BLOCK_REASON",
    "EXTENDED_ALIASES",
    "EXTENDED_EVENTS",
    "NIMLET_EVENTS",
    "PLAN_EVENTS",
    "EventCatalogue",
    "EventOutcome",
    "EventSpec",
    "RewriteCheck",
    "dispatch",
]

DEFAULT_BLOCK_REASON = "blocked by extension"


@dataclass(frozen=True, slots=True)
class EventSpec:
    name: str
    description: str
    gate: bool = False
    chain: tuple[str, ...] = ()
    append: tuple[str, ...] = ()
    replace: tuple[str, ...] = ()
    collect: tuple[str, ...] = ()
    stop_when: tuple[str, Any] | None = None
    deny_discards: bool = False
    acts_on_tool: tuple[str, ...] = ()


RewriteCheck = Callable[[HookEntry, list[str]], Diagnostic | None]
"""Asked before a reply changes ``acts_on_tool`` fields (their names given): None lets the
change through, a diagnostic refuses all of it (reported; the event goes on without it)."""


class EventCatalogue:
    """The canonical lifecycle events. Later ecosystems add theirs with ``add``."""

    def __init__(self, specs: list[EventSpec]) -> None:
        self._specs = {spec.name: spec for spec in specs}

    def add(self, spec: EventSpec) -> None:
        if spec.name in self._specs and self._specs[spec.name] != spec:
            raise ValueError(f"event {spec.name!r} is already declared differently")
        self._specs[spec.name] = spec

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __getitem__(self, name: str) -> EventSpec:
        return self._specs[name]

    def names(self) -> list[str]:
        return list(self._specs)

    def specs(self) -> list[EventSpec]:
        return list(self._specs.values())


_NIMLET_SPECS = {
    spec.name: spec
    for spec in (
        EventSpec(
            "tool_call",
            "Before a tool executes",
            gate=True,
            chain=("arguments",),
            acts_on_tool=("arguments",),
        ),
        EventSpec(
            "tool_result",
            "After a tool returns, before the result is saved",
            chain=("output", "is_error"),
            acts_on_tool=("output", "is_error"),
        ),
        EventSpec("turn_start", "At the start of each agent turn"),
        EventSpec("turn_end", "When a turn finishes or is interrupted"),
        EventSpec(
            "context",
            "Before each model request, with its system blocks and messages; replies add "
            "to that request only",
            collect=("system", "messages"),
            deny_discards=True,
        ),
        EventSpec("session_start", "At startup, and after new, resume or fork"),
        EventSpec("session_end", "Before switching sessions, and when the host exits"),
        EventSpec(
            "session_before_compact",
            "Before compaction runs",
            gate=True,
            append=("instruction",),
            replace=("compaction",),
        ),
        EventSpec("session_compact", "After compaction finishes"),
    )
}

NIMLET_EVENTS = EventCatalogue([_NIMLET_SPECS[name] for name in HOOK_EVENTS])
"""Nimlet's nine events (``gateway.base.names.HOOK_EVENTS``, in that order): what a plain nimlet
extension may subscribe to. ``context`` came with current nimlet; an extension written for
the older document never subscribes to it."""

EXTENDED_EVENTS = EventCatalogue(
    [
        EventSpec(
            "input",
            "A user message arrived, before the agent sees it",
            chain=("text",),
            collect=("action",),
            stop_when=("action", "handled"),
        ),
        EventSpec(
            "before_agent_start",
            "Before the agent runs on a prompt",
            chain=("system_prompt", "prompt"),
            collect=("messages",),
        ),
        EventSpec(
            "context_transform",
            "Before each model call, with the messages it will get; replies replace them",
            chain=("messages",),
        ),
        EventSpec("message_received", "A user message was received (observe)"),
        EventSpec(
            "message_sending",
            "An assistant reply is about to be delivered",
            gate=True,
            chain=("text",),
        ),
        EventSpec("message_sent", "An assistant reply was delivered (observe)"),
    ]
)
"""Events beyond nimlet's; only processes offered ``events.extended``
(``gateway.wire.features.EVENTS_EXTENDED``) subscribe. The ``message_*`` events are the ones Pi
(``message_start`` / ``message_end``) and OpenClaw (``message_received`` /
``message_sending`` / ``message_sent``) both have."""

EXTENDED_ALIASES: dict[str, str] = {"context": "context_transform"}
"""Names a process offered ``events.extended`` subscribes to that mean another event than
nimlet's of the same name: such a runtime's ``context`` (Pi's) replaces the messages,
chained, where nimlet's ``context`` only adds to them. The event is sent to the runtime
under the name it subscribed with."""

PLAN_EVENTS = frozenset({"context"})
"""What plan mode dispatches: nimlet's ``context``, nothing else (current nimlet; the runtimes'
events, Pi's ``context`` among them, stay off as before)."""

CANONICAL_EVENTS = EventCatalogue([*NIMLET_EVENTS.specs(), *EXTENDED_EVENTS.specs()])
"""The catalogue the host dispatches: nimlet's eight and the extended events."""


@dataclass(slots=True)
class EventOutcome:
    event: str
    payload: dict[str, Any]
    allowed: bool = True
    reasons: list[str] = field(default_factory=list)
    replaced: dict[str, Any] = field(default_factory=dict)
    collected: dict[str, list[Any]] = field(default_factory=dict)
    stopped_by: str | None = None
    asked: int = 0
    failed: int = 0

    @property
    def stopped(self) -> bool:
        return self.stopped_by is not None

    @property
    def reason(self) -> str:
        return "; ".join(self.reasons)


def _field(reply: Any, name: str) -> Any:
    if isinstance(reply, Mapping):
        return reply.get(name)
    return getattr(reply, name, None)


def _kind(value: Any) -> type:
    """The JSON kind of a value (bool before int: True is an int in Python)."""
    for kind in (bool, str, int | float, Mapping, list):
        if isinstance(value, kind):
            return kind  # type: ignore[return-value]
    return type(value)


def _fits(value: Any, current: Any) -> bool:
    return current is None or _kind(value) == _kind(current)


def _refused(
    spec: EventSpec,
    reply: Any,
    payload: dict[str, Any],
    hook: HookEntry,
    rewrite: RewriteCheck | None,
) -> Diagnostic | None:
    """Why ``hook``'s reply may not change the fields that act on a tool, or None (also
    when it changes none of them: echoing the arguments back is no rewrite)."""
    if rewrite is None or not spec.acts_on_tool:
        return None
    changed = [
        name
        for name in spec.acts_on_tool
        if (value := _field(reply, name)) is not None and value != payload.get(name)
    ]
    return rewrite(hook, changed) if changed else None


def _concurrent(spec: EventSpec) -> bool:
    """No reply can change what a later subscriber is sent, nor whether it is asked."""
    return not spec.chain and not spec.append and spec.stop_when is None


@dataclass(frozen=True, slots=True)
class _Raised:
    """A subscriber's handler raised something other than ``ExtensionError`` (a bug): raised
    again at that subscriber's place in the fold, as asking in turn would have."""

    error: Exception


async def _ask(spec: EventSpec, hook: HookEntry, payload: dict[str, Any]) -> Any:
    """One subscriber's reply, or the ``ExtensionError`` it failed with."""
    try:
        return await hook.handler(spec.name, payload)
    except ExtensionError as error:
        return error


async def _ask_all(
    spec: EventSpec, payload: dict[str, Any], subscribers: list[HookEntry]
) -> list[Any]:
    """Every subscriber asked at once, each with its own copy of ``payload``; the replies in
    subscriber order (a failure in its place: it cancels no one else)."""
    replies: list[Any] = [None] * len(subscribers)

    async def one(index: int, hook: HookEntry) -> None:
        try:
            replies[index] = await _ask(spec, hook, dict(payload))
        except Exception as error:
            replies[index] = _Raised(error)

    async with anyio.create_task_group() as group:
        for index, hook in enumerate(subscribers):
            group.start_soon(one, index, hook)
    return replies


async def dispatch(
    spec: EventSpec,
    payload: dict[str, Any],
    subscribers: list[HookEntry],
    diagnostics: Diagnostics,
    rewrite: RewriteCheck | None = None,
) -> EventOutcome:
    """Ask the subscribers (in turn, or all at once when no reply can change what another
    is sent: the module's rule) and fold the replies by the event's rule in subscriber
    order (``rewrite``: whether a reply may change the fields that act on a tool)."""
    outcome = EventOutcome(spec.name, dict(payload))
    if _concurrent(spec) and len(subscribers) > 1:
        replies = await _ask_all(spec, outcome.payload, subscribers)
        for hook, reply in zip(subscribers, replies, strict=True):
            if isinstance(reply, _Raised):
                raise reply.error
            _fold(spec, outcome, hook, reply, diagnostics, rewrite)
        return outcome
    for hook in subscribers:
        reply = await _ask(spec, hook, dict(outcome.payload))
        if _fold(spec, outcome, hook, reply, diagnostics, rewrite):
            break
    return outcome


def _fold(
    spec: EventSpec,
    outcome: EventOutcome,
    hook: HookEntry,
    reply: Any,
    diagnostics: Diagnostics,
    rewrite: RewriteCheck | None,
) -> bool:
    """One subscriber's reply (or failure) folded into ``outcome``; True when it stops the
    event."""
    outcome.asked += 1
    if isinstance(reply, ExtensionError):
        outcome.failed += 1
        diagnostics.add(
            _codes.HOOK_FAILED(
                f"{hook.owner}: {spec.name} hook failed: {reply}", package=hook.owner
            )
        )
        return False
    if spec.gate and _field(reply, "allow") is False:
        outcome.allowed = False
        outcome.reasons.append(_field(reply, "reason") or DEFAULT_BLOCK_REASON)
    if spec.deny_discards and _field(reply, "allow") is False:
        return False
    refused = _refused(spec, reply, outcome.payload, hook, rewrite)
    if refused is not None:
        diagnostics.add(refused)
    for name in spec.chain:
        value = _field(reply, name)
        if value is None or (refused is not None and name in spec.acts_on_tool):
            continue
        if _fits(value, outcome.payload.get(name)):
            outcome.payload[name] = value
        else:
            diagnostics.add(
                _codes.HOOK_FAILED(
                    f"{hook.owner}: {spec.name} reply field {name!r} has the wrong type "
                    f"({type(value).__name__}); ignored",
                    package=hook.owner,
                )
            )
    for name in spec.append:
        value = _field(reply, name)
        if value:
            existing = outcome.payload.get(name) or ""
            outcome.payload[name] = f"{existing}\n{value}" if existing else value
    for name in spec.replace:
        value = _field(reply, name)
        if value is not None:
            outcome.replaced[name] = value
    for name in spec.collect:
        value = _field(reply, name)
        if value is not None:
            gathered = outcome.collected.setdefault(name, [])
            gathered.extend(value if isinstance(value, list) else [value])
    if spec.stop_when is not None:
        name, value = spec.stop_when
        if _field(reply, name) == value:
            outcome.stopped_by = hook.owner
            return True
    return False
