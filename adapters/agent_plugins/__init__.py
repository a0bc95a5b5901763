"""Agent Plugins 1.0: ``plugin.json`` + ``skills/`` + ``mcp.json`` (docs/agent-plugins.md)."""

from adapters.agent_plugins.adapter import ECOSYSTEM, AgentPluginsAdapter

__all__ = ["ECOSYSTEM", "AgentPluginsAdapter"]
