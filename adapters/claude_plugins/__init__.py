"""Claude Code plugins as an input ecosystem (``claude``)."""

from adapters.claude_plugins.adapter import ClaudePluginsAdapter

__all__ = ["ClaudePluginsAdapter"]
