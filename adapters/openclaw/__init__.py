"""OpenClaw: ``openclaw.plugin.json`` and ``package.json`` ``openclaw`` entries
(docs/openclaw.md).

Everything loads on first use: the registry asks ``discovery_roots`` whether a workspace
can hold anything for OpenClaw's discovery before it loads the adapter.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.openclaw._launch import MIN_NODE as MIN_NODE
    from adapters.openclaw._launch import openclaw_package_spec as openclaw_package_spec
    from adapters.openclaw._launch import plan_openclaw as plan_openclaw
    from adapters.openclaw._launch import plugin_dirs as plugin_dirs
    from adapters.openclaw._roots import discovery_roots as discovery_roots
    from adapters.openclaw.adapter import ECOSYSTEM as ECOSYSTEM
    from adapters.openclaw.adapter import OpenClawAdapter as OpenClawAdapter


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
