"""What install says about a package that stays true — a Pi package built for another Pi
host version (`pi.host_version_mismatch`) — is said again by `status` and `list`, from the
metadata they read anyway (nothing of the host is imported for it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gateway.packages import evaluate_packages, install, load_adapters
from tests.adapters._helpers import write_tree
from tests.gateway.test_cli import gateway, gateway_json, ws

OLD_PI = {
    "name": "old-pi",
    "version": "1.0.0",
    "pi": {"extensions": ["./index.ts"]},
    "peerDependencies": {"@mariozechner/pi-coding-agent": "<0.1.0"},
}


def _installed(workspace: Any) -> Path:
    source = write_tree(
        workspace.home / "src",
        {"package.json": OLD_PI, "index.ts": "export default function () {}\n"},
    )
    home = workspace.home / ".gateway"
    install(home, str(source), kind="local", inspector=load_adapters().inspect)
    return home


def test_status_reports_a_pi_host_version_mismatch_after_install(workspace: Any) -> None:
    home = _installed(workspace)
    (status,) = evaluate_packages(home, load_adapters())
    (mismatch,) = [d for d in status.diagnostics if d.code == "pi.host_version_mismatch"]
    assert mismatch.package == "old-pi" and "'<0.1.0' excludes" in mismatch.message


def test_status_and_list_json_carry_the_mismatch(workspace: Any) -> None:
    _installed(workspace)
    status = gateway_json(workspace, "status")
    (package,) = status["packages"]
    assert "pi.host_version_mismatch" in [d["code"] for d in package["diagnostics"]]
    listed = gateway_json(workspace, "list", "--workspace", ws(workspace))
    assert "pi.host_version_mismatch" in [d["code"] for d in listed["diagnostics"]]


def test_plain_status_names_the_package_of_each_diagnostic(workspace: Any) -> None:
    """`status` lists many packages: a diagnostic whose message does not begin with its
    package's id is printed with it (`warning: old-pi: package.json …`), one that does is
    printed as it is."""
    _installed(workspace)
    done = gateway(workspace, "status")
    (line,) = [x for x in done.stdout.splitlines() if "[pi.host_version_mismatch]" in x]
    assert line.startswith("warning: old-pi: package.json peerDependencies"), line
    assert "old-pi: old-pi:" not in done.stdout
