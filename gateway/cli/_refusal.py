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
    """Ids no installed package has (``package.unknown``), all named on one line with the
    names each probably meant; of ``given`` ids, none was acted on. ``what`` replaces the
    default wording."""
    from gateway.cli import _codes

    known = _known_names()
    names = ", ".join(unknown)
    if what:
        message = f"{names} {what}"
    elif len(unknown) == 1:
        message = f"no installed package with id {unknown[0]!r}"
    else:
        message = f"no installed packages with ids {names}"
    if len(unknown) == 1:
        found = _meant(unknown[0], known)
        message += f" (did you mean {' or '.join(found)}?)" if found else ""
    else:
        meant = [f"{name}: {' or '.join(found)}" for name in unknown
                 if (found := _meant(name, known))]  # fmt: skip
        message += f" (did you mean {'; '.join(meant)}?)" if meant else ""
    message += "; nothing was changed" if given > 1 else ""
    return refuse(args, message, [_codes.PACKAGE_UNKNOWN(message, package=unknown[0])])


def _meant(typed: str, known: dict[str, str]) -> list[str]:
    """The names ``typed`` probably meant, one per package (the closest of its names)."""
    from gateway.base import suggest

    found = suggest(typed, known)
    return [
        name for name in found if known[name] not in {known[n] for n in found[: found.index(name)]}
    ]


def _known_names() -> dict[str, str]:
    """The installed packages' ids and aliases → their ids, in the home this command runs on."""
    from gateway.base import GatewayConfig
    from gateway.cli._names import known_names
    from gateway.store import StoreError

    try:
        return known_names(GatewayConfig().home)
    except StoreError:
        return {}


def print_each(args: argparse.Namespace, results: list[dict[str, Any]]) -> None:
    """``--json`` of a verb given one id: that id's object, as it always was; given several,
    a list of them in the order given."""
    print_json(results[0] if len(results) == 1 else results)
