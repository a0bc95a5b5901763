"""Agent Plugins 1.0: ``plugin.json`` + ``skills/`` + ``mcp.json`` (docs/agent-plugins.md)."""

from adapters.agent_plugins._inspect import PluginReading, is_agent_plugin, read_plugin
from adapters.agent_plugins.adapter import ECOSYSTEM, AgentPluginsAdapter

__all__ = ["ECOSYSTEM", "AgentPluginsAdapter", "PluginReading", "is_agent_plugin", "read_plugin"]
