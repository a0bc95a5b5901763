"""Diagnostics: every refusal, skip, fallback and unsupported API use becomes one.

A diagnostic code is declared once, up front, with its severity, what triggers it and what
the user can do about it. ``docs/diagnostics.md`` lists the same catalogue; a test keeps the
two in step, and constructing a diagnostic with an undeclared code is a programming error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = [
    "Diagnostic",
    "DiagnosticCode",
    "Diagnostics",
    "Severity",
    "catalogue",
    "define_code",
]


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
        # Every emitted code must be catalogued (and so documented in docs/diagnostics.md).
        if self.code not in _CATALOGUE:
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


_CATALOGUE: dict[str, DiagnosticCode] = {}


def define_code(code: str, severity: Severity, trigger: str, remedy: str) -> DiagnosticCode:
    """Declare a code. Declaring the same code twice with different text is a bug."""
    entry = DiagnosticCode(code, severity, trigger, remedy)
    existing = _CATALOGUE.setdefault(code, entry)
    if existing != entry:
        raise ValueError(f"diagnostic code {code!r} declared twice with different text")
    return existing


def catalogue() -> Mapping[str, DiagnosticCode]:
    """Every code declared so far (import the modules that declare them first)."""
    return dict(_CATALOGUE)


@dataclass(slots=True)
class Diagnostics:
    """An ordered collection with an optional live listener (the shell prints as they come)."""

    items: list[Diagnostic] = field(default_factory=list)
    listener: Callable[[Diagnostic], None] | None = None

    def add(self, diagnostic: Diagnostic) -> Diagnostic:
        self.items.append(diagnostic)
        if self.listener is not None:
            self.listener(diagnostic)
        return diagnostic

    def extend(self, diagnostics: list[Diagnostic]) -> None:
        for diagnostic in diagnostics:
            self.add(diagnostic)

    def since(self, mark: int) -> list[Diagnostic]:
        return self.items[mark:]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)
