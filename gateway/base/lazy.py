"""Package ``__init__`` modules whose public names load on first use (PEP 562).

The gateway and its adapters keep a curated public API in each ``__init__.py``, yet the
runtimes they start import only a few light modules of those packages (the nanobot sidecar
counts every millisecond before its ``register``): an eager ``__init__`` would load the
whole host into each of them.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(
    package: str, where: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``where`` maps each public name to the
    module (absolute, or relative to ``package``) that defines it."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module, package), name)

    def __dir__() -> list[str]:
        return sorted(where)

    return __getattr__, __dir__
