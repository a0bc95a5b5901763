"""The audit report: one model, rendered to every format, serialised by ``to_dict`` into the
shape ``docs/audit-schema.json`` describes (``SCHEMA_VERSION``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gateway.audit._support import HOSTS, Evidence, HostLine, Status, Support, Target
from gateway.base import Diagnostic

__all__ = [
    "SCHEMA_ID",
    "SCHEMA_VERSION",
    "AuditReport",
    "Observation",
    "PackageAudit",
    "Risk",
    "Row",
    "Verdict",
]

SCHEMA_VERSION = 2
"""2: each package says which release lines of its own host it works with
(``compatibility``)."""
SCHEMA_ID = "https://extension-gateway.dev/schemas/audit-v2.json"

# How good each status is, for verdicts and sorting (best first).
RANK: dict[Status, int] = {
    Status.RUNS: 0,
    Status.PARTIAL: 1,
    Status.METADATA_ONLY: 2,
    Status.UNSUPPORTED: 3,
    Status.NOT_APPLICABLE: 4,
}


@dataclass(slots=True)
class Cell:
    support: Support
    observed: bool = False
    """The status comes from the observed load, not from the host's documents."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.support.status.value,
            "code": self.support.code,
            "reason": self.support.reason,
            "observed": self.observed,
        }


@dataclass(slots=True)
class Row:
    kind: str
    name: str
    evidence: list[Evidence]
    cells: dict[str, Cell]
    source: str | None = None
    """Where it comes from: a manifest, or ``file:line`` in the code."""
    detail: dict[str, Any] = field(default_factory=dict)

    @property
    def observed(self) -> bool:
        return Evidence.OBSERVED in self.evidence

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "evidence": [e.value for e in self.evidence],
            "source": self.source,
            "detail": self.detail,
            "cells": {host: self.cells[host].to_dict() for host in HOSTS},
        }


@dataclass(slots=True)
class Verdict:
    status: Status
    reason: str
    counts: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status.value, "reason": self.reason, "counts": self.counts}


@dataclass(frozen=True, slots=True)
class Risk:
    kind: str
    code: str
    severity: str
    message: str
    path: str | None = None
    line: int | None = None
    excerpt: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "excerpt": self.excerpt,
        }


@dataclass(slots=True)
class Observation:
    """What the throwaway load saw."""

    loaded: bool
    runtime: str
    sandbox: str
    """The policy it ran under, in one line (or why none applied)."""
    seconds: float
    calls: list[dict[str, Any]] = field(default_factory=list)
    """Every API call recorded while it loaded: ``{api, source, count}``."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    """What it asked the host while loading (questions, host requests, updates)."""
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "loaded": self.loaded,
            "runtime": self.runtime,
            "sandbox": self.sandbox,
            "seconds": round(self.seconds, 3),
            "calls": self.calls,
            "requests": self.requests,
            "error": self.error,
        }


@dataclass(slots=True)
class PackageAudit:
    source: str
    source_kind: str
    ok: bool = True
    """False: the package could not be fetched or read (``error`` says why)."""
    error: Diagnostic | None = None
    id: str = ""
    name: str = ""
    version: str = ""
    ecosystem: str = ""
    description: str = ""
    runtime: str = ""
    root: str = ""
    targets: list[Target] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    risks: list[Risk] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    """The hosts URLs in its reachable code name (what a ``network:HOST`` grant would open)."""
    observation: Observation | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    compatibility: list[HostLine] = field(default_factory=list)
    """The release lines of its ecosystem's host it works with, and why not (newest first)."""

    @property
    def works_with(self) -> list[str]:
        """ "Pi 1.6", "OpenClaw 2026.11 and 2026.9.36 LTS": the lines it works with, one
        phrase per host."""
        by_host: dict[str, list[HostLine]] = {}
        for line in self.compatibility:
            if line.works:
                by_host.setdefault(line.host, []).append(line)
        phrases = []
        for lines in by_host.values():
            names = [line.line for line in lines]
            tail = f"{', '.join(names[:-1])} and {names[-1]}" if len(names) > 1 else names[0]
            phrases.append(f"{lines[0].label.removesuffix(lines[0].line)}{tail}")
        return phrases

    def refusals(self) -> list[tuple[str, str | None, tuple[str, ...]]]:
        """The lines it does not work with, those refused for the same reasons together:
        ``("OpenClaw 2026.11, 2026.10", code, reasons)``."""
        groups: dict[tuple[str, str | None, tuple[str, ...]], list[HostLine]] = {}
        for line in self.compatibility:
            if not line.works:
                groups.setdefault((line.host, line.code, line.reasons), []).append(line)
        return [
            (lines[0].label + "".join(f", {line.line}" for line in lines[1:]), code, reasons)
            for (_, code, reasons), lines in groups.items()
        ]

    @property
    def label(self) -> str:
        return " ".join(part for part in (self.id or self.source, self.version) if part)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "source_kind": self.source_kind,
            "ok": self.ok,
            "error": self.error.to_dict() if self.error else None,
            "id": self.id,
            "name": self.name,
            "version": self.version,
            "ecosystem": self.ecosystem,
            "description": self.description,
            "runtime": self.runtime,
            "targets": [{"api": t.api, "value": t.value, "note": t.note} for t in self.targets],
            "verdicts": {host: v.to_dict() for host, v in self.verdicts.items()},
            "rows": [row.to_dict() for row in self.rows],
            "risks": [risk.to_dict() for risk in self.risks],
            "hosts": list(self.hosts),
            "observation": self.observation.to_dict() if self.observation else None,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "compatibility": [
                {
                    "host": line.host,
                    "line": line.line,
                    "works": line.works,
                    "code": line.code,
                    "reasons": list(line.reasons),
                }
                for line in self.compatibility
            ],
        }


@dataclass(slots=True)
class AuditReport:
    mode: str
    """``static`` (metadata and a code scan) or ``observed`` (``--load``)."""
    generator: str
    packages: list[PackageAudit] = field(default_factory=list)
    confirmed_by: str | None = None
    """How ``--load`` was confirmed: ``--yes`` or ``prompt``; None in static mode."""

    def summary(self) -> dict[str, Any]:
        verdicts: dict[str, dict[str, int]] = {host: {} for host in HOSTS}
        for package in self.packages:
            for host, verdict in package.verdicts.items():
                counts = verdicts[host]
                counts[verdict.status.value] = counts.get(verdict.status.value, 0) + 1
        return {
            "packages": len(self.packages),
            "failed": sum(1 for p in self.packages if not p.ok),
            "risks": sum(len(p.risks) for p in self.packages),
            "verdicts": verdicts,
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "$schema": SCHEMA_ID,
            "schema_version": SCHEMA_VERSION,
            "generator": self.generator,
            "mode": self.mode,
            "confirmed_by": self.confirmed_by,
            "hosts": list(HOSTS),
            "statuses": [s.value for s in Status],
            "summary": self.summary(),
            "packages": [package.to_dict() for package in self.packages],
        }
