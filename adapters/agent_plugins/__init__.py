"""Agent Plugins 1.0: ``plugin.json`` + ``skills/`` + ``mcp.json`` (docs/agent-plugins.md)."""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.agent_plugins._inspect import PluginReading as PluginReading
    from adapters.agent_plugins._inspect import is_agent_plugin as is_agent_plugin
    from adapters.agent_plugins._inspect import read_plugin as read_plugin
    from adapters.agent_plugins.adapter import ECOSYSTEM as ECOSYSTEM
    from adapters.agent_plugins.adapter import AgentPluginsAdapter as AgentPluginsAdapter

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
