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
    lasting: bool = False
    """A fact about the installed package that stays true until it changes (e.g. it was
    built for another host version): found when its metadata is read, it is reported
    again by ``status`` and ``list``, not only at install."""

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


def define_code(
    code: str, severity: Severity, trigger: str, remedy: str, *, lasting: bool = False
) -> DiagnosticCode:
    """Declare a code. Declaring the same code twice with different text is a bug."""
    entry = DiagnosticCode(code, severity, trigger, remedy, lasting)
    existing = _CATALOGUE.setdefault(code, entry)
    if existing != entry:
        raise ValueError(f"diagnostic code {code!r} declared twice with different text")
    return existing


def catalogue() -> Mapping[str, DiagnosticCode]:
    """Every code declared so far (import the modules that declare them first)."""
    return dict(_CATALOGUE)


REPEAT_LIMIT = 50
"""Diagnostics of one code about one package kept before further ones are only counted."""

_REPEATED = define_code(
    "diagnostics.repeated",
    Severity.INFO,
    "More diagnostics of one code about one package arrived than are kept (a flood: e.g. an "
    "extension writing thousands of lines that are not JSON).",
    "Look at the first ones kept; the rest are counted (Diagnostics.suppressed).",
)


@dataclass(slots=True)
class Diagnostics:
    """An ordered collection with an optional live listener (the shell prints as they come).

    Each problem is said once: a diagnostic identical to one kept (code, severity, package,
    contribution, message, hint) is not kept again, nor told to the listener, but counted in
    ``suppressed``; ``since`` still counts it as raised again. A flood cannot grow it without
    bound: of each (code, package) the first ``REPEAT_LIMIT`` are kept, then one
    ``diagnostics.repeated`` says so, and the rest are counted in ``suppressed``."""

    items: list[Diagnostic] = field(default_factory=list)
    listener: Callable[[Diagnostic], None] | None = None
    limit: int = REPEAT_LIMIT
    suppressed: dict[tuple[str, str | None], int] = field(default_factory=dict)
    _counts: dict[tuple[str, str | None], int] = field(default_factory=dict)
    _raised: dict[Diagnostic, int] = field(default_factory=dict)
    """Each kept diagnostic → when it was last raised (``mark``'s count)."""
    _added: int = 0

    def add(self, diagnostic: Diagnostic) -> Diagnostic:
        self._added += 1
        key = (diagnostic.code, diagnostic.package)
        if diagnostic in self._raised:
            self._raised[diagnostic] = self._added
            self.suppressed[key] = self.suppressed.get(key, 0) + 1
            return diagnostic
        seen = self._counts[key] = self._counts.get(key, 0) + 1
        if seen > self.limit:
            self.suppressed[key] = self.suppressed.get(key, 0) + 1
            if seen == self.limit + 1:
                who = f"{diagnostic.package}: " if diagnostic.package else ""
                self._keep(
                    _REPEATED(
                        f"{who}more than {self.limit} {diagnostic.code} diagnostics; further "
                        "ones are counted, not kept",
                        package=diagnostic.package,
                    )
                )
            return diagnostic
        self._keep(diagnostic)
        return diagnostic

    def _keep(self, diagnostic: Diagnostic) -> None:
        self._raised[diagnostic] = self._added
        self.items.append(diagnostic)
        if self.listener is not None:
            self.listener(diagnostic)

    def extend(self, diagnostics: list[Diagnostic]) -> None:
        for diagnostic in diagnostics:
            self.add(diagnostic)

    def mark(self) -> int:
        """A point to ask ``since`` from."""
        return self._added

    def since(self, mark: int) -> list[Diagnostic]:
        """What was raised after ``mark`` (also a problem said once before: it is raised
        again), in the order first said."""
        return [d for d in self.items if self._raised.get(d, 0) > mark]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)
