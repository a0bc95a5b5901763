"""Pi: ``package.json`` ``pi`` manifests and convention directories."""

from __future__ import annotations

from adapters.pi.adapter import PiAdapter

__all__ = ["PiAdapter"]
