"""Batches for CI: reading a list of sources, and deciding whether a report fails a gate.

``--fail-on`` takes ``unsupported``, ``partial`` or ``risk``, each optionally for one host
(``unsupported:nanobot``; the gateway by default):

- ``unsupported``: some contribution is unsupported on the host;
- ``partial``: some contribution does not fully run there (partial, metadata-only or
  unsupported);
- ``risk``: some risk signal of warning severity was found.

A package that could not be fetched or read always fails the batch.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gateway.audit._model import AuditReport
from gateway.audit._support import GATEWAY, HOSTS, Status
from gateway.base import counted

__all__ = ["FAIL_ON", "FailOn", "failures", "parse_fail_on", "read_sources"]

FAIL_ON: tuple[str, ...] = ("unsupported", "partial", "risk")
_NOT_RUNNING = {
    "unsupported": {Status.UNSUPPORTED},
    "partial": {Status.PARTIAL, Status.METADATA_ONLY, Status.UNSUPPORTED},
}


@dataclass(frozen=True, slots=True)
class FailOn:
    what: str
    host: str = GATEWAY

    def __str__(self) -> str:
        return self.what if self.host == GATEWAY else f"{self.what}:{self.host}"


def parse_fail_on(values: Iterable[str]) -> list[FailOn]:
    """``unsupported``, ``partial:pi``, ``risk`` (comma-separated or repeated); raises
    ``ValueError`` naming what is wrong."""
    gates = []
    for value in values:
        for part in filter(None, (p.strip() for p in value.split(","))):
            what, _, host = part.partition(":")
            if what not in FAIL_ON:
                raise ValueError(f"--fail-on {part!r}: use one of {', '.join(FAIL_ON)}")
            if host and host not in HOSTS:
                raise ValueError(f"--fail-on {part!r}: unknown host; use one of {', '.join(HOSTS)}")
            if what == "risk" and host:
                raise ValueError("--fail-on risk takes no host")
            gates.append(FailOn(what, host or GATEWAY))
    return gates


def failures(report: AuditReport, gates: Iterable[FailOn]) -> list[str]:
    """Why the report fails the gates, one line each (empty: it passes)."""
    found = [f"{p.source}: not audited: {p.error.message}" for p in report.packages if p.error]
    for gate in gates:
        for package in report.packages:
            if not package.ok:
                continue
            if gate.what == "risk":
                risky = [r for r in package.risks if r.severity in ("warning", "error")]
                if risky:
                    signals = counted(len(risky), "risk signal")
                    found.append(f"{package.label}: {signals}, e.g. {risky[0].message}")
                continue
            bad = [
                row for row in package.rows
                if row.cells[gate.host].support.status in _NOT_RUNNING[gate.what]
            ]  # fmt: skip
            if bad:
                names = ", ".join(f"{r.kind} {r.name}" for r in bad[:3])
                more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
                found.append(f"{package.label}: {len(bad)} {gate} on {gate.host}: {names}{more}")
    return found


def read_sources(path: Path) -> list[str]:
    """One source per line; blank lines and ``#`` comments skipped. Raises ``OSError``."""
    text = path.read_text(encoding="utf-8")
    sources = []
    for line in text.splitlines():
        stripped = line.split(" #", 1)[0].strip() if not line.lstrip().startswith("#") else ""
        if stripped:
            sources.append(stripped)
    return sources
