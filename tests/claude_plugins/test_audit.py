"""``gateway audit`` on Claude Code plugins: the gateway column says what runs, what runs
with limits and what never runs, from the adapter's knowledge (nothing runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.audit import GATEWAY, PackageAudit, Row, Status, audit
from gateway.base import GatewayConfig

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude_plugins"


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> GatewayConfig:
    base = tmp_path_factory.mktemp("audit")
    return GatewayConfig(home=base / "gateway", user_home=base)


def _one(name: str, config: GatewayConfig) -> PackageAudit:
    report = audit([str(FIXTURES / name)], config=config)
    (package,) = report.packages
    assert package.ok, package.error
    return package


def _cell(package: PackageAudit, kind: str, name: str) -> tuple[Status, str]:
    found: list[Row] = [r for r in package.rows if r.kind == kind and r.name == name]
    assert found, [(r.kind, r.name) for r in package.rows]
    cell = found[0].cells[GATEWAY]
    return cell.support.status, cell.support.code


def test_commands_run_and_say_what_is_not_applied(config: GatewayConfig) -> None:
    package = _one("ralph-loop", config)
    assert _cell(package, "prompt", "help") == (Status.RUNS, "audit.runs")
    assert _cell(package, "prompt", "ralph-loop") == (
        Status.PARTIAL,
        "claude.command_field_ignored",
    )


def test_a_stop_hook_is_a_row_that_never_runs(config: GatewayConfig) -> None:
    package = _one("ralph-loop", config)
    assert _cell(package, "hook", "Stop") == (Status.UNSUPPORTED, "claude.hook_event_unsupported")


def test_a_session_start_hook_runs(config: GatewayConfig) -> None:
    package = _one("explanatory-output-style", config)
    assert _cell(package, "hook", "SessionStart") == (Status.RUNS, "audit.runs")


def test_subagents_are_rows_that_never_run(config: GatewayConfig) -> None:
    package = _one("feature-dev", config)
    assert _cell(package, "agent", "code-explorer") == (
        Status.UNSUPPORTED,
        "claude.component_unsupported",
    )


def test_skills_are_listed_and_a_remote_server_is_connected(config: GatewayConfig) -> None:
    package = _one("example-plugin", config)
    assert _cell(package, "skill", "example-skill") == (Status.METADATA_ONLY, "audit.listed_only")
    assert _cell(package, "mcp_server", "example-server") == (Status.RUNS, "audit.runs")


def test_openclaw_runs_a_bundles_commands_and_only_records_its_hooks(
    config: GatewayConfig,
) -> None:
    """OpenClaw installs Claude Code plugins as bundles: the column says so, as measured by
    the fidelity harness against its own bundle reader."""
    package = _one("ralph-loop", config)
    rows = {(r.kind, r.name): r.cells["openclaw"].support for r in package.rows}
    assert rows[("prompt", "help")].status == Status.RUNS
    hooks = [support for (kind, _), support in rows.items() if kind == "hook"]
    assert hooks and {support.status for support in hooks} == {Status.METADATA_ONLY}
