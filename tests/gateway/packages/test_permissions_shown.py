"""``gateway permissions ID`` shown (nothing granted or revoked) ends with the command that
grants what is still missing: it listed `not granted  workspace.read` and no way on."""

from __future__ import annotations

from pathlib import Path

from tests.gateway.packages._helpers import nanobot, pi


def test_shown_permissions_end_with_the_command_that_grants_the_missing_ones(
    tmp_path: Path, run_cli
) -> None:
    home = tmp_path / "home"
    source = nanobot(tmp_path / "two", "two", permissions=["workspace.read", "network.http"])
    assert run_cli(home, "install", str(source)).returncode == 0
    shown = run_cli(home, "permissions", "two")
    assert shown.returncode == 0, shown.stderr
    assert (
        shown.stdout.splitlines()[-1]
        == "  grant: gateway permissions two workspace.read network.http"
    )
    assert run_cli(home, "permissions", "two", "network.http").returncode == 0
    assert run_cli(home, "permissions", "two").stdout.splitlines()[-1] == (
        "  grant: gateway permissions two workspace.read"
    )
    assert run_cli(home, "permissions", "two", "workspace.read").returncode == 0
    assert "grant:" not in run_cli(home, "permissions", "two").stdout  # nothing left to grant


def test_a_package_that_requests_nothing_is_said_so_first_and_its_grants_once(
    tmp_path: Path, run_cli
) -> None:
    """pi-web-access granted network printed `granted network`, then `pi-web-access
    requests no permissions; its sandbox is widened by: network` below it."""
    home = tmp_path / "home"
    assert run_cli(home, "install", str(pi(tmp_path / "web", "web"))).returncode == 0
    assert run_cli(home, "permissions", "web", "network").returncode == 0
    assert run_cli(home, "permissions", "web").stdout.splitlines() == [
        "web requests no permissions: what is granted widens its sandbox",
        "  granted      network",
    ]
