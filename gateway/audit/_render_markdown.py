"""The Markdown report, for a pull-request comment: a summary table across packages, then
per package its verdicts, the matrix (status emoji per host) and what does not fully run in
the gateway, with codes. Details sit in ``<details>`` blocks so the comment stays short."""

from __future__ import annotations

from gateway.audit._model import AuditReport, PackageAudit
from gateway.audit._support import GATEWAY, HOSTS, Status
from gateway.base import counted

__all__ = ["render_markdown"]

MARKS = {
    Status.RUNS: "✅ runs",
    Status.PARTIAL: "🟡 partial",
    Status.METADATA_ONLY: "📄 metadata-only",
    Status.UNSUPPORTED: "❌ unsupported",
    Status.NOT_APPLICABLE: "➖",
}


def _cell(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def render_markdown(report: AuditReport) -> str:
    lines = [f"## gateway audit ({report.mode})", ""]
    lines += ["| package | ecosystem | " + " | ".join(HOSTS) + " | risks |"]
    lines += ["|---|---|" + "---|" * len(HOSTS) + "---|"]
    for package in report.packages:
        if not package.ok:
            reason = package.error.message if package.error else ""
            lines.append(
                f"| `{_cell(package.source)}` | — | "
                + " | ".join("❔" for _ in HOSTS)
                + f" | not audited: {_cell(reason)} |"
            )
            continue
        verdicts = " | ".join(MARKS[package.verdicts[h].status] for h in HOSTS)
        lines.append(
            f"| `{_cell(package.label)}` | {package.ecosystem} | {verdicts} | {len(package.risks)} |"
        )
    for package in report.packages:
        if package.ok:
            lines += ["", *_package(package)]
    lines += ["", "<sub>✅ runs · 🟡 partial · 📄 metadata-only · ❌ unsupported · ➖ not applicable; "
              "* observed while loading. Codes: docs/diagnostics.md.</sub>", ""]  # fmt: skip
    return "\n".join(lines)


def _package(package: PackageAudit) -> list[str]:
    lines = [f"### {package.label} ({package.ecosystem})", ""]
    for target in package.targets:
        lines.append(
            f"- targets **{_cell(target.api)}**: `{_cell(target.value)}` {_cell(target.note)}"
        )
    if package.compatibility:
        works = " · ".join(package.works_with) or "no current host version"
        lines.append(f"- works with: **{_cell(works)}**")
        for names, code, reasons in package.refusals():
            why = _cell("; ".join(reasons[:3]))
            lines.append(f"  - not {_cell(names)} (`{code}`): {why}")
    if package.hosts:
        hosts = ", ".join(f"`{_cell(host)}`" for host in package.hosts)
        lines.append(f"- hosts its code names: {hosts}")
    limited = [row for row in package.rows if row.cells[GATEWAY].support.status is not Status.RUNS]
    if limited:
        lines += ["", "**Not fully running in the gateway**", ""]
        lines += ["| contribution | status | code | reason |", "|---|---|---|---|"]
        for row in limited:
            cell = row.cells[GATEWAY].support
            lines.append(
                f"| {row.kind} `{_cell(row.name)}` | {MARKS[cell.status]} | `{cell.code}` | {_cell(cell.reason)} |"
            )
    lines += ["", f"<details><summary>All {len(package.rows)} contributions by host</summary>", ""]
    lines += ["| kind | name | " + " | ".join(HOSTS) + " | evidence |"]
    lines += ["|---|---|" + "---|" * len(HOSTS) + "---|"]
    for row in package.rows:
        marks = " | ".join(
            MARKS[row.cells[h].support.status].split(" ")[0]
            + ("*" if row.cells[h].observed else "")
            for h in HOSTS
        )
        evidence = ", ".join(e.value for e in row.evidence)
        lines.append(f"| {row.kind} | `{_cell(row.name)}` | {marks} | {evidence} |")
    lines += ["", "</details>"]
    if package.risks:
        lines += [
            "",
            f"<details><summary>{counted(len(package.risks), 'risk signal')}</summary>",
            "",
        ]
        for risk in package.risks:
            where = (
                f" `{risk.path}:{risk.line}`"
                if risk.path and risk.line
                else (f" `{risk.path}`" if risk.path else "")
            )
            lines.append(f"- **{risk.severity}** `{risk.code}`{where}: {_cell(risk.message)}")
        lines += ["", "</details>"]
    return lines
