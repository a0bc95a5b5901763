"""Nu packages: ``package.json`` with a ``nu`` key and its ``tool.yaml`` tools, read by
``_inspect``; extension modules run in the Node sidecar's Nu host (``_launch``), tools one
Node per call (``_runner``), bundled at install (``_bundle``).

No public Nu implementation exists (nu-notes.md): the project's Nu document is the
specification, and every Nu fixture is synthetic.
"""

from __future__ import annotations

import functools
from pathlib import Path

from adapters.nu._bundle import prepare_bundles
from adapters.nu._inspect import ECOSYSTEM, inspect_nu, is_nu_package
from adapters.nu._launch import plan_extensions
from adapters.nu._runner import plan_calls
from gateway.base import Diagnostic
from gateway.model import CallPlan, CatalogEntry, DiscoveredLaunch, LaunchRefusal, LaunchSpec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from adapters.nu._audit import NuAudit

__all__ = ["ECOSYSTEM", "NuAdapter"]


class NuAdapter:
    ecosystem = ECOSYSTEM

    @functools.cached_property
    def audit(self) -> NuAudit:
        """What this ecosystem's host accepts, for ``gateway audit`` (gateway.audit)."""
        from adapters.nu._audit import NuAudit  # for `gateway audit` only

        return NuAudit()

    def detect(self, root: Path) -> bool:
        return is_nu_package(root)

    def inspect(self, root: Path) -> CatalogEntry:
        return inspect_nu(root)

    def plan_launch(self, entry: CatalogEntry, home: Path) -> LaunchSpec | LaunchRefusal | None:
        """Extension modules run in the Node sidecar's Nu host; a package without any has
        no process of its own (its tools run per call: ``plan_calls``)."""
        if not entry.entries:
            return None
        return plan_extensions(entry, home)

    def plan_calls(self, entry: CatalogEntry, home: Path) -> CallPlan:
        """Its tools (a fresh Node per call), ``client.commands`` and skills."""
        return plan_calls(entry, home)

    def stage_install(
        self, entry: CatalogEntry, root: Path, previous: Path | None
    ) -> list[Diagnostic]:
        """Bundle its tools (esbuild; no package code runs)."""
        return prepare_bundles(entry, root, previous)

    def discover(
        self, workspace: Path, user_home: Path, trusted: bool, home: Path
    ) -> list[DiscoveredLaunch]:
        return []  # Nu installs packages (`nu install`); it has no discovery directories
