"""Agent Plugins 1.0 (``plugin.json`` + ``skills/`` + ``mcp.json``), the format nanobot
0.3, VS Code, Cursor, Copilot, Codex, Kiro and OpenClaw read: skills served by the gateway
like every other skill, MCP servers run (stdio) or connected to (``streamable-http``, ``sse``)
by the plugin host (``adapters/plugin_host``).
Checked first by the registry: its ``plugin.json`` names an agent-plugins.org schema, which
no other ecosystem's metadata does."""

from __future__ import annotations

import functools
from pathlib import Path

from adapters._files import Inspection
from adapters._skills import package_skills
from adapters.agent_plugins import _codes as codes
from adapters.agent_plugins._launch import plan_plugin
from adapters.agent_plugins._manifest import (
    MCP_FILE,
    PACKAGE_RUNNERS,
    PluginReading,
    is_agent_plugin,
    read_plugin,
)
from adapters.plugin_host import signing
from adapters.plugin_host._remote_spec import (
    remote_contribution,
    remote_permissions,
    remote_secrets,
)
from gateway.model import CatalogEntry, Contribution, DiscoveredLaunch, LaunchSpec
from gateway.model.discovery import Discovery

TYPE_CHECKING = False
if TYPE_CHECKING:
    from adapters.agent_plugins._audit import AgentPluginsAudit

__all__ = ["ECOSYSTEM", "AgentPluginsAdapter"]

ECOSYSTEM = "agent-plugins"
RUNTIME = "plugin-host"


class AgentPluginsAdapter:
    ecosystem = ECOSYSTEM

    @functools.cached_property
    def audit(self) -> AgentPluginsAudit:
        from adapters.agent_plugins._audit import AgentPluginsAudit

        return AgentPluginsAudit()

    def detect(self, root: Path) -> bool:
        return is_agent_plugin(Inspection(root))

    def inspect(self, root: Path) -> CatalogEntry:
        inspection = Inspection(root)
        entry = CatalogEntry.named_after(root, self.ecosystem)
        reading = read_plugin(inspection)
        if reading.name:
            entry.id = entry.name = reading.name
        if reading.valid:
            _fill(inspection, entry, reading)
        entry.diagnostics = inspection.finish(entry.id)
        return entry

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


def _fill(inspection: Inspection, entry: CatalogEntry, reading: PluginReading) -> None:
    manifest = reading.manifest
    entry.version = str(manifest.get("version", ""))
    entry.description = str(manifest.get("description", ""))
    entry.contributions = list(reading.skills)
    for name, server in reading.stdio.items():
        command = " ".join([server["command"], *server["args"]])
        entry.contributions.append(Contribution(
            kind="mcp_server", name=name, description=f"stdio MCP server: {command}",
            detail={"transport": "stdio", "path": MCP_FILE, **server},
        ))  # fmt: skip
        if server["command"] in PACKAGE_RUNNERS:
            inspection.add(codes.AGENT_PLUGINS_SERVER_NEEDS_NETWORK(
                f"MCP server {name!r} starts with {server['command']!r}, which fetches "
                "packages from a registry; its sandbox denies network until granted",
                contribution=name, hint=f"gateway permissions {entry.id} network",
            ))  # fmt: skip
    for name, remote in reading.remote.items():
        entry.contributions.append(remote_contribution(name, remote, MCP_FILE))
    entry.permissions = remote_permissions(reading.remote)
    entry.secrets = remote_secrets(reading.remote)
    entry.runtime = RUNTIME if reading.stdio or reading.remote else "declarative"
    entry.metadata = {
        "stdio_servers": reading.stdio,
        "remote_servers": reading.remote,
        "homepage": manifest.get("homepage", ""),
        "license": manifest.get("license", ""),
        "repository": manifest.get("repository", ""),
    }
