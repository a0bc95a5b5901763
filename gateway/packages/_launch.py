"""How a package of another ecosystem is started: a launch spec from its adapter.

Adapters plan launches, the gateway runs them: every runtime the gateway starts speaks
the nimlet protocol, so a spec is just a command line and the environment the package
declared. The gateway reaches the planner through the ``extension_gateway.launchers``
entry point, as it reaches the inspector.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path

from ._inspect import CatalogEntryLike

__all__ = ["LaunchRefusal", "LaunchSpec", "Launcher", "load_launcher"]

ENTRY_POINT_GROUP = "extension_gateway.launchers"


@dataclass(frozen=True, slots=True)
class LaunchSpec:
    """A nimlet-protocol process that runs a package (a sidecar hosting its code)."""

    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    """Added to the allow-listed environment: what the package declared it needs."""
    response_timeout: float | None = 30.0


@dataclass(frozen=True, slots=True)
class LaunchRefusal:
    """The package cannot be started here; ``reason`` says why (e.g. no runtime yet)."""

    reason: str


Launcher = Callable[[CatalogEntryLike, Path], "LaunchSpec | LaunchRefusal"]
"""(catalog entry, gateway home) → how to start it."""


def _no_launcher(entry: CatalogEntryLike, home: Path) -> LaunchSpec | LaunchRefusal:
    return LaunchRefusal(f"no launcher is installed for {entry.ecosystem} packages")


@functools.cache
def load_launcher() -> Launcher:
    found = sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda point: point.name)
    if not found:
        return _no_launcher
    launcher: Launcher = found[0].load()
    return launcher
