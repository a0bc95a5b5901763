"""Assembling one package's audit: its catalog entry (declared items), the code scan
(inferred items and risk signals), an observed load when there is one, and the adapters'
answers for every item and host. Nothing here knows an ecosystem."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gateway.audit import _codes
from gateway.audit._model import RANK, Cell, PackageAudit, Row, Verdict
from gateway.audit._scan import Budget, Scan, scan_package
from gateway.audit._support import (
    GATEWAY,
    HOSTS,
    Evidence,
    Found,
    HostKnowledge,
    HostLine,
    Item,
    SourceFile,
    Status,
    Support,
)
from gateway.base import Diagnostic
from gateway.model import AdapterSet, CatalogEntry
from gateway.sandbox import code_hosts

__all__ = ["Observed", "assemble", "knowledge_of"]

_CODE_RUNTIMES = frozenset({"node-sidecar", "python-sidecar", "nimlet-process"})


@dataclass(slots=True)
class Observed:
    """What an observed load contributes: items it saw registered (and where), the
    supports it determined for the gateway column, and what else it recorded."""

    items: list[Found] = field(default_factory=list)
    gateway: dict[tuple[str, str], Support] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def knowledge_of(adapters: AdapterSet) -> dict[str, HostKnowledge]:
    """The adapters' audit knowledge by ecosystem (an adapter without it is left out)."""
    found: dict[str, HostKnowledge] = {}
    for adapter in adapters.adapters:
        knowledge = getattr(adapter, "audit", None)
        if isinstance(knowledge, HostKnowledge):
            found[adapter.ecosystem] = knowledge
    return found


def assemble(
    package: PackageAudit,
    entry: CatalogEntry,
    knowledge: Mapping[str, HostKnowledge],
    *,
    scan: Scan | None = None,
    observed: Observed | None = None,
    budget: Budget | None = None,
) -> PackageAudit:
    scan = scan or scan_package(entry, budget)
    package.id, package.name, package.version = entry.id, entry.name, entry.version
    package.ecosystem, package.description = entry.ecosystem, entry.description
    package.runtime, package.root = entry.runtime, entry.root
    package.diagnostics = [*entry.diagnostics, *scan.diagnostics]
    package.risks = list(scan.risks)
    package.hosts = code_hosts(source.text for source in scan.reachable)
    own = knowledge.get(entry.ecosystem)
    found = _declared(entry)
    if own is not None:
        found += own.code_items(entry, scan.sources)
        package.targets = own.targets(entry, scan.sources)
    if observed is not None:
        found += observed.items
        package.diagnostics += observed.diagnostics
    package.rows = _rows(entry, found, knowledge, observed)
    package.verdicts = {host: _verdict(host, package.rows) for host in HOSTS}
    if own is not None:
        package.compatibility = _host_lines(own, entry, scan.sources, package.rows)
    return package


def _host_lines(
    own: HostKnowledge, entry: CatalogEntry, sources: Sequence[SourceFile], rows: Sequence[Row]
) -> list[HostLine]:
    """The release lines of the package's own host it works with: the optional
    ``host_lines`` answer of its adapter (what each line removed or refuses), and on every
    line what the host's column already says its host cannot use (an unsupported row)."""
    answer = getattr(own, "host_lines", None)
    if answer is None or entry.ecosystem not in HOSTS:
        return []
    refused = [
        (cell.support.code, f"{row.kind} {row.name}: {cell.support.reason}")
        for row in rows
        for cell in (row.cells[entry.ecosystem],)
        if cell.support.status is Status.UNSUPPORTED
    ]
    found: list[HostLine] = []
    for line in answer(entry, sources):
        if not isinstance(line, HostLine):
            continue
        if refused:
            code = line.code or refused[0][0]
            reasons = (*line.reasons, *(reason for _, reason in refused))
            line = HostLine(line.host, line.line, False, code, reasons)
        found.append(line)
    return found


def _declared(entry: CatalogEntry) -> list[Found]:
    found: list[Found] = []
    for contribution in entry.contributions:
        detail: dict[str, Any] = dict(contribution.detail)
        if contribution.description:
            detail.setdefault("description", contribution.description)
        where = detail.get("path") or _manifest(entry)
        item = Item(contribution.kind, contribution.name, entry.ecosystem, detail)
        found.append(Found(item, str(where), None, Evidence.DECLARED))
    if entry.runtime in _CODE_RUNTIMES:
        for rel in entry.entries:
            item = Item("extension", rel, entry.ecosystem, {"runtime": entry.runtime})
            found.append(Found(item, rel, None, Evidence.DECLARED))
    for key in entry.config_keys:
        found.append(
            Found(Item("config", key, entry.ecosystem), _manifest(entry), None, Evidence.DECLARED)
        )
    for name in entry.secrets:
        found.append(
            Found(Item("secret", name, entry.ecosystem), _manifest(entry), None, Evidence.DECLARED)
        )
    return found


def _manifest(entry: CatalogEntry) -> str:
    return {
        "nanobot": "nanobot.extension.json",
        "openclaw": "openclaw.plugin.json",
        "agent-plugins": "plugin.json",
        "gemini": "gemini-extension.json",
        "codex": ".codex-plugin/plugin.json",
        "claude": ".claude-plugin/plugin.json",
        "nimlet": "extension.json" if entry.runtime == "nimlet-process" else "manifest",
    }.get(entry.ecosystem, "package.json")


