"""The Agent Plugins 1.0.0 schemas migration validates its output with: shared with the
``agent-plugins`` adapter, so they live in ``gateway.base.agent_plugins``."""

from __future__ import annotations

from gateway.base.agent_plugins import MCP_SCHEMA_ID, PLUGIN_SCHEMA_ID, schema, schema_problems

__all__ = ["MCP_SCHEMA_ID", "PLUGIN_SCHEMA_ID", "schema", "schema_problems"]
