"""OpenClaw: ``openclaw.plugin.json`` and ``package.json`` ``openclaw`` entries
(docs/openclaw.md).

Everything loads on first use: the registry asks ``discovery_roots`` whether a workspace
can hold anything for OpenClaw's discovery before it loads the adapter.
"""

from __future__ import annotations

from gateway.base import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.openclaw._launch import (
        MIN_NODE,
        openclaw_package_spec,
        plan_openclaw,
        plugin_dirs,
    )
    from adapters.openclaw._roots import discovery_roots
    from adapters.openclaw.adapter import ECOSYSTEM, OpenClawAdapter

_WHERE = {
    "ECOSYSTEM": "adapters.openclaw.adapter",
    "OpenClawAdapter": "adapters.openclaw.adapter",
    "MIN_NODE": "adapters.openclaw._launch",
    "openclaw_package_spec": "adapters.openclaw._launch",
    "plan_openclaw": "adapters.openclaw._launch",
    "plugin_dirs": "adapters.openclaw._launch",
    "discovery_roots": "adapters.openclaw._roots",
}

__all__ = [
    "ECOSYSTEM",
    "MIN_NODE",
    "OpenClawAdapter",
    "discovery_roots",
    "openclaw_package_spec",
    "plan_openclaw",
    "plugin_dirs",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
