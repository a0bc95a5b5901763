"""OpenClaw: ``openclaw.plugin.json`` and ``package.json`` ``openclaw`` entries
(docs/openclaw.md)."""

from __future__ import annotations

from adapters.openclaw._launch import MIN_NODE, openclaw_package_spec, plan_openclaw, plugin_dirs
from adapters.openclaw.adapter import ECOSYSTEM, OpenClawAdapter

__all__ = [
    "ECOSYSTEM",
    "MIN_NODE",
    "OpenClawAdapter",
    "openclaw_package_spec",
    "plan_openclaw",
    "plugin_dirs",
]
