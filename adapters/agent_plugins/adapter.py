"""Agent Plugins 1.0 (``plugin.json`` + ``skills/`` + ``mcp.json``), the format nanobot
0.3, VS Code, Cursor, Copilot, Codex, Kiro and OpenClaw read: skills served by the gateway
like every other skill, MCP servers run (stdio) or connected to (``streamable-http``, ``sse``)
by the plugin host (``adapters/plugin_host``), read by ``_inspect`` and planned by ``_launch``.
Checked first by the registry: its ``plugin.json`` names an agent-plugins.org schema, which
no other ecosystem's metadata does."""

from __future__ import annotations

import functools
from pathlib import Path

from adapters._files import Inspection
from adapters._skills import package_skills
from adapters.agent_plugins._inspect import ECOSYSTEM, inspect_agent_plugin, is_agent_plugin
from adapters.agent_plugins._launch import plan_plugin
from adapters.plugin_host import signing
from gateway.model import CatalogEntry, DiscoveredLaunch, Discovery, LaunchSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from adapters.agent_plugins._audit import AgentPluginsAudit

__all__ = ["ECOSYSTEM", "AgentPluginsAdapter"]


class AgentPluginsAdapter:
    ecosystem = ECOSYSTEM

    @functools.cached_property
    def audit(self) -> AgentPluginsAudit:
        from adapters.agent_plugins._audit import AgentPluginsAudit  # for `gateway audit` only

        return AgentPluginsAudit()

    def detect(self, root: Path) -> bool:
        return is_agent_plugin(Inspection(root))

    def inspect(self, root: Path) -> CatalogEntry:
        return inspect_agent_plugin(root)

    # gateway auth (gateway.model.SignsIn): the remote MCP servers a person signs in to.
    remote_servers = staticmethod(signing.remote_servers)
    sign_in = staticmethod(signing.sign_in)

    def plan_launch(self, entry: CatalogEntry, home: Path) -> LaunchSpec | None:
        return plan_plugin(entry, home)

    def package_resources(self, entry: CatalogEntry) -> Discovery:
        """Its ``skills/<name>/SKILL.md``, listed and served by the gateway itself."""
        return Discovery(skills=package_skills(entry))

    def discover(
        self, workspace: Path, user_home: Path, trusted: bool, home: Path
    ) -> list[DiscoveredLaunch]:
        return []  # installed through the gateway only (clients' plugin folders differ)
