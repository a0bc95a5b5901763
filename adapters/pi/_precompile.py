"""Compiling a Pi package's TypeScript when it is installed, so its first start does not.

jiti (pi's TypeScript loader) keys its compile cache by file path, and an install is a new
path: without this step every first start after an install compiles the package (and loads
jiti's Babel: +125 to 190 ms, +14 MB). The Node sidecar's compile-only mode
(``sidecar.mjs --compile``, ``sidecars/lib/pi/compile.mjs``) compiles every module jiti would
compile into the package's cache folder and runs none of its code, confined as the package
will be (``adapters/_precompile.py``).

A failure here never fails the install: the package's first start compiles it instead, and
a ``pi.precompile_failed`` warning says why.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from adapters._precompile import COMPILE_TIMEOUT, compile_cache, run_precompile
from adapters.pi import _codes as codes
from adapters.pi._launch import MIN_NODE, pi_package_spec
from gateway.base import Diagnostic
from gateway.model import CatalogEntry

__all__ = ["COMPILE_TIMEOUT", "compile_cache", "precompile"]


def precompile(entry: CatalogEntry, home: Path) -> list[Diagnostic]:
    """Compile the installed package ``entry`` (rooted at its installed folder)."""
    if entry.runtime != "node-sidecar" or not entry.entries:
        return []
    spec = pi_package_spec(entry.id, Path(entry.root), entry.entries, compile_cache(home, entry.id))
    return run_precompile(entry, home, spec, minimum_node=MIN_NODE, failed=partial(_failed, entry))


def _failed(entry: CatalogEntry, why: str) -> Diagnostic:
    return codes.PI_PRECOMPILE_FAILED(
        f"{entry.id}: its TypeScript was not compiled at install: {why}; its first start "
        "compiles it",
        package=entry.id,
    )