def _rows(
    entry: CatalogEntry,
    found: Sequence[Found],
    knowledge: Mapping[str, HostKnowledge],
    observed: Observed | None,
) -> list[Row]:
    merged: dict[tuple[str, str], tuple[Found, list[Evidence], int]] = {}
    # A call the scan could not name is shown by what the load saw it register instead.
    seen_apis = {
        str(f.item.detail.get("api"))
        for f in found
        if f.evidence is Evidence.OBSERVED and f.item.kind != "api"
    }
    found = [
        f for f in found
        if not (
            f.evidence is Evidence.INFERRED and f.item.kind == "api" and f.item.name in seen_apis
        )
    ]  # fmt: skip
    for one in found:
        key = (one.item.kind, one.item.name)
        if key not in merged:
            merged[key] = (one, [one.evidence], 1)
            continue
        first, evidence, count = merged[key]
        if one.evidence not in evidence:
            evidence.append(one.evidence)
        # The observed source (the file that really registered it) is the better one.
        better = (
            one
            if one.evidence is Evidence.OBSERVED and first.evidence is not Evidence.OBSERVED
            else first
        )
        merged[key] = (better, evidence, count + 1)
    rows = []
    for key, (first, evidence, count) in merged.items():
        item = first.item
        cells = {host: _cell(host, entry, item, knowledge) for host in HOSTS}
        if observed is not None:
            _observe_cell(cells, key, evidence, observed)
        source = f"{first.path}:{first.line}" if first.line else first.path
        detail = {k: v for k, v in item.detail.items() if _jsonable(v)}
        if count > 1:
            detail["occurrences"] = count
        evidence.sort(key=list(Evidence).index)
        rows.append(Row(item.kind, item.name, evidence, cells, source, detail))
    rows.sort(key=lambda row: (_KIND_ORDER.get(row.kind, 99), row.kind, row.name))
    return rows


_KIND_ORDER = {
    kind: index
    for index, kind in enumerate(
        ("extension", "tool", "command", "hook", "skill", "prompt", "theme", "config", "secret")
    )
}


def _cell(
    host: str, entry: CatalogEntry, item: Item, knowledge: Mapping[str, HostKnowledge]
) -> Cell:
    if host == GATEWAY:
        own = knowledge.get(entry.ecosystem)
        if own is None:
            return Cell(
                _unknown(f"no adapter knows what the gateway does with {entry.ecosystem} packages")
            )
        return Cell(_safe(lambda: own.gateway_support(entry, item)))
    theirs = knowledge.get(host)
    if theirs is None:
        return Cell(_unknown(f"no adapter for {host} says what it accepts"))
    return Cell(_safe(lambda: theirs.host_support(entry, item)))


def _observe_cell(
    cells: dict[str, Cell], key: tuple[str, str], evidence: list[Evidence], observed: Observed
) -> None:
    support = observed.gateway.get(key)
    if support is not None:
        cells[GATEWAY] = Cell(support, observed=True)
        return
    if Evidence.OBSERVED in evidence or key[0] not in ("tool", "command", "hook"):
        return
    if cells[GATEWAY].support.status not in (Status.RUNS, Status.PARTIAL):
        return  # it would not run anyway; that answer says more
    # Declared or inferred, but not registered by the load: what the gateway would do
    # stays, said to be unconfirmed.
    current = cells[GATEWAY].support
    cells[GATEWAY] = Cell(
        Support(
            current.status,
            _codes.NOT_REGISTERED.code,
            f"not registered when loaded; once registered: {current.reason}",
        ),
        observed=True,
    )


def _safe(answer: Any) -> Support:
    try:
        support = answer()
    except Exception as error:  # a bug in an adapter must not end the audit
        return _unknown(f"the adapter's knowledge failed: {error!r}")
    return support if isinstance(support, Support) else _unknown("the adapter gave no answer")


def _unknown(reason: str) -> Support:
    return Support(Status.UNSUPPORTED, _codes.AUDIT_FOREIGN_PACKAGE.code, reason)


def _jsonable(value: Any) -> bool:
    return isinstance(value, str | int | float | bool | type(None) | list | dict)


def _verdict(host: str, rows: Sequence[Row]) -> Verdict:
    counts: dict[str, int] = {}
    for row in rows:
        status = row.cells[host].support.status
        counts[status.value] = counts.get(status.value, 0) + 1
    judged = {s for s in Status if counts.get(s.value) and s is not Status.NOT_APPLICABLE}
    if not judged:
        status = Status.NOT_APPLICABLE
    elif judged == {Status.RUNS}:
        status = Status.RUNS
    elif Status.RUNS in judged or Status.PARTIAL in judged:
        status = Status.PARTIAL
    elif Status.METADATA_ONLY in judged:
        status = Status.METADATA_ONLY
    else:
        status = Status.UNSUPPORTED
    order = sorted(counts, key=lambda name: RANK[Status(name)])
    reason = ", ".join(f"{counts[name]} {name}" for name in order) or "nothing to judge"
    return Verdict(status, reason, counts)
