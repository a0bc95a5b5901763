"""Diagnostics as people read them, whichever verb prints them: each problem once, grouped
by package (``gateway list``'s table, ``gateway status``, the start-up report of ``gateway
serve``), and a line that names its package."""

from __future__ import annotations

from collections.abc import Sequence

from gateway.base.diagnostics import Diagnostic, Severity

__all__ = ["by_package", "named_message"]

_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def by_package(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """Each problem once, grouped by package — the run's own first, then each package by
    its id — errors before warnings before notes within a group, else in the order said:
    the same on every run, whichever process started first."""
    unique = list(dict.fromkeys(diagnostics))
    return sorted(unique, key=lambda d: (d.package is not None, d.package or "", _RANK[d.severity]))


def named_message(diagnostic: Diagnostic) -> str:
    """The message as ``ID: message`` where lines of many packages meet, unless it already
    begins with its package (as most adapters begin theirs)."""
    message, package = diagnostic.message, diagnostic.package
    if package and not message.startswith(f"{package}:"):
        return f"{package}: {message}"
    return message
