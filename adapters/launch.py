"""Launch plans for packages the gateway does not run natively.

Every runtime speaks the nimlet protocol; this module only says which one starts a given
package and with what. Until a runtime exists, the refusal says so, naming it.
"""

from __future__ import annotations

from pathlib import Path

from adapters._base import CatalogEntry
from adapters.nanobot.runtime import plan_nanobot
from gateway.packages import LaunchRefusal, LaunchSpec

__all__ = ["plan_launch"]

_NODE_ECOSYSTEMS = {"pi": "Pi", "openclaw": "OpenClaw", "nu": "Nu"}


def plan_launch(entry: CatalogEntry, home: Path) -> LaunchSpec | LaunchRefusal:
    if entry.ecosystem == "nanobot":
        return plan_nanobot(entry, home)
    if entry.ecosystem == "pi" and entry.runtime == "node-sidecar":
        from adapters.pi.runtime import plan_pi

        # Pi's agent dir (global extension settings, e.g. ~/.pi/agent/extensions/*.json)
        # lives under the gateway home, not the user's ~/.pi.
        agent_dir = {"PI_CODING_AGENT_DIR": str(home / "pi" / "agent")}
        return plan_pi(entry.id, Path(entry.root), list(entry.entries), agent_dir)
    if entry.ecosystem == "openclaw" and entry.runtime == "node-sidecar":
        from adapters.openclaw.runtime import plan_openclaw

        return plan_openclaw(entry, home)
    name = _NODE_ECOSYSTEMS.get(entry.ecosystem, entry.ecosystem)
    if entry.runtime in ("node-sidecar", "nu-tool") or entry.ecosystem in _NODE_ECOSYSTEMS:
        return LaunchRefusal(f"runtime not available yet: the Node sidecar for {name} packages")
    return LaunchRefusal(f"runtime not available yet: {entry.runtime} for {name} packages")
