"""``gateway``: a thin command line over the Python API (see docs/cli.md).

Exit codes: 0 when a result was produced (an error result too), 1 for an unknown tool or
command or a failed operation, 2 for bad usage. ``gateway.cli._parser`` says what each
verb accepts, ``gateway.cli._main`` runs it; each verb's module is imported only when that
verb runs.
"""

from __future__ import annotations

from gateway.cli._main import main

__all__ = ["main"]
