"""SARIF 2.1.0, so code-scanning CI shows the findings: every risk signal, every
contribution the gateway does not fully run (partial, metadata-only, unsupported), and the
hosts a package's code names (``audit.code_hosts``, the hosts in its properties), each a
result whose rule is its diagnostic code (described from the catalogue) and whose location
is the file that declared or registered it. Valid against the OASIS schema (tests)."""

from __future__ import annotations

from typing import Any

from gateway.audit._codes import CODE_HOSTS
from gateway.audit._model import AuditReport, PackageAudit, Row
from gateway.audit._support import GATEWAY, Status
from gateway.base import counted, find_code

__all__ = ["render_sarif"]

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_STATUS_LEVEL = {
    Status.UNSUPPORTED: "warning",
    Status.PARTIAL: "note",
    Status.METADATA_ONLY: "note",
}


def render_sarif(report: AuditReport) -> dict[str, Any]:
    rules: dict[str, dict[str, Any]] = {}
    results: list[dict[str, Any]] = []
    for package in report.packages:
        if not package.ok and package.error is not None:
            results.append(
                _result(
                    rules, package.error.code, "error", package.error.message, package, None, None
                )
            )
            continue
        for risk in package.risks:
            results.append(
                _result(
                    rules,
                    risk.code,
                    _LEVEL.get(risk.severity, "note"),
                    risk.message,
                    package,
                    risk.path,
                    risk.line,
                )
            )
        for row in package.rows:
            cell = row.cells[GATEWAY].support
            level = _STATUS_LEVEL.get(cell.status)
            if level is None:
                continue
            message = f"{row.kind} {row.name}: {cell.status.value} in the gateway: {cell.reason}"
            path, line = _where(row)
            results.append(_result(rules, cell.code, level, message, package, path, line))
        if package.hosts:
            message = (
                f"its code names {counted(len(package.hosts), 'host')}: {', '.join(package.hosts)} "
                "(what a network:HOST grant would open)"
            )
            found = _result(rules, CODE_HOSTS.code, "note", message, package, None, None)
            found["properties"]["hosts"] = list(package.hosts)
            results.append(found)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "gateway audit",
                        "version": report.generator.removeprefix("gateway ").split(" ")[0],
                        "rules": list(rules.values()),
                    }
                },
                "results": results,
                "properties": {"mode": report.mode},
            }
        ],
    }


def _where(row: Row) -> tuple[str | None, int | None]:
    source = row.source or ""
    path, _, line = source.rpartition(":")
    if line.isdigit():
        return path, int(line)
    return (source or None), None


def _result(
    rules: dict[str, dict[str, Any]],
    code: str,
    level: str,
    message: str,
    package: PackageAudit,
    path: str | None,
    line: int | None,
) -> dict[str, Any]:
    if code not in rules:
        entry = find_code(code)
        rule: dict[str, Any] = {"id": code, "name": code.replace(".", "_")}
        if entry is not None:
            rule["shortDescription"] = {"text": entry.trigger}
            rule["help"] = {"text": entry.remedy}
            rule["defaultConfiguration"] = {"level": _LEVEL[entry.severity.value]}
        rules[code] = rule
    result: dict[str, Any] = {
        "ruleId": code,
        "ruleIndex": list(rules).index(code),
        "level": level,
        "message": {"text": f"{package.label}: {message}"},
        "properties": {"package": package.id or package.source, "ecosystem": package.ecosystem},
    }
    base = package.root if package.source_kind in ("local", "installed") else package.source
    artifact = path or ("package.json" if package.ecosystem in ("pi", "openclaw", "nu") else "")
    if artifact:
        physical: dict[str, Any] = {"artifactLocation": {"uri": artifact.replace("\\", "/")}}
        if base:
            physical["artifactLocation"]["uriBaseId"] = "PACKAGE"
        if line:
            physical["region"] = {"startLine": max(1, line)}
        result["locations"] = [{"physicalLocation": physical}]
    return result
