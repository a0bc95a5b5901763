"""nimlet packages: an ``extension.json`` extension, ``tool.json`` tools, SKILL.md skills
and ``prompts/*.md`` templates, read by ``_inspect``; the gateway runs nimlet's own formats
itself (``_launch``)."""

from __future__ import annotations

import functools
from pathlib import Path

from adapters.nimlet._inspect import ECOSYSTEM, inspect_nimlet, is_nimlet_package
from adapters.nimlet._launch import plan_nimlet
from gateway.model import CatalogEntry, DiscoveredLaunch, LaunchSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from adapters.nimlet._audit import NimletAudit

__all__ = ["ECOSYSTEM", "NimletAdapter"]


class NimletAdapter:
    ecosystem = ECOSYSTEM

    @functools.cached_property
    def audit(self) -> NimletAudit:
        """What this ecosystem's host accepts, for ``gateway audit`` (gateway.audit)."""
        from adapters.nimlet._audit import NimletAudit  # for `gateway audit` only

        return NimletAudit()

    def detect(self, root: Path) -> bool:
        return is_nimlet_package(root)

    def inspect(self, root: Path) -> CatalogEntry:
        return inspect_nimlet(root)

    def plan_launch(self, entry: CatalogEntry, home: Path) -> LaunchSpec | None:
        return plan_nimlet(entry, home)

    def discover(
        self, workspace: Path, user_home: Path, trusted: bool, home: Path
    ) -> list[DiscoveredLaunch]:
        return []  # nimlet's roots are the gateway's own discovery (gateway.discovery)
