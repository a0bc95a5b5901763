"""How a verb says it cannot go on; ``gateway.cli._main`` turns each into its exit code."""

from __future__ import annotations

from gateway.base import GatewayError

TYPE_CHECKING = False  # typing itself costs several ms at start
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

__all__ = ["BadArgument", "Usage", "error"]


class Usage(GatewayError):
    """Bad usage detected after parsing (exit 2)."""


class BadArgument(GatewayError):
    """An argument that cannot be used (exit 2, with ``cli.invalid_argument``)."""


def error(args: argparse.Namespace, message: str, diagnostics: Sequence[Any] = ()) -> None:
    """A failure, said once: ``{"error", "diagnostics"}`` on stdout with ``--json`` (so a
    script always gets JSON), else one line on stderr and the warnings and errors."""
    from gateway.base import Severity
    from gateway.cli._output import fail, print_diagnostics, print_json

    if getattr(args, "json", False):
        print_json({"error": message, "diagnostics": [d.to_dict() for d in diagnostics]})
        return
    fail(message)
    print_diagnostics(list(diagnostics), least=Severity.WARNING)
