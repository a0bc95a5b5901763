"""Package ``__init__`` modules whose public names load on first use (PEP 562), each name
written once.

The gateway and its adapters keep a curated public API in each ``__init__.py``, yet the
runtimes they start import only a few light modules of those packages (the nanobot sidecar
counts every millisecond before its ``register``): an eager ``__init__`` would load the
whole host into each of them. So an ``__init__`` lists its names in one block the type
checkers read and the interpreter skips::

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from gateway.policy._engine import Decision as Decision
        from gateway.policy._grammar import parse_bundle as parse_bundle

    __getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)

``X as X`` is the explicit re-export every checker knows (PEP 484's stub rule, mypy's
``no_implicit_reexport``, pyright's ``py.typed`` rules, ruff's F401), so a type-checked
embedder sees each name as public; ``lazy_exports`` reads the same block from the file at
import for the map of where each name lives and for ``__all__``. (Before, each name was
written three times: that import, a map, ``__all__``.) The file must be there, as a wheel
installs it.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["exported_names", "lazy_exports"]

_BLOCK = "\nif TYPE_CHECKING:\n"
_SHAPE = "only `from package.module import NAME as NAME` re-exports belong in that block"


def exported_names(source: str, filename: str = "<init>") -> dict[str, str]:
    """Each name the ``if TYPE_CHECKING:`` block of an ``__init__``'s ``source`` re-exports,
    mapped to the module it comes from, in the block's order. Raises ``ImportError`` for a
    block that is missing or holds anything but ``from MODULE import NAME as NAME``
    statements (parenthesised or not, with comments).

    Read word by word, not by ``compile``: a gateway process imports about twenty of these
    ``__init__`` modules, and Python's parser cost ~0.2 ms each (tests/test_public_names.py
    holds this reading to the parser's on every ``__init__`` of the tree)."""
    start = source.find(_BLOCK)
    if start < 0:
        raise ImportError(f"{filename}: no `if TYPE_CHECKING:` block of re-exports")
    words: list[str] = []
    for line in source[start + len(_BLOCK) :].splitlines():
        if line and not line.startswith((" ", "#")):
            break
        words += line.partition("#")[0].replace("(", " ").replace(")", " ").split()
    where: dict[str, str] = {}
    at, end = 0, len(words)
    while at < end:
        if words[at] != "from" or at + 2 >= end or words[at + 2] != "import":
            raise ImportError(f"{filename}: {_SHAPE} (found {' '.join(words[at : at + 4])!r})")
        module, at = words[at + 1], at + 3
        if not all(part.isidentifier() for part in module.split(".")):
            raise ImportError(f"{filename}: {_SHAPE} (found the module {module!r})")
        while at < end and words[at] != "from":
            name = words[at]
            if at + 2 >= end or words[at + 1] != "as" or words[at + 2].rstrip(",") != name:
                raise ImportError(f"{filename}: {_SHAPE} (found {' '.join(words[at : at + 3])!r})")
            if not name.isidentifier():
                raise ImportError(f"{filename}: {_SHAPE} (found the name {name!r})")
            where[name] = module
            at += 3
    return where


def lazy_exports(
    package: str, init_file: str
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """``(__getattr__, __dir__, __all__)`` for ``package``, whose ``__init__`` is
    ``init_file``: each name of its ``if TYPE_CHECKING:`` block loads from its module on
    first use."""
    with open(init_file, encoding="utf-8") as file:
        where = exported_names(file.read(), init_file)

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    def __dir__() -> list[str]:
        return sorted(where)

    return __getattr__, __dir__, sorted(where)
