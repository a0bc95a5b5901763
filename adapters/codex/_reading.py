"""What reading a Codex plugin found: the adapter's entry is filled from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gateway.model import Contribution

__all__ = ["PluginReading"]


@dataclass(slots=True)
class PluginReading:
    name: str | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    valid: bool = False
    contributions: list[Contribution] = field(default_factory=list)
    stdio: dict[str, dict[str, Any]] = field(default_factory=dict)
    remote: dict[str, str] = field(default_factory=dict)
    hooks: dict[str, Any] | None = None
    env_vars: list[str] = field(default_factory=list)
    agent_plugin: bool = False
