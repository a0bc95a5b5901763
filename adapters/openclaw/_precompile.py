"""Compiling what OpenClaw's plugin loader would have jiti compile of an installed plugin,
when it is installed, so no start does.

Under the loader of the OpenClaw the plugin declares (``_lines``: ``jiti`` for OpenClaw
before 2026.5, ``native`` after), jiti transforms the plugin's entry (every entry under
``jiti``; a TypeScript entry under ``native``) and what it imports; a bundled plugin such as
``@laurentenhoor/devclaw`` (1.3 MB of ESM) costs seconds of CPU. jiti keeps what it compiles
in the plugin's temp folder, keyed by file path and checked against the source's hash, so
only a start that finds no entry pays, and an install is a new path: the first start after
each install paid. The Node sidecar's compile-only mode (``sidecar.mjs --compile``,
``sidecars/lib/openclaw/compile.mjs``, the loader's own jiti options) fills that cache here
and runs none of the plugin's code, confined as the plugin will be
(``adapters/_precompile.py``). ``native-jiti`` plugins are not compiled: their jiti runs only
when a native require fails, which only running them tells.

A failure never fails the install: the first start compiles instead, and an
``openclaw.precompile_failed`` warning says why.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from adapters._precompile import compile_cache, run_precompile
from adapters.openclaw import _codes as codes
from adapters.openclaw._launch import MIN_NODE, openclaw_package_spec
from gateway.base import Diagnostic
from gateway.model import CatalogEntry

__all__ = ["compile_cache", "precompile"]


def precompile(entry: CatalogEntry, home: Path) -> list[Diagnostic]:
    """Compile the installed plugin ``entry`` (rooted at its installed folder)."""
    if entry.runtime != "node-sidecar" or not entry.entries:
        return []
    spec = openclaw_package_spec(entry, home, frozenset())
    if spec["loader"] == "native-jiti" or (
        spec["loader"] == "native" and all(_native(path) for path in spec["entries"])
    ):
        return []  # jiti compiles nothing at install (sidecars/lib/openclaw/compile.mjs)
    spec["cache"] = str(compile_cache(home, entry.id))
    return run_precompile(entry, home, spec, minimum_node=MIN_NODE, failed=partial(_failed, entry))


def _native(path: str) -> bool:
    return Path(path).suffix in {".js", ".mjs", ".cjs"}


def _failed(entry: CatalogEntry, why: str) -> Diagnostic:
    return codes.OPENCLAW_PRECOMPILE_FAILED(
        f"{entry.id}: what jiti loads of it was not compiled at install: {why}; its first "
        "start compiles it",
        package=entry.id,
    )
