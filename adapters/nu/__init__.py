"""Nu: ``package.json`` with a ``nu`` key, and ``tool.yaml`` tools (synthetic format)."""

from __future__ import annotations

from adapters.nu.adapter import ECOSYSTEM, NuAdapter

__all__ = ["ECOSYSTEM", "NuAdapter"]
