"""The MCP SDK's server modules without its packages' ``__init__`` modules.

Importing any module of the SDK (``mcp.server.lowlevel``, ``mcp.server.stdio``) first runs
``mcp/__init__.py`` — the whole client (``Client``, ``ClientSession``, the session group, the
stdio client) — and ``mcp/server/__init__.py`` — the high-level ``MCPServer`` with its
resource templates. ``gateway serve --mcp`` uses neither: ~0.2 s of the ~1.2 s of CPU a
start spent before its first reply (docs/performance/serve.md, "Session 11").

``defer_package_inits`` puts each of those two packages in ``sys.modules`` as its module
object with its ``__path__`` but before its ``__init__`` ran, so importing a submodule reads
only that submodule. The first attribute that the package does not hold yet (``mcp.Client``,
``from mcp.server import MCPServer``) runs its ``__init__`` then, in place: code that uses the
package's own names gets them as it always did. A package already imported is left as it is.
"""

from __future__ import annotations

import importlib.util
import sys
import threading

TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from types import ModuleType

__all__ = ["defer_package_inits"]

PACKAGES = ("mcp", "mcp.server")
"""Parents first: a package's module is made from its parent's ``__path__``."""


def defer_package_inits(packages: tuple[str, ...] = PACKAGES) -> None:
    """Each of ``packages`` not imported yet, as its module whose ``__init__`` runs at the
    first attribute it lacks."""
    for name in packages:
        if name in sys.modules:
            continue
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            return  # not installed as a package: nothing to defer
        _install(name, spec)


def _install(name: str, spec: ModuleSpec) -> None:
    module = importlib.util.module_from_spec(spec)
    lock = threading.RLock()
    loading: list[bool] = []

    def __getattr__(attribute: str) -> object:
        with lock:  # another thread waits here until the package's __init__ has run
            if not loading and module.__dict__.get("__getattr__") is __getattr__:
                loading.append(True)  # a name missing while __init__ runs: as in any import
                try:
                    _run_init(module, spec)
                finally:
                    if module.__dict__.get("__getattr__") is __getattr__:
                        del module.__dict__["__getattr__"]
        if attribute in module.__dict__:
            return module.__dict__[attribute]
        raise AttributeError(f"module {name!r} has no attribute {attribute!r}")

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)


def _run_init(module: ModuleType, spec: ModuleSpec) -> None:
    assert spec.loader is not None
    spec._initializing = True  # type: ignore[attr-defined]  # as the import system marks it
    try:
        spec.loader.exec_module(module)
    finally:
        spec._initializing = False  # type: ignore[attr-defined]
