"""The static audit of the packed real packages (tests/fixtures/npm), made once per test run
and read by every module that audits them (test_truth, test_formats, test_html,
test_malicious): each of them audited the same eleven tarballs itself, ~5 s of CPU each.

A batch is audited one package after the other, each on its own (``audit_packages``), so a
module that audits more sources audits only those and puts its report after this one
(``joined``): the same report as one batch of all of them. The report is made by whichever
xdist worker asks first and handed to the others (``tests._once.once_per_run``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.audit import AuditReport, audit
from gateway.base import GatewayConfig
from tests._once import once_per_run

ROOT = Path(__file__).resolve().parents[3]
NPM_TARBALLS = sorted((ROOT / "tests" / "fixtures" / "npm").glob("*.tgz"))


def _static_audit(base: Path) -> AuditReport:
    return audit(
        [str(p) for p in NPM_TARBALLS],
        config=GatewayConfig(home=base / "gateway", user_home=base),
    )


def npm_static_report(
    factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> AuditReport:
    """``audit`` of NPM_TARBALLS (static), in that order; each call returns its own copy."""
    report: AuditReport = once_per_run("npm-static-audit", _static_audit, factory, request)
    return report


def joined(first: AuditReport, second: AuditReport) -> AuditReport:
    """One report of both batches, ``first``'s packages then ``second``'s."""
    assert (first.mode, first.generator, first.confirmed_by) == (
        second.mode,
        second.generator,
        second.confirmed_by,
    )
    return AuditReport(
        mode=first.mode,
        generator=first.generator,
        packages=[*first.packages, *second.packages],
        confirmed_by=first.confirmed_by,
    )
