"""nanobot packages: a strict ``nanobot.extension.json`` (python, pi, openclaw or
declarative runtime) read by ``_inspect``, started by ``_launch``. Checked first by the
registry, because a nanobot manifest can wrap a Pi or OpenClaw package that would otherwise
be read by its own adapter."""

from __future__ import annotations

import functools
from pathlib import Path

from adapters.nanobot._inspect import ECOSYSTEM, inspect_nanobot, is_nanobot_package
from adapters.nanobot._launch import plan_nanobot
from gateway.model import CatalogEntry, DiscoveredLaunch, LaunchRefusal, LaunchSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from adapters.nanobot._audit import NanobotAudit

__all__ = ["ECOSYSTEM", "NanobotAdapter"]


class NanobotAdapter:
    ecosystem = ECOSYSTEM

    @functools.cached_property
    def audit(self) -> NanobotAudit:
        """What this ecosystem's host accepts, for ``gateway audit`` (gateway.audit)."""
        from adapters.nanobot._audit import NanobotAudit  # for `gateway audit` only

        return NanobotAudit()

    def detect(self, root: Path) -> bool:
        return is_nanobot_package(root)

    def inspect(self, root: Path) -> CatalogEntry:
        return inspect_nanobot(root)

    def plan_launch(self, entry: CatalogEntry, home: Path) -> LaunchSpec | LaunchRefusal:
        return plan_nanobot(entry, home)

    def discover(
        self, workspace: Path, user_home: Path, trusted: bool, home: Path
    ) -> list[DiscoveredLaunch]:
        return []  # nanobot has no discovery directories of its own
