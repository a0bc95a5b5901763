"""Byte code for the processes the suite starts: the checkout's own modules compiled once per
run, beside their sources, as an installation has them.

This project's machines set ``PYTHONDONTWRITEBYTECODE``, and a checkout's editable install
has no byte code for ``gateway`` and ``adapters`` (pip compiles a wheel's modules at install,
never an editable one's). So every ``gateway`` command line a test ran, every served
gateway, plugin host and nanobot sidecar compiled the ~300 modules it imports at every start:
half the CPU of a ``gateway list`` (0.64 → 0.31 s once compiled; docs/performance/suite.md).
The variable only stops writing; a process still reads byte code that is there and fresh,
confined children included (they may read the installation). Compiled here, by the run's
first process, before any worker starts; a module edited since is compiled again (Python
checks each file's recorded source time and size, and compiles in memory what does not
match, so stale byte code is never used).

Never the tests' own folders: a fixture or example a test installs or hashes must not gain
a ``__pycache__`` (the workers keep theirs apart, under ``sys.pycache_prefix``).
"""

from __future__ import annotations

import importlib.util
import py_compile
import sys
from pathlib import Path

__all__ = ["compile_checkout"]

PACKAGES = ("gateway", "adapters")


def _byte_code_path(source: Path) -> Path:
    """Where Python reads the byte code of ``source`` when no ``pycache_prefix`` is set (this
    process has one: the workers' rewritten tests)."""
    tag = sys.implementation.cache_tag
    return source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc"


def compile_checkout(root: Path) -> int:
    """Compile every module of the checkout's packages whose byte code is missing or older
    than its source; the number compiled."""
    if sys.implementation.cache_tag is None or importlib.util.MAGIC_NUMBER is None:
        return 0
    compiled = 0
    for package in PACKAGES:
        for source in sorted((root / package).rglob("*.py")):
            if "node_modules" in source.parts:
                continue
            target = _byte_code_path(source)
            try:
                if target.stat().st_mtime >= source.stat().st_mtime:
                    continue
            except OSError:
                pass
            try:
                py_compile.compile(
                    str(source),
                    cfile=str(target),
                    doraise=True,
                    invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP,
                )
            except (OSError, py_compile.PyCompileError):
                continue  # a read-only checkout, a module that does not compile: as Python
            compiled += 1
    return compiled
