"""Each package's modules live under a private package name.

Two packages may both ship ``extension.py`` (or ``utils.py``): upstream nanobot put each
package directory on ``sys.path`` and refused a second module of the same name. Here a
package rooted at ROOT becomes a synthetic package ``_gw_pkg_<hex id>`` whose ``__path__``
is ``[ROOT]``; its entry ``extension:register`` is imported as
``_gw_pkg_<hex>.extension``, and relative imports (``from . import helpers``) resolve inside
it with no help.

Flat packages also write absolute sibling imports (``import helpers``), which work in
nanobot only because the root is on ``sys.path``. Instead of putting every root on the
global path (where the first package's ``helpers`` would shadow the second's), a wrapper
around ``builtins.__import__`` looks at the *importing* module's name: when code inside
``_gw_pkg_X`` imports a top-level name that is a module file or package in X's root, the
import is redirected to ``_gw_pkg_X.<name>``. Standard-library names are never redirected,
and ``importlib.import_module("helpers")`` is not (it carries no importer); see
docs/nanobot.md.
"""

from __future__ import annotations

import builtins
import os
import sys
from importlib.machinery import ModuleSpec
from types import ModuleType

# For type checkers only: importing typing would cost the sidecar ≈7 ms at start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["PREFIX", "PackageNamespace"]

PREFIX = "_gw_pkg_"
_namespaces: dict[str, PackageNamespace] = {}
_original_import = builtins.__import__


class PackageNamespace:
    """The private package for one package root."""

    def __init__(self, package_id: str, root: str) -> None:
        self.name = PREFIX + package_id.encode().hex()
        self.root = root
        self.siblings = _top_level_modules(root)

    def install(self) -> None:
        _install_hook()
        module = ModuleType(self.name, f"private namespace of the package at {self.root}")
        spec = ModuleSpec(self.name, None, is_package=True)
        spec.submodule_search_locations = [self.root]
        module.__spec__ = spec
        module.__path__ = [self.root]
        module.__package__ = self.name
        sys.modules[self.name] = module
        _namespaces[self.name] = self

    def qualify(self, module: str) -> str:
        return f"{self.name}.{module}"

    def unload(self) -> None:
        """Forget every module of the package (rollback). Objects it handed out live on
        until dropped; Python cannot unload code for real."""
        _namespaces.pop(self.name, None)
        inside = self.name + "."
        for key in [k for k in sys.modules if k == self.name or k.startswith(inside)]:
            del sys.modules[key]


def _top_level_modules(root: str) -> frozenset[str]:
    names: set[str] = set()
    try:
        entries = list(os.scandir(root))
    except OSError:
        return frozenset()
    for entry in entries:
        stem, dot, suffix = entry.name.partition(".")
        if not stem.isidentifier():
            continue
        module_file = dot and suffix == "py" and entry.is_file()
        if module_file or (not dot and os.path.isfile(os.path.join(entry.path, "__init__.py"))):
            names.add(stem)
    return frozenset(names - sys.stdlib_module_names)


def _package_import(
    name: str,
    globals: dict[str, Any] | None = None,
    locals: Any = None,
    fromlist: Any = (),
    level: int = 0,
) -> Any:
    if level == 0 and globals is not None:
        importer = globals.get("__name__")
        if isinstance(importer, str) and importer.startswith(PREFIX):
            namespace = _namespaces.get(importer.partition(".")[0])
            top = name.partition(".")[0]
            if namespace is not None and top in namespace.siblings:
                module = _original_import(namespace.qualify(name), globals, locals, fromlist, 0)
                # `import a.b` binds `a`; `from a import b` wants `a` itself back.
                return module if fromlist else sys.modules[namespace.qualify(top)]
    return _original_import(name, globals, locals, fromlist, level)


def _install_hook() -> None:
    if builtins.__import__ is not _package_import:
        builtins.__import__ = _package_import
