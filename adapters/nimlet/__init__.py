"""nimlet: ``extension.json`` extensions, ``tool.json`` tools, skills and prompts."""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.nimlet.adapter import ECOSYSTEM as ECOSYSTEM
    from adapters.nimlet.adapter import NimletAdapter as NimletAdapter

__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
