"""Ecosystem adapters: read package metadata into catalog entries and plan launches.

Nothing is imported until it is used, so a runtime started as a module of this package
(``python -m adapters.nanobot.sidecar``) loads only what it needs.
"""

from __future__ import annotations

from gateway.base import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from adapters.registry import ADAPTERS, BUILTIN, detect_ecosystem, get_adapter, inspect_package

_WHERE = {
    "ADAPTERS": "adapters.registry",
    "BUILTIN": "adapters.registry",
    "detect_ecosystem": "adapters.registry",
    "get_adapter": "adapters.registry",
    "inspect_package": "adapters.registry",
}

__all__ = [
    "ADAPTERS",
    "BUILTIN",
    "detect_ecosystem",
    "get_adapter",
    "inspect_package",
]


__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
