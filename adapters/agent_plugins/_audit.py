"""What an Agent Plugins client does with a package, and what the gateway does with an Agent
Plugin: the audit knowledge of this adapter (``gateway audit``'s ``agent-plugins`` column).

Sources: the Agent Plugins Specification 1.0.0 (a client reads skills and MCP servers of an
enabled plugin; nothing else runs) and released nanobot 0.3's loader as the reference
client; docs/agent-plugins.md for the ``gateway`` column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from adapters import _codes as adapters_codes
from adapters._audit import foreign, runs, unsupported
from gateway.audit import Found, Item, SourceFile, Support, Target
from gateway.model import CatalogEntry

__all__ = ["AgentPluginsAudit"]

_CONCEPTS: Final = frozenset({"skill", "mcp_server"})


class AgentPluginsAudit:
    ecosystem = "agent-plugins"

    def host_support(self, entry: CatalogEntry, item: Item) -> Support:
        if entry.ecosystem != self.ecosystem:
            return foreign(
                self.ecosystem, item, _CONCEPTS, "it reads plugin.json, skills/ and mcp.json"
            )
        if item.kind == "skill":
            return runs("an enabled plugin's skills are offered to the agent")
        if item.kind == "mcp_server":
            return runs("an enabled plugin's MCP servers are started or connected")
        return runs("Agent Plugins' own format")

    def gateway_support(self, entry: CatalogEntry, item: Item) -> Support:
        if item.kind == "skill":
            return runs("listed and served by the gateway like every other skill")
        if item.kind == "mcp_server":
            transport = item.detail.get("transport")
            if transport not in (None, "stdio"):
                return unsupported(
                    adapters_codes.AGENT_PLUGINS_REMOTE_SERVER,
                    f"a {transport} server is listed, not connected (no network by default)",
                )
            return runs(
                "started by the plugin host inside the plugin's sandbox: tools, resources "
                "(as tools) and prompts (as commands), named as nanobot names them"
            )
        return runs("Agent Plugins' own format")

    def code_items(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Found]:
        return []  # the servers' code is theirs; what they offer is known only by running

    def targets(self, entry: CatalogEntry, sources: Sequence[SourceFile]) -> list[Target]:
        return [Target("agent-plugins", "1.0.0", "plugin.json / mcp.json $schema")]
