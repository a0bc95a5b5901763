"""``gateway``: a thin command line over the Python API (see docs/cli.md).

Exit codes: 0 when a result was produced (an error result too), 1 for an unknown tool or
command or a failed operation, 2 for bad usage. ``gateway.cli._parser`` says what each
verb accepts, ``gateway.cli._main`` runs it; each verb's module is imported only when that
verb runs.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing itself costs several ms at start
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``gateway`` command line (``sys.argv`` when ``argv`` is None)."""
    if list(sys.argv[1:] if argv is None else argv) == ["--version"]:
        # What argparse's own --version prints, before the command line's modules load:
        # argparse, pathlib and contextlib were half of `gateway --version` beyond a bare
        # Python start (docs/performance/cli.md).
        from gateway.base import gateway_version

        sys.stdout.write(f"gateway {gateway_version()}\n")
        return 0
    from gateway.cli._main import main as run

    return run(argv)
