"""Codex plugins (``.codex-plugin/plugin.json``, or a root Agent Plugin as Codex reads it):
skills listed by the gateway as ``<plugin>:<skill>``, stdio MCP servers and command hooks run
by the plugin host (``_launch``), ChatGPT apps and remote servers named, never faked
(``_inspect``, ``_servers``). See docs/codex-plugins.md."""

from __future__ import annotations

import functools
from pathlib import Path

from adapters._files import Inspection
from adapters._skills import package_skills
from adapters.codex._inspect import is_codex_plugin, read_codex_plugin
from adapters.codex._launch import plan_plugin
from adapters.codex._marketplace import select_plugin
from gateway.model import CatalogEntry, DiscoveredLaunch, Discovery, LaunchSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from adapters.codex._audit import CodexAudit

__all__ = ["ECOSYSTEM", "CodexAdapter"]

ECOSYSTEM = "codex"


class CodexAdapter:
    ecosystem = ECOSYSTEM

    select_offered = staticmethod(select_plugin)
    """``gateway install MARKETPLACE#PLUGIN`` for a Codex marketplace (``_marketplace``)."""

    @functools.cached_property
    def audit(self) -> CodexAudit:
        from adapters.codex._audit import CodexAudit  # for `gateway audit` only

        return CodexAudit()

    def detect(self, root: Path) -> bool:
        return is_codex_plugin(Inspection(root))

    def inspect(self, root: Path) -> CatalogEntry:
        inspection = Inspection(root)
        entry = CatalogEntry.named_after(root, self.ecosystem)
        reading = read_codex_plugin(inspection)
        if reading.name:
            entry.id = entry.name = reading.name
        if reading.valid:
            manifest = reading.manifest
            entry.version = str(manifest.get("version") or "")
            entry.description = str(manifest.get("description") or "")
            entry.contributions = reading.contributions
            entry.secrets = reading.env_vars
            running = reading.stdio or reading.hooks
            entry.runtime = "plugin-host" if running else "declarative"
            interface = manifest.get("interface")
            entry.metadata = {
                "stdio_servers": reading.stdio,
                "remote_servers": reading.remote,
                "hooks": reading.hooks,
                "interface": interface if isinstance(interface, dict) else {},
                "agent_plugin": reading.agent_plugin,
            }
        entry.diagnostics = inspection.finish(entry.id)
        return entry

    def plan_launch(self, entry: CatalogEntry, home: Path) -> LaunchSpec | None:
        return plan_plugin(entry, home)

    def package_resources(self, entry: CatalogEntry) -> Discovery:
        return Discovery(skills=package_skills(entry))

    def discover(
        self, workspace: Path, user_home: Path, trusted: bool, home: Path
    ) -> list[DiscoveredLaunch]:
        return []  # ~/.codex/plugins is Codex's; install a plugin to use it
