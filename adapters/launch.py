"""Launch plans for packages the gateway does not run natively.

Every runtime speaks the nimlet protocol; this module only says which one starts a given
package and with what. Until a runtime exists, the refusal says so, naming it.
"""

from __future__ import annotations

from pathlib import Path

from adapters._base import CatalogEntry
from gateway.packages import LaunchRefusal, LaunchSpec

__all__ = ["plan_launch"]

_NODE_ECOSYSTEMS = {"pi": "Pi", "openclaw": "OpenClaw", "nu": "Nu"}


def plan_launch(entry: CatalogEntry, home: Path) -> LaunchSpec | LaunchRefusal:
    if entry.ecosystem == "nanobot" and entry.runtime == "python-sidecar":
        return LaunchRefusal("runtime not available yet: the nanobot Python sidecar")
    if entry.ecosystem == "nanobot" and entry.runtime == "declarative":
        return LaunchRefusal(
            "runtime not available yet: declarative nanobot contributions (skills, MCP "
            "server declarations) are metadata only for now"
        )
    name = _NODE_ECOSYSTEMS.get(entry.ecosystem, entry.ecosystem)
    if entry.runtime in ("node-sidecar", "nu-tool") or entry.ecosystem in _NODE_ECOSYSTEMS:
        return LaunchRefusal(f"runtime not available yet: the Node sidecar for {name} packages")
    return LaunchRefusal(f"runtime not available yet: {entry.runtime} for {name} packages")
