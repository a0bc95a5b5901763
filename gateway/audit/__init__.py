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

from gateway.audit import _codes as codes
from gateway.audit._batch import FAIL_ON, FailOn, failures, parse_fail_on, read_sources
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
    Item,
    SourceFile,
    Status,
    Support,
    Target,
)

__all__ = [
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
    "codes",
    "failures",
    "parse_fail_on",
    "read_sources",
    "render",
]
