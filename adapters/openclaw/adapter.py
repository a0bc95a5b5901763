"""OpenClaw plugins: ``openclaw.plugin.json`` plus ``package.json`` ``openclaw`` entries,
read by ``_inspect``, planned by ``_launch`` and found in OpenClaw's roots by ``discovery``."""

from __future__ import annotations

import functools
from pathlib import Path

from adapters._skills import package_skills
from adapters.openclaw._inspect import ECOSYSTEM, inspect_plugin, is_plugin
from adapters.openclaw._launch import plan_openclaw
from adapters.openclaw._precompile import precompile
from adapters.openclaw.discovery import discover
from gateway.base import Diagnostic
from gateway.model import (
    CatalogEntry,
    DiscoveredLaunch,
    Discovery,
    LaunchRefusal,
    LaunchSpec,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from adapters.openclaw._audit import OpenClawAudit

__all__ = ["ECOSYSTEM", "OpenClawAdapter"]


class OpenClawAdapter:
    ecosystem = ECOSYSTEM

    @functools.cached_property
    def audit(self) -> OpenClawAudit:
        """What this ecosystem's host accepts, for ``gateway audit`` (gateway.audit)."""
        from adapters.openclaw._audit import OpenClawAudit  # for `gateway audit` only

        return OpenClawAudit()

    def detect(self, root: Path) -> bool:
        return is_plugin(root)

    def inspect(self, root: Path) -> CatalogEntry:
        return inspect_plugin(root)

    def plan_launch(self, entry: CatalogEntry, home: Path) -> LaunchSpec | LaunchRefusal:
        if entry.runtime != "node-sidecar":
            return LaunchRefusal(
                "nothing to run: the plugin declares no entry module (its metadata is listed)"
            )
        return plan_openclaw(entry, home)

    def prepare_install(self, entry: CatalogEntry, home: Path) -> list[Diagnostic]:
        """Compile what jiti loads of it into the cache its starts read (runs none of it)."""
        return precompile(entry, home)

    def package_resources(self, entry: CatalogEntry) -> Discovery:
        """The skills its manifest names (``skills``), listed as the package's; the gateway
        serves them itself, whether or not the plugin has code to run."""
        return Discovery(skills=package_skills(entry))

    def discover(
        self, workspace: Path, user_home: Path, trusted: bool, home: Path
    ) -> list[DiscoveredLaunch]:
        """``<workspace>/.openclaw/extensions`` (trusted workspaces) and
        ``~/.openclaw/extensions``, in one shared sidecar."""
        return discover(workspace, user_home, trusted, home)
