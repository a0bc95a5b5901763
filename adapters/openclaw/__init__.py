"""OpenClaw: ``openclaw.plugin.json`` and ``package.json`` ``openclaw`` entries."""

from __future__ import annotations

from adapters.openclaw.adapter import OpenClawAdapter

__all__ = ["OpenClawAdapter"]
