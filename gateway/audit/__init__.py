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

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.audit._batch import FAIL_ON as FAIL_ON
    from gateway.audit._batch import FailOn as FailOn
    from gateway.audit._batch import failures as failures
    from gateway.audit._batch import parse_fail_on as parse_fail_on
    from gateway.audit._batch import read_sources as read_sources
    from gateway.audit._codes import AUDIT_FOREIGN_PACKAGE as AUDIT_FOREIGN_PACKAGE
    from gateway.audit._codes import AUDIT_RUNS as AUDIT_RUNS
    from gateway.audit._model import SCHEMA_ID as SCHEMA_ID
    from gateway.audit._model import SCHEMA_VERSION as SCHEMA_VERSION
    from gateway.audit._model import AuditReport as AuditReport
    from gateway.audit._model import Observation as Observation
    from gateway.audit._model import PackageAudit as PackageAudit
    from gateway.audit._model import Risk as Risk
    from gateway.audit._model import Row as Row
    from gateway.audit._model import Verdict as Verdict
    from gateway.audit._render import FORMATS as FORMATS
    from gateway.audit._render import render as render
    from gateway.audit._run import Progress as Progress
    from gateway.audit._run import audit as audit
    from gateway.audit._run import audit_packages as audit_packages
    from gateway.audit._support import GATEWAY as GATEWAY
    from gateway.audit._support import HOSTS as HOSTS
    from gateway.audit._support import Evidence as Evidence
    from gateway.audit._support import Found as Found
    from gateway.audit._support import HostKnowledge as HostKnowledge
    from gateway.audit._support import HostLine as HostLine
    from gateway.audit._support import Item as Item
    from gateway.audit._support import SourceFile as SourceFile
    from gateway.audit._support import Status as Status
    from gateway.audit._support import Support as Support
    from gateway.audit._support import Target as Target


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
