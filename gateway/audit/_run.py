"""Auditing packages: one after another, each fetched (never installed), inspected, scanned,
loaded in a throwaway sandbox when asked, and assembled. A package that cannot be fetched or
read is a report row with its reason; it never ends the batch."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from importlib import metadata

import anyio

from gateway.audit import _codes
from gateway.audit._assemble import assemble, knowledge_of
from gateway.audit._model import AuditReport, PackageAudit
from gateway.audit._scan import Budget, scan_package
from gateway.audit._sources import locate
from gateway.base import Diagnostic, GatewayConfig
from gateway.model import AdapterSet
from gateway.packages import SourceError, load_adapters

__all__ = ["Progress", "audit", "audit_packages"]

Progress = Callable[[int, int, str], None]
"""Called before each package with (index, total, source), and once more at the end with
(total, total, "")."""


def _version() -> str:
    try:
        return f"gateway {metadata.version('extension-gateway')}"
    except metadata.PackageNotFoundError:
        return "gateway (source tree)"


def audit(
    sources: Sequence[str],
    *,
    load: bool = False,
    confirmed_by: str | None = None,
    config: GatewayConfig | None = None,
    adapters: AdapterSet | None = None,
    progress: Progress | None = None,
) -> AuditReport:
    """Audit ``sources`` (folders, tarballs, npm specs, git URLs, installed ids).

    ``load=True`` runs each package's code in a throwaway sandbox to observe what it
    registers (say how the user confirmed it in ``confirmed_by``). Blocking; from async code
    use ``audit_packages``."""
    return anyio.run(
        lambda: audit_packages(
            sources,
            load=load,
            confirmed_by=confirmed_by,
            config=config,
            adapters=adapters,
            progress=progress,
        )
    )


async def audit_packages(
    sources: Sequence[str],
    *,
    load: bool = False,
    confirmed_by: str | None = None,
    config: GatewayConfig | None = None,
    adapters: AdapterSet | None = None,
    progress: Progress | None = None,
    budget: Budget | None = None,
) -> AuditReport:
    config = config or GatewayConfig()
    adapters = adapters or load_adapters()
    knowledge = knowledge_of(adapters)
    report = AuditReport(
        mode="observed" if load else "static",
        generator=_version(),
        confirmed_by=confirmed_by if load else None,
    )
    total = len(sources)
    for index, text in enumerate(sources):
        if progress is not None:
            progress(index, total, text)
        package = PackageAudit(source=text, source_kind="")
        try:
            with locate(text, config, runnable=load) as located:
                package.source_kind = located.kind
                entry = await anyio.to_thread.run_sync(adapters.inspect, located.root)
                if entry.ecosystem == "unknown":
                    first = entry.diagnostics[0].message if entry.diagnostics else "no package"
                    raise SourceError(first.replace(str(located.root), text))
                scan = await anyio.to_thread.run_sync(scan_package, entry, budget)
                observed = None
                if load:
                    from gateway.audit._observe import observe

                    observed = await observe(entry, config, knowledge, package)
                assemble(package, entry, knowledge, scan=scan, observed=observed)
                package.diagnostics = _at_source(package.diagnostics, str(located.root), text)
                package.root = text if located.kind not in ("local", "installed") else package.root
        except SourceError as error:
            package.ok = False
            package.error = _codes.FETCH_FAILED(str(error), package=text)
        report.packages.append(package)
    if progress is not None:
        progress(total, total, "")
    return report


def _at_source(diagnostics: list[Diagnostic], staged: str, source: str) -> list[Diagnostic]:
    """Diagnostics name the staging folder; the user knows the package by its source."""
    if staged == source:
        return diagnostics
    return [dataclasses.replace(d, message=d.message.replace(staged, source)) for d in diagnostics]
