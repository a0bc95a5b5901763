"""Pi packages: read by ``_inspect``, their extension modules run in the Node sidecar
(``_launch``), their skills and prompt templates served by the gateway itself
(``package_resources``), Pi's own extension folders found by ``discovery``.
Installed Pi packages share one sidecar by default (one process per permission set:
``plan_shared_launch``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

from adapters.pi._inspect import ECOSYSTEM, inspect_package, is_pi_package
from adapters.pi._launch import SHARE_KEY, PiPackage, plan_pi, plan_pi_shared, timeout
from adapters.pi._precompile import compile_cache, precompile
from adapters.pi._prompts import package_resources
from adapters.pi.discovery import discover as discover_extensions
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
    from adapters.pi._audit import PiAudit

__all__ = ["ECOSYSTEM", "PiAdapter"]


class PiAdapter:
    ecosystem = ECOSYSTEM

    @functools.cached_property
    def audit(self) -> PiAudit:
        """What this ecosystem's host accepts, for ``gateway audit`` (gateway.audit)."""
        from adapters.pi._audit import PiAudit  # for `gateway audit` only

        return PiAudit()

    def detect(self, root: Path) -> bool:
        return is_pi_package(root)

    def inspect(self, root: Path) -> CatalogEntry:
        return inspect_package(root)

    def plan_launch(self, entry: CatalogEntry, home: Path) -> LaunchSpec | LaunchRefusal | None:
        """The Node sidecar for its extension modules (shareable with other Pi packages);
        None for a package of skills, prompts and themes only: nothing to start, the gateway
        serves them itself."""
        if entry.runtime != "node-sidecar":
            return None
        cache = compile_cache(home, entry.id)
        return plan_pi(entry.id, Path(entry.root), list(entry.entries), _agent_dir(home), cache)

    def plan_shared_launch(
        self, entries: Sequence[CatalogEntry], home: Path
    ) -> LaunchSpec | LaunchRefusal:
        """One sidecar hosting several packages, in load order (Pi's collision rules then
        apply across them, as in Pi, which loads every package into one process)."""
        packages: list[PiPackage] = [
            (e.id, Path(e.root), list(e.entries), compile_cache(home, e.id)) for e in entries
        ]
        return plan_pi_shared(packages, _agent_dir(home), timeout(), share_key=SHARE_KEY)

    def prepare_install(self, entry: CatalogEntry, home: Path) -> list[Diagnostic]:
        """Compile its TypeScript into the cache its first start reads (runs none of it)."""
        return precompile(entry, home)

    def package_resources(self, entry: CatalogEntry) -> Discovery:
        """Its skills (listed) and prompt templates (slash commands expanded by Pi's rules)."""
        return package_resources(entry)

    def discover(
        self, workspace: Path, user_home: Path, trusted: bool, home: Path
    ) -> list[DiscoveredLaunch]:
        """Pi's own extension directories (``.pi/extensions``, ``~/.pi/agent/extensions``)."""
        return discover_extensions(workspace, user_home, trusted, home)


def _agent_dir(home: Path) -> dict[str, str]:
    # Pi's agent dir (global extension settings, e.g. ~/.pi/agent/extensions/*.json) lives
    # under the gateway home, not the user's ~/.pi.
    return {"PI_CODING_AGENT_DIR": str(home / "pi" / "agent")}
