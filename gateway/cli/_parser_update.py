"""The arguments of ``gateway outdated`` and ``gateway update``: argparse alone, like
``gateway.cli._parser``, which lists them."""

from __future__ import annotations

import argparse

__all__ = ["add_outdated", "add_update"]

_LATEST = "npm sources: the registry's latest version, beyond the recorded spec"


def add_outdated(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--latest", action="store_true", help=_LATEST)
    sub.add_argument("--json", action="store_true")


def add_update(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("ids", nargs="*", metavar="ID", help="installed packages (default: all)")
    sub.add_argument("--latest", action="store_true", help=_LATEST)
    sub.add_argument("--json", action="store_true")
