"""``gateway status`` and ``inspect`` say in one line what each package's sandbox opens."""

from __future__ import annotations

import os
from pathlib import Path

from tests._cli import run_here
from tests.gateway.packages._helpers import cli, cli_json, install_from, pi


def test_status_shows_each_packages_sandbox_and_a_grant_widens_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    install_from(home, pi(tmp_path / "src", "quiet-pi"))
    [before] = cli_json(home, "status")["packages"]
    assert before["sandbox"].startswith("workspace read-only, network closed")
    assert cli(home, "permissions", "quiet-pi", "network", "workspace.write").returncode == 0
    shown = cli(home, "status").stdout
    assert "Sandbox (1)" in shown
    line = " ".join(shown.split())
    assert (
        "workspace read-write (but .git, CI and agent configs), network open (any host), "
        "writes the workspace and its data and temp folders" in line
    )  # not "read-write, …, writes only its data and temp folders", which contradicts itself
    assert "writes only" not in line


def test_a_grant_by_destination_is_accepted_shown_and_locked(tmp_path: Path) -> None:
    home = tmp_path / "home"
    install_from(home, pi(tmp_path / "src", "quiet-pi"))
    refused = cli(home, "permissions", "quiet-pi", "network:not a host")
    assert refused.returncode != 0 and "names no destination" in refused.stderr
    done = cli(home, "permissions", "quiet-pi", "network:api.example.com:443")
    assert done.returncode == 0, done.stderr
    assert "granted      network:api.example.com:443" in done.stdout
    [package] = cli_json(home, "status")["packages"]
    assert (
        "network to api.example.com:443 only (through the gateway's proxy)" in (package["sandbox"])
    )
    trusted = cli(home, "trust", "quiet-pi")
    assert "sandbox: workspace read-only, network to api.example.com:443 only" in trusted.stdout
    lock = tmp_path / "gateway.lock"
    assert cli(home, "lock", "--out", str(lock)).returncode == 0
    assert "network:api.example.com:443" in lock.read_text()


def test_inspect_of_an_installed_package_shows_its_sandbox(tmp_path: Path) -> None:
    home = tmp_path / "home"
    install_from(home, pi(tmp_path / "src", "quiet-pi"))
    shown = cli(home, "inspect", "quiet-pi").stdout
    assert "sandbox: workspace read-only, network closed" in shown


def test_status_says_when_the_sandbox_is_off(tmp_path: Path) -> None:
    home = tmp_path / "home"
    install_from(home, pi(tmp_path / "src", "quiet-pi"))
    user = tmp_path / "user"
    user.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.update(GATEWAY_HOME=str(home), HOME=str(user), GATEWAY_SANDBOX="off")
    done = run_here(["status"], env=env, cwd=user)  # in this process (tests/_cli.py)
    assert "off (GATEWAY_SANDBOX=off)" in done.stdout
