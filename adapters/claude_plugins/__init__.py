"""Claude Code plugins as an input ecosystem (``claude``): ``.claude-plugin/plugin.json``,
commands, skills, hooks and MCP servers (docs/claude-plugins.md)."""

from __future__ import annotations

from adapters.claude_plugins.adapter import ECOSYSTEM, ClaudePluginsAdapter

__all__ = ["ECOSYSTEM", "ClaudePluginsAdapter"]
