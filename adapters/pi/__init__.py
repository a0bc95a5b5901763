"""Pi: ``package.json`` ``pi`` manifests and convention directories (docs/pi.md).

Everything loads on first use, so ``python -m adapters.pi.runtime`` (the clone's
``gateway setup``) runs that module once, as ``__main__``, and nothing imports it first.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.pi._launch import MIN_NODE as MIN_NODE
    from adapters.pi._launch import NODE_FLAGS as NODE_FLAGS
    from adapters.pi._launch import PI_TOOL_RULES as PI_TOOL_RULES
    from adapters.pi._launch import SIDECAR_DIR as SIDECAR_DIR
    from adapters.pi._launch import find_node as find_node
    from adapters.pi._launch import pi_package_spec as pi_package_spec
    from adapters.pi._launch import plan_pi as plan_pi
    from adapters.pi._launch import sidecar_ready as sidecar_ready
    from adapters.pi._roots import discovery_roots as discovery_roots
    from adapters.pi.adapter import ECOSYSTEM as ECOSYSTEM
    from adapters.pi.adapter import PiAdapter as PiAdapter


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
