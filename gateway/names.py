"""The nimlet protocol's fixed vocabulary, in one place: its version, its eight events,
tool capabilities and the built-in tool names.

This module imports nothing, so the runtimes the gateway starts (the nanobot sidecar
counts every millisecond of its start) use these names instead of repeating them.
"""

from __future__ import annotations

__all__ = [
    "BUILTIN_TOOL_NAMES",
    "CAPABILITIES",
    "DEFAULT_CAPABILITIES",
    "HOOK_EVENTS",
    "PLAN_CAPABILITIES",
    "PROTOCOL_VERSION",
]

PROTOCOL_VERSION = 1

HOOK_EVENTS: tuple[str, ...] = (
    "tool_call",
    "tool_result",
    "turn_start",
    "turn_end",
    "session_start",
    "session_end",
    "session_before_compact",
    "session_compact",
)
"""Nimlet v1's eight events, in the order its documentation lists them."""

CAPABILITIES: frozenset[str] = frozenset({"read", "user", "write", "shell", "network"})

DEFAULT_CAPABILITIES: tuple[str, ...] = ("write", "shell", "network")
"""What a tool that declares no capabilities counts as (nimlet's unsafe default)."""

PLAN_CAPABILITIES: frozenset[str] = frozenset({"read", "user"})
"""Plan mode offers only tools whose capabilities are a subset of these."""

BUILTIN_TOOL_NAMES: frozenset[str] = frozenset(
    {"ask_user", "bash", "edit", "git", "glob", "grep", "read", "read_skill", "write"}
)
"""The host's own tools: an extension tool with one of these names is skipped."""
