"""What ``gateway audit`` says about the Pi events that changed in Pi 0.79 → 0.80
(``adapters/pi/_audit.py``), without loading the package."""

from __future__ import annotations

from pathlib import Path

from gateway import GatewayConfig
from gateway.audit import GATEWAY, Status, audit

from .conftest import FIXTURES

HOST = FIXTURES / "pi-now"


def test_audit_says_why_project_trust_does_not_run(tmp_path: Path) -> None:
    config = GatewayConfig(home=tmp_path / "g", user_home=tmp_path)
    package = audit([str(HOST / "current")], config=config).packages[0]
    trust = next(r for r in package.rows if r.kind == "hook" and r.name == "project_trust")
    assert trust.cells[GATEWAY].support.code == "pi.event_unmapped"
    assert "workspace trust is the user's decision" in trust.cells[GATEWAY].support.reason
    info = next(r for r in package.rows if r.kind == "hook" and r.name == "session_info_changed")
    assert info.cells[GATEWAY].support.status is Status.RUNS
