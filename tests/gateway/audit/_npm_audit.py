"""The static audit of the packed real packages (tests/fixtures/npm), made once per test run
and read by every module that audits them (test_truth, test_formats, test_html,
test_malicious): each of them audited the same eleven tarballs itself, ~5 s of CPU each.

A batch is audited one package after the other, each on its own (``audit_packages``), so a
module that audits more sources audits only those and puts its report after this one
(``joined``): the same report as one batch of all of them. The report is made by whichever
xdist worker asks first, under a file lock, and handed to the others as a pickle named after
the run (``testrun_uid``), so nothing is ever read from an earlier run."""

from __future__ import annotations

import fcntl
import os
import pickle
from pathlib import Path

import pytest

from gateway.audit import AuditReport, audit
from gateway.base import GatewayConfig

ROOT = Path(__file__).resolve().parents[3]
NPM_TARBALLS = sorted((ROOT / "tests" / "fixtures" / "npm").glob("*.tgz"))


def _shared_folder(factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this run sees: the parent of the workers' base folders
    under xdist, the run's own base folder without it."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _run_id(request: pytest.FixtureRequest) -> str:
    """xdist's ``testrun_uid``; without xdist (``-p no:xdist``) one process runs everything
    and the run's own base folder is already its alone."""
    try:
        return str(request.getfixturevalue("testrun_uid"))
    except pytest.FixtureLookupError:
        return "solo"


def npm_static_report(
    factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> AuditReport:
    """``audit`` of NPM_TARBALLS (static), in that order; each call returns its own copy."""
    path = _shared_folder(factory) / f"npm-static-audit-{_run_id(request)}.pickle"
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.exists():
            base = factory.mktemp("npm-static-audit")
            report = audit(
                [str(p) for p in NPM_TARBALLS],
                config=GatewayConfig(home=base / "gateway", user_home=base),
            )
            partial = path.with_suffix(".partial")
            partial.write_bytes(pickle.dumps(report))
            partial.replace(path)
    return pickle.loads(path.read_bytes())


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
