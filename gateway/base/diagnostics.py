"""Diagnostics: every refusal, skip, fallback and unsupported API use becomes one.

A diagnostic code is declared once, up front, in a ``_codes.py`` of the package that raises
it, with its severity, what triggers it and what the user can do about it
(``define_code``). The catalogue (``gateway.base.codes``) finds every such module;
``docs/diagnostics.md`` is generated from it, and constructing a diagnostic with an
undeclared code is a programming error.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["Diagnostic", "DiagnosticCode", "Severity", "define_code"]


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    severity: Severity
    message: str
    package: str | None = None
    contribution: str | None = None
    hint: str | None = None

    def __post_init__(self) -> None:
        # Every emitted code must be declared (and so documented in docs/diagnostics.md).
        if self.code not in _DECLARED:
            raise ValueError(f"diagnostic code {self.code!r} is not in the catalogue")

    def __str__(self) -> str:
        return f"{self.severity.value}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "package": self.package,
            "contribution": self.contribution,
            "hint": self.hint,
        }


@dataclass(frozen=True, slots=True)
class DiagnosticCode:
    """A catalogued code; calling it makes a diagnostic of that code."""

    code: str
    severity: Severity
    trigger: str
    remedy: str
    lasting: bool = False
    """A fact about the installed package that stays true until it changes (e.g. it was
    built for another host version): found when its metadata is read, it is reported
    again by ``status`` and ``list``, not only at install."""
    module: str = field(default="", compare=False, repr=False)
    """The module that declared it (a package's ``_codes``): the catalogue's order."""
    incomplete: bool = False
    """Reported by a runtime as it registers, it says the start did not get everything it
    needed (a remote server that could not be reached, one MCP server of a plugin's that did
    not start): like an error, the registration is never cached and the next load starts the
    package again; unlike one, the package loaded (``status`` does not call it failed)."""
    refusal: bool = False
    """An error about one contribution a runtime refused or skipped as it registered (a tool
    outside OpenClaw's ``contracts.tools``, a malformed registration), not about the
    package's code: the package loaded — it is not a failed start, its registration is
    cached like any other (what decides the refusal is its content and the gateway's
    version, both in the cache's key) and ``status`` calls it active."""
    logs: bool = False
    """Reported by a runtime, its reason is in the package's log (a server's stderr: an
    MCP server that did not start says only ``Connection closed``): its hint is
    ``gateway logs ID``."""

    def __call__(
        self,
        message: str,
        *,
        package: str | None = None,
        contribution: str | None = None,
        hint: str | None = None,
        severity: Severity | None = None,
    ) -> Diagnostic:
        return Diagnostic(
            code=self.code,
            severity=severity or self.severity,
            message=message,
            package=package,
            contribution=contribution,
            hint=hint,
        )


_DECLARED: dict[str, DiagnosticCode] = {}


def define_code(
    code: str,
    severity: Severity,
    trigger: str,
    remedy: str,
    *,
    lasting: bool = False,
    incomplete: bool = False,
    refusal: bool = False,
    logs: bool = False,
) -> DiagnosticCode:
    """Declare a code, in the ``_codes.py`` of the package that raises it. Declaring the
    same code twice with different text, or in two modules, is a bug."""
    # The declaring module, as collections.namedtuple finds its caller's.
    module = sys._getframe(1).f_globals.get("__name__", "")
    entry = DiagnosticCode(
        code, severity, trigger, remedy, lasting, module, incomplete, refusal, logs
    )
    existing = _DECLARED.setdefault(code, entry)
    if existing != entry or existing.module != module:
        raise ValueError(f"diagnostic code {code!r} declared twice with different text")
    return existing


def declared_so_far() -> Mapping[str, DiagnosticCode]:
    """The codes of the ``_codes`` modules imported so far (``gateway.base.codes`` loads
    them all)."""
    return _DECLARED
