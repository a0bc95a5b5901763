"""Nu: ``package.json`` with a ``nu`` key, and ``tool.yaml`` tools (synthetic format)."""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.nu.adapter import ECOSYSTEM as ECOSYSTEM
    from adapters.nu.adapter import NuAdapter as NuAdapter

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
