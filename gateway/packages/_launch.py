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

from ..diagnostics import Diagnostic
from ._inspect import CatalogEntryLike

__all__ = [
    "DiscoveredLaunch",
    "Discoverer",
    "LaunchRefusal",
    "LaunchSpec",
    "Launcher",
    "load_discoverers",
    "load_launcher",
]

ENTRY_POINT_GROUP = "extension_gateway.launchers"
DISCOVERER_GROUP = "extension_gateway.discoverers"


@dataclass(frozen=True, slots=True)
class LaunchSpec:
    """A nimlet-protocol process that runs a package (a sidecar hosting its code)."""

    command: list[str]
    env: dict[str, str] = field(default_factory=dict)
    """Added to the allow-listed environment: what the package declared it needs."""
    response_timeout: float | None = 30.0
    start_timeout: float | None = None
    """Seconds to wait for ``register``; None: the same as ``response_timeout``. A runtime
    that compiles its package on first start needs longer than one request does."""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    """What the planner found about how it will run (reported at ``status``)."""


@dataclass(frozen=True, slots=True)
class LaunchRefusal:
    """The package cannot be started here; ``reason`` says why (e.g. no runtime yet)."""

    reason: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    """The refusal's own diagnostics (a specific code and a hint), reported at ``status``
    beside ``runtime.unavailable``."""


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


@dataclass(frozen=True, slots=True)
class DiscoveredLaunch:
    """Extensions an adapter found in its ecosystem's own discovery directories (not
    installed packages), and how to start them."""

    name: str
    """The owner name of what runs, e.g. ``pi:discovered``."""
    origin: Path
    launch: LaunchSpec | LaunchRefusal | None
    """None: nothing to start, only ``diagnostics`` to report (e.g. extensions skipped in
    an untrusted workspace)."""
    diagnostics: list[Diagnostic] = field(default_factory=list)


Discoverer = Callable[[Path, Path, bool, Path], list[DiscoveredLaunch]]
"""(workspace, user home, workspace trusted, gateway home) → what to start."""


@functools.cache
def load_discoverers() -> tuple[Discoverer, ...]:
    """Every ``extension_gateway.discoverers`` entry point, by name; none installed → ()."""
    found = sorted(entry_points(group=DISCOVERER_GROUP), key=lambda point: point.name)
    return tuple(point.load() for point in found)
