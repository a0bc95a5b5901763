"""A package verb's refusal, said once (shared by the package verbs and install)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gateway.cli._output import print_diagnostics, print_json

__all__ = ["refuse"]


def refuse(
    args: argparse.Namespace,
    message: str,
    diagnostics: list[Any] | None = None,
    *,
    shown: list[Any] | None = None,
    subject: str = "",
) -> int:
    """JSON: the message and every diagnostic. Text: said once — the message, or, when the
    package's own ``shown`` diagnostics say why, ``subject`` with each of them under it."""
    if args.json:
        print_json({"error": message, "diagnostics": [d.to_dict() for d in diagnostics or []]})
        return 1
    code = f" [{diagnostics[0].code}]" if diagnostics else ""
    if shown:
        print(f"gateway: error: {subject or message}:", file=sys.stderr)
        print_diagnostics(shown, indent="  ")
    else:
        print(f"gateway: error: {message}{code}", file=sys.stderr)
    return 1
