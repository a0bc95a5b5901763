"""Ecosystem adapters: read package metadata into catalog entries and plan launches.

Nothing is imported until it is used, so a runtime started as a module of this package
(``python -m adapters.nanobot.sidecar``) loads only what it needs.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.registry import ADAPTERS as ADAPTERS
    from adapters.registry import BUILTIN as BUILTIN
    from adapters.registry import detect_ecosystem as detect_ecosystem
    from adapters.registry import get_adapter as get_adapter
    from adapters.registry import inspect_package as inspect_package


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
