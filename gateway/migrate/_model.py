"""What a migration knows and says: the package, what it contributes (and how that is
known), and the notes MIGRATION.md turns into its two lists."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gateway.base import Diagnostic, DiagnosticCode, Severity
from gateway.model import CatalogEntry

__all__ = ["Carried", "Migration", "Observation", "Package"]

Known = Literal["observed", "recorded", "declared"]


@dataclass(slots=True)
class Observation:
    """The package's tools, commands and hooks. ``known``: ``observed`` (a throwaway load,
    ``--load``), ``recorded`` (the registration its last start left in the gateway's
    cache), ``declared`` (its manifest alone: complete only where the format declares
    everything, as nanobot's does)."""

    known: Known
    tools: list[dict[str, Any]] = field(default_factory=list)
    """``{name, description, input_schema, capabilities}``."""
    commands: list[dict[str, str]] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    """The events its hooks subscribe to (as the registry names them)."""
    named_hooks: list[str] = field(default_factory=list)
    """Hooks a manifest declares by name (nanobot's ``hook`` contributions), whose events
    are known only when they run."""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    complete: bool = True
    """False: tools, commands and hooks exist only at run time and were not seen."""


@dataclass(slots=True)
class Package:
    entry: CatalogEntry
    root: Path
    """The package's files (the installed copy, or a fetched one for copying)."""
    installed: bool
    """In the gateway home, so ``gateway serve --package`` can serve it."""
    active: bool = False
    pending_gates: list[str] = field(default_factory=list)
    """Commands that pass the gates it has not passed yet."""

    @property
    def id(self) -> str:
        return self.entry.id


@dataclass(frozen=True, slots=True)
class Carried:
    kind: str
    name: str
    how: str


@dataclass(slots=True)
class Migration:
    """The result: what was written, what carried over, and what did not (with codes)."""

    target: str
    out: Path
    package: Package
    observation: Observation
    files: list[Path] = field(default_factory=list)
    carried: list[Carried] = field(default_factory=list)
    notes: list[Diagnostic] = field(default_factory=list)
    usage: str = ""
    """How to use the output (MIGRATION.md's recipe)."""
    serve_args: list[str] = field(default_factory=list)
    """Arguments the output gives ``gateway serve`` beyond the mode and the package (the
    gateway home, when it is not the default one)."""

    def serve_command(self, gateway: list[str], mode: str) -> list[str]:
        return [*gateway, "serve", mode, "--package", self.package.id, *self.serve_args]

    def carry(self, kind: str, name: str, how: str) -> None:
        self.carried.append(Carried(kind, name, how))

    def note(
        self,
        code: DiagnosticCode,
        message: str,
        contribution: str | None = None,
        severity: Severity | None = None,
    ) -> None:
        self.notes.append(
            code(message, package=self.package.id, contribution=contribution, severity=severity)
        )

    @property
    def ok(self) -> bool:
        return not any(d.severity is Severity.ERROR for d in self.notes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "out": str(self.out),
            "package": self.package.id,
            "ecosystem": self.package.entry.ecosystem,
            "contributions_known": self.observation.known,
            "files": [str(p) for p in self.files],
            "carried": [{"kind": c.kind, "name": c.name, "how": c.how} for c in self.carried],
            "not_carried": [d.to_dict() for d in self.notes],
        }
