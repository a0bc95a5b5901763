"""Pi: ``package.json`` ``pi`` manifests and convention directories (docs/pi.md).

Everything loads on first use, so ``python -m adapters.pi.runtime`` (the clone's
``gateway setup``) runs that module once, as ``__main__``, and nothing imports it first.
"""

from __future__ import annotations

from gateway.base import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.pi._launch import (
        MIN_NODE,
        NODE_FLAGS,
        PI_TOOL_RULES,
        SIDECAR_DIR,
        find_node,
        pi_package_spec,
        plan_pi,
        sidecar_ready,
    )
    from adapters.pi._roots import discovery_roots
    from adapters.pi.adapter import ECOSYSTEM, PiAdapter

_WHERE = {
    "ECOSYSTEM": "adapters.pi.adapter",
    "PiAdapter": "adapters.pi.adapter",
    "MIN_NODE": "adapters.pi._launch",
    "NODE_FLAGS": "adapters.pi._launch",
    "PI_TOOL_RULES": "adapters.pi._launch",
    "SIDECAR_DIR": "adapters.pi._launch",
    "find_node": "adapters.pi._launch",
    "pi_package_spec": "adapters.pi._launch",
    "plan_pi": "adapters.pi._launch",
    "sidecar_ready": "adapters.pi._launch",
    "discovery_roots": "adapters.pi._roots",
}

__all__ = [
    "ECOSYSTEM",
    "MIN_NODE",
    "NODE_FLAGS",
    "PI_TOOL_RULES",
    "SIDECAR_DIR",
    "PiAdapter",
    "discovery_roots",
    "find_node",
    "pi_package_spec",
    "plan_pi",
    "sidecar_ready",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
