"""``gateway audit``: for each package, every contribution by every host — nimlet, Nu,
nanobot, Pi, OpenClaw and the gateway itself — with a status, a stable code and a reason;
a verdict per host, the API versions the package targets, and the risk signals a reviewer
wants before trusting it. See docs/audit.md.

    report = audit(["./my-package", "pi-aliases@1.0.7"])
    print(render(report, "text"))

Static by default (metadata and a scan of the code; nothing runs); ``load=True`` also loads
each package in a throwaway sandbox with a recording API and marks what it observed. The
knowledge of what each host accepts lives in the adapters (``HostKnowledge``); this package
assembles it and renders one model (``AuditReport``, JSON Schema ``docs/audit-schema.json``)
as text, JSON, Markdown, self-contained HTML and SARIF 2.1.0.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.audit._batch import FAIL_ON, FailOn, failures, parse_fail_on, read_sources
    from gateway.audit._codes import AUDIT_FOREIGN_PACKAGE, AUDIT_RUNS
    from gateway.audit._model import (
        SCHEMA_ID,
        SCHEMA_VERSION,
        AuditReport,
        Observation,
        PackageAudit,
        Risk,
        Row,
        Verdict,
    )
    from gateway.audit._render import FORMATS, render
    from gateway.audit._run import Progress, audit, audit_packages
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
        Target,
    )

_WHERE: dict[str, str] = {
    "AUDIT_FOREIGN_PACKAGE": "gateway.audit._codes",
    "AUDIT_RUNS": "gateway.audit._codes",
    "AuditReport": "gateway.audit._model",
    "Evidence": "gateway.audit._support",
    "FAIL_ON": "gateway.audit._batch",
    "FORMATS": "gateway.audit._render",
    "FailOn": "gateway.audit._batch",
    "Found": "gateway.audit._support",
    "GATEWAY": "gateway.audit._support",
    "HOSTS": "gateway.audit._support",
    "HostKnowledge": "gateway.audit._support",
    "HostLine": "gateway.audit._support",
    "Item": "gateway.audit._support",
    "Observation": "gateway.audit._model",
    "PackageAudit": "gateway.audit._model",
    "Progress": "gateway.audit._run",
    "Risk": "gateway.audit._model",
    "Row": "gateway.audit._model",
    "SCHEMA_ID": "gateway.audit._model",
    "SCHEMA_VERSION": "gateway.audit._model",
    "SourceFile": "gateway.audit._support",
    "Status": "gateway.audit._support",
    "Support": "gateway.audit._support",
    "Target": "gateway.audit._support",
    "Verdict": "gateway.audit._model",
    "audit": "gateway.audit._run",
    "audit_packages": "gateway.audit._run",
    "failures": "gateway.audit._batch",
    "parse_fail_on": "gateway.audit._batch",
    "read_sources": "gateway.audit._batch",
    "render": "gateway.audit._render",
}

__all__ = [
    "AUDIT_FOREIGN_PACKAGE",
    "AUDIT_RUNS",
    "FAIL_ON",
    "FORMATS",
    "GATEWAY",
    "HOSTS",
    "SCHEMA_ID",
    "SCHEMA_VERSION",
    "AuditReport",
    "Evidence",
    "FailOn",
    "Found",
    "HostKnowledge",
    "HostLine",
    "Item",
    "Observation",
    "PackageAudit",
    "Progress",
    "Risk",
    "Row",
    "SourceFile",
    "Status",
    "Support",
    "Target",
    "Verdict",
    "audit",
    "audit_packages",
    "failures",
    "parse_fail_on",
    "read_sources",
    "render",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
