"""A package verb's refusal, said once (shared by the package verbs and install)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gateway.cli._output import print_diagnostics, print_json

__all__ = ["print_each", "refuse", "refuse_unknown"]


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
    if getattr(args, "json", False):
        print_json({"error": message, "diagnostics": [d.to_dict() for d in diagnostics or []]})
        return 1
    code = f" [{diagnostics[0].code}]" if diagnostics else ""
    if shown:
        print(f"gateway: error: {subject or message}:", file=sys.stderr)
        print_diagnostics(shown, indent="  ")
    else:
        print(f"gateway: error: {message}{code}", file=sys.stderr)
    return 1


def refuse_unknown(
    args: argparse.Namespace, unknown: list[str], *, given: int, what: str = ""
) -> int:
    """Ids no installed package has (``package.unknown``), all named on one line; of
    ``given`` ids, none was acted on. ``what`` replaces the default wording."""
    from gateway.cli import _codes

    names = ", ".join(unknown)
    if what:
        message = f"{names} {what}"
    elif len(unknown) == 1:
        message = f"no installed package with id {unknown[0]!r}"
    else:
        message = f"no installed packages with ids {names}"
    message += "; nothing was changed" if given > 1 else ""
    return refuse(args, message, [_codes.PACKAGE_UNKNOWN(message, package=unknown[0])])


def print_each(args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    """``--json`` of a verb given one id: that id's object, as it always was; given several,
    a list of them in the order given."""
    print_json(results[0] if len(results) == 1 else results)
