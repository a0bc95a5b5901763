"""The nimlet protocol's fixed vocabulary, in one place: its version, its nine events,
tool capabilities and the built-in tool names; and the entry point group the gateway
reaches its adapters through.

This module imports nothing, so the runtimes the gateway starts (the nanobot sidecar
counts every millisecond of its start) use these names instead of repeating them.
"""

from __future__ import annotations

__all__ = [
    "ADAPTERS_ENTRY_POINT",
    "BUILTIN_TOOL_NAMES",
    "CAPABILITIES",
    "CONTEXT_EVENT",
    "DEFAULT_CAPABILITIES",
    "HOOK_EVENTS",
    "PLAN_CAPABILITIES",
    "PROTOCOL_VERSION",
    "READ_ONLY_CAPABILITIES",
]

PROTOCOL_VERSION = 1

ADAPTERS_ENTRY_POINT = "extension_gateway.adapters"
"""The entry point group that names the adapters (pyproject.toml): the gateway reaches
them, and the codes they declare, through it and never by importing them."""

HOOK_EVENTS: tuple[str, ...] = (
    "tool_call",
    "tool_result",
    "turn_start",
    "turn_end",
    "context",
    "session_start",
    "session_end",
    "session_before_compact",
    "session_compact",
)
"""Nimlet's events, in the order upstream lists them: the older document's eight and
``context``, the ninth, which current nimlet added under the same ``version: 1``."""

CONTEXT_EVENT = "context"
"""The ninth event: before each model request; the only one dispatched in plan mode."""

CAPABILITIES: frozenset[str] = frozenset({"read", "user", "write", "shell", "network"})

DEFAULT_CAPABILITIES: tuple[str, ...] = ("write", "shell", "network")
"""What a tool that declares no capabilities counts as (nimlet's unsafe default)."""

READ_ONLY_CAPABILITIES: frozenset[str] = frozenset({"read"})
"""A tool declaring exactly these may run concurrently with other such calls."""

PLAN_CAPABILITIES: frozenset[str] = frozenset({"read", "user"})
"""Plan mode offers only tools whose capabilities are a subset of these."""

BUILTIN_TOOL_NAMES: frozenset[str] = frozenset(
    {"ask_user", "bash", "edit", "git", "glob", "grep", "read", "read_skill", "write"}
)
"""The host's own tools: an extension tool with one of these names is skipped."""
