"""The text report: a header and verdicts per package, the contribution-by-host matrix with
short status labels, why what does not run in the gateway does not, and the risk signals."""

from __future__ import annotations

from io import StringIO

from gateway.audit._model import AuditReport, PackageAudit, Row
from gateway.audit._support import GATEWAY, HOSTS, Evidence, Status
from gateway.base import counted

__all__ = ["LABELS", "render_text"]

LABELS = {
    Status.RUNS: "runs",
    Status.PARTIAL: "partial",
    Status.METADATA_ONLY: "meta",
    Status.UNSUPPORTED: "no",
    Status.NOT_APPLICABLE: "-",
}
_EVIDENCE = {Evidence.DECLARED: "decl", Evidence.INFERRED: "code", Evidence.OBSERVED: "load"}
LEGEND = (
    "runs: runs with its ecosystem's semantics · partial: runs with limits · meta: listed, "
    "nothing runs · no: unsupported · -: not applicable · evidence: decl(ared in metadata), "
    "code (found in its code, not run), load (observed while loading)"
)


def render_text(report: AuditReport) -> str:
    out = StringIO()
    mode = "static (metadata and code scan; nothing ran)"
    if report.mode == "observed":
        mode = f"observed (loaded in a throwaway sandbox; confirmed by {report.confirmed_by})"
    out.write(f"gateway audit — {counted(len(report.packages), 'package')}, {mode}\n")
    for package in report.packages:
        out.write("\n")
        _package(out, package)
    if len(report.packages) > 1:
        out.write("\n")
        _summary(out, report)
    out.write(f"\n{LEGEND}\n")
    return out.getvalue()


def _package(out: StringIO, package: PackageAudit) -> None:
    if not package.ok:
        code = package.error.code if package.error else ""
        message = package.error.message if package.error else ""
        out.write(f"✗ {package.source}: not audited [{code}]\n  {message}\n")
        return
    out.write(f"■ {package.label} — {package.ecosystem} package, runtime {package.runtime}\n")
    out.write(f"  from {package.source}\n")
    if package.description:
        out.write(f"  {package.description[:160]}\n")
    for target in package.targets:
        note = f" ({target.note})" if target.note else ""
        out.write(f"  targets {target.api}: {target.value}{note}\n")
    if package.compatibility:
        works = " · ".join(package.works_with) or "no current host version"
        out.write(f"  works with: {works}\n")
        for lines, refused, reasons in package.refusals():
            why = "; ".join(reasons[:3]) + (" …" if len(reasons) > 3 else "")
            out.write(f"    not {lines} [{refused}]: {why}\n")
    verdicts = " · ".join(f"{host} {LABELS[package.verdicts[host].status]}" for host in HOSTS)
    out.write(f"  verdicts: {verdicts}\n")
    if package.hosts:
        out.write(f"  hosts its code names: {', '.join(package.hosts)}\n")
    if package.observation is not None:
        seen = package.observation
        state = "loaded" if seen.loaded else f"did not load: {seen.error}"
        out.write(f"  observed: {state} in {seen.seconds:.1f} s; sandbox: {seen.sandbox}\n")
    out.write("\n")
    _matrix(out, package.rows)
    _gateway_reasons(out, package.rows)
    if package.risks:
        out.write(f"\n  risk signals ({len(package.risks)}):\n")
        for risk in package.risks:
            where = (
                f" {risk.path}:{risk.line}"
                if risk.path and risk.line
                else (f" {risk.path}" if risk.path else "")
            )
            out.write(f"    {risk.severity:7} {risk.code}{where}: {risk.message}\n")
    problems = [d for d in package.diagnostics if d.severity.value != "info"]
    if problems:
        out.write(f"\n  diagnostics ({len(problems)}):\n")
        for diagnostic in problems:
            out.write(
                f"    {diagnostic.severity.value:7} {diagnostic.code}: {diagnostic.message}\n"
            )


def _matrix(out: StringIO, rows: list[Row]) -> None:
    headers = ["KIND", "NAME", *(h.upper() for h in HOSTS), "EVIDENCE", "SOURCE"]
    table = [
        [
            row.kind,
            _clip(row.name, 40),
            *(
                LABELS[row.cells[h].support.status] + ("*" if row.cells[h].observed else "")
                for h in HOSTS
            ),
            "+".join(_EVIDENCE[e] for e in row.evidence),
            _clip(row.source or "", 48),
        ]
        for row in rows
    ]
    widths = (
        [max(len(headers[i]), *(len(r[i]) for r in table)) for i in range(len(headers))]
        if table
        else [len(h) for h in headers]
    )
    out.write(
        "  " + "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip() + "\n"
    )
    for line in table:
        out.write(
            "  " + "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() + "\n"
        )
    if not table:
        out.write("  (no contributions found)\n")


def _gateway_reasons(out: StringIO, rows: list[Row]) -> None:
    limited = [row for row in rows if row.cells[GATEWAY].support.status is not Status.RUNS]
    if not limited:
        return
    out.write("\n  not fully running in the gateway:\n")
    for row in limited:
        cell = row.cells[GATEWAY].support
        out.write(f"    {row.kind} {row.name}: {cell.status.value} [{cell.code}] {cell.reason}\n")


def _summary(out: StringIO, report: AuditReport) -> None:
    out.write("summary\n")
    headers = ["PACKAGE", "ECOSYSTEM", *(h.upper() for h in HOSTS), "RISKS"]
    table = []
    for package in report.packages:
        if package.ok:
            cells = [LABELS[package.verdicts[h].status] for h in HOSTS]
            table.append(
                [_clip(package.label, 44), package.ecosystem, *cells, str(len(package.risks))]
            )
        else:
            table.append([_clip(package.source, 44), "-", *(["?"] * len(HOSTS)), "-"])
    widths = [max(len(headers[i]), *(len(r[i]) for r in table)) for i in range(len(headers))]
    out.write(
        "  " + "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip() + "\n"
    )
    for line in table:
        out.write(
            "  " + "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() + "\n"
        )


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
