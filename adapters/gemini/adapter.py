"""Gemini CLI extensions (``gemini-extension.json``): stdio MCP servers and command hooks run
by the plugin host (``_launch``), context files and skills listed and TOML commands served
by the gateway itself (``_commands``), what only Gemini CLI's interface uses reported by
name (``_inspect``). See docs/gemini-extensions.md."""

from __future__ import annotations

import functools
from pathlib import Path

from adapters._files import Inspection
from adapters.gemini._commands import package_resources
from adapters.gemini._inspect import is_gemini_extension, read_extension
from adapters.gemini._launch import plan_extension
from gateway.model import CatalogEntry, DiscoveredLaunch, Discovery, LaunchSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from adapters.gemini._audit import GeminiAudit

__all__ = ["ECOSYSTEM", "GeminiAdapter"]

ECOSYSTEM = "gemini"


class GeminiAdapter:
    ecosystem = ECOSYSTEM

    @functools.cached_property
    def audit(self) -> GeminiAudit:
        from adapters.gemini._audit import GeminiAudit  # for `gateway audit` only

        return GeminiAudit()

    def detect(self, root: Path) -> bool:
        return is_gemini_extension(Inspection(root))

    def inspect(self, root: Path) -> CatalogEntry:
        inspection = Inspection(root)
        entry = CatalogEntry.named_after(root, self.ecosystem)
        reading = read_extension(inspection)
        if reading.name:
            entry.id = entry.name = reading.name
        if reading.valid:
            manifest = reading.manifest
            entry.version = str(manifest.get("version", ""))
            entry.description = str(manifest.get("description", ""))
            entry.contributions = reading.contributions
            entry.secrets = reading.settings
            entry.runtime = "plugin-host" if reading.stdio or reading.hooks else "declarative"
            entry.metadata = {
                "stdio_servers": reading.stdio, "remote_servers": reading.remote,
                "hooks": reading.hooks, "unsupported_hook_events": reading.unsupported_hook_events,
            }  # fmt: skip
        entry.diagnostics = inspection.finish(entry.id)
        return entry

    def plan_launch(self, entry: CatalogEntry, home: Path) -> LaunchSpec | None:
        return plan_extension(entry, home)

    def package_resources(self, entry: CatalogEntry) -> Discovery:
        return package_resources(entry)

    def discover(
        self, workspace: Path, user_home: Path, trusted: bool, home: Path
    ) -> list[DiscoveredLaunch]:
        return []  # ~/.gemini/extensions is Gemini CLI's; install an extension to use it
