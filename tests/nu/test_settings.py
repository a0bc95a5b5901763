"""Settings and secrets: `gateway config` takes only the keys a Nu package lists, `gateway
secret` reads values from stdin (never argv) and never shows them, and a running gateway
restarts a package's extension when its settings or secrets change (changed by another
process, a `gateway` subprocess, as a user's terminal would)."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import anyio
import pytest

from gateway import open_gateway
from gateway.packages.secrets import secrets_path
from tests.nu._packages import (
    cli,
    cli_json,
    cli_process,
    codes,
    config_for,
    install_ready,
    probe_package,
    requires_runtime,
)

pytestmark = requires_runtime

SHOW = """
export default (nu) => nu.on("before_agent_start", () => ({
  prompt: JSON.stringify({ user: nu.config.userId ?? null, token: nu.secret("API_TOKEN") ?? null }),
}));
"""
SECRET_VALUE = "sk-live-5ecret-value"


def installed(tmp_path: Path, **nu: object) -> tuple[Path, str]:
    home = tmp_path / "home"
    manifest = {"config": ["userId"], "secrets": ["API_TOKEN"], **nu}
    source = probe_package(tmp_path / "pkg", {}, extensions={"show": SHOW}, nu=manifest)
    return home, install_ready(home, source)


def test_secret_set_reads_the_value_from_stdin_and_never_shows_it(tmp_path: Path) -> None:
    home, package = installed(tmp_path)
    done = cli(home, "secret", "set", package, "API_TOKEN", stdin=SECRET_VALUE + "\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"secret API_TOKEN of {package} is set\n"
    path = secrets_path(home, package)
    assert json.loads(path.read_text())["values"] == {"API_TOKEN": SECRET_VALUE}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for verb in (("secret", "list", package), ("status",), ("inspect", package)):
        shown = cli(home, *verb)
        assert SECRET_VALUE not in shown.stdout + shown.stderr
    assert cli_json(home, "secret", "list", package) == {
        "id": package,
        "secrets": {"API_TOKEN": "set"},
    }
    (status,) = cli_json(home, "status")["packages"]
    assert status["secrets"] == {"API_TOKEN": "set"}
    assert "secrets: API_TOKEN set" in " ".join(cli(home, "status").stdout.split())
    for log in (home / "logs").glob("*") if (home / "logs").exists() else []:
        assert SECRET_VALUE not in log.read_text(errors="replace")


def test_secret_set_takes_no_value_from_the_command_line(tmp_path: Path) -> None:
    home, package = installed(tmp_path)
    done = cli(home, "secret", "set", package, "API_TOKEN", SECRET_VALUE)
    assert done.returncode == 2 and "unrecognized arguments" in done.stderr
    assert not secrets_path(home, package).exists()


def test_only_declared_secrets_can_be_set(tmp_path: Path) -> None:
    home, package = installed(tmp_path)
    done = cli(home, "secret", "set", package, "OTHER", stdin="x\n")
    assert done.returncode == 1
    assert f"{package} does not declare a secret 'OTHER' (it declares: API_TOKEN)" in done.stderr


def test_an_empty_value_is_refused_and_unset_removes(tmp_path: Path) -> None:
    home, package = installed(tmp_path)
    assert cli(home, "secret", "set", package, "API_TOKEN", stdin="\n").returncode == 1
    cli(home, "secret", "set", package, "API_TOKEN", stdin="v\n")
    assert cli(home, "secret", "unset", package, "API_TOKEN").returncode == 0
    assert cli_json(home, "secret", "list", package)["secrets"] == {"API_TOKEN": "unset"}


def test_config_takes_only_the_keys_the_package_lists(tmp_path: Path) -> None:
    home, package = installed(tmp_path)
    assert cli(home, "config", package, "userId", "ada").returncode == 0
    refused = cli(home, "config", package, "token", "x")
    assert refused.returncode == 1
    assert f"{package} has no setting 'token' (its settings: userId)" in refused.stderr
    assert cli_json(home, "config", package)["config"] == {"userId": "ada"}


@pytest.mark.anyio
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")
async def test_a_running_gateway_restarts_the_extension_when_settings_or_secrets_change(
    tmp_path: Path,
) -> None:
    home, package = installed(tmp_path)
    cli(home, "config", package, "userId", "ada")
    (tmp_path / "ws").mkdir()
    async with open_gateway(
        tmp_path / "ws", trust=True, config=config_for(home, tmp_path)
    ) as gateway:
        before = json.loads((await gateway.before_agent_start("", "")).system_prompt)
        first = gateway.processes[0]

        async def restarted(count: int) -> None:
            with anyio.fail_after(60):
                while codes(gateway).count("package.settings_restarted") < count:
                    await anyio.sleep(0.05)

        changed = cli_process(home, "secret", "set", package, "API_TOKEN", stdin="tok-2\n")
        assert changed.returncode == 0
        await restarted(1)
        after_secret = json.loads((await gateway.before_agent_start("", "")).system_prompt)
        assert cli_process(home, "config", package, "userId", "grace").returncode == 0
        await restarted(2)
        after_config = json.loads((await gateway.before_agent_start("", "")).system_prompt)
        # Writing the same value again changes nothing: no restart.
        assert cli_process(home, "config", package, "userId", "grace").returncode == 0
        assert gateway.processes[0] is not first
    assert before == {"user": "ada", "token": None}
    assert after_secret == {"user": "ada", "token": "tok-2"}
    assert after_config == {"user": "grace", "token": "tok-2"}


@pytest.mark.anyio
async def test_restart_package_restarts_one_package_with_its_new_settings(tmp_path: Path) -> None:
    from gateway.packages import write_package_config

    home, package = installed(tmp_path)
    other_home_pkg = probe_package(
        tmp_path / "other", {}, extensions={"x": 'export default (nu) => nu.on("turn_end", () => {});'},
        name="nu-other",
    )  # fmt: skip
    install_ready(home, other_home_pkg)
    (tmp_path / "ws").mkdir()
    async with open_gateway(
        tmp_path / "ws", trust=True, config=config_for(home, tmp_path)
    ) as gateway:
        others = [p for p in gateway.processes if p.plan.name == "nu-other"]
        write_package_config(home, package, {"userId": "lin"})
        assert await gateway.restart_package(package)
        shown = json.loads((await gateway.before_agent_start("", "")).system_prompt)
        assert [p for p in gateway.processes if p.plan.name == "nu-other"] == others
        assert not await gateway.restart_package("not-installed")
    assert shown["user"] == "lin"


def test_uninstall_removes_the_packages_secrets(tmp_path: Path) -> None:
    home, package = installed(tmp_path)
    cli(home, "secret", "set", package, "API_TOKEN", stdin="tok\n")
    assert secrets_path(home, package).exists()
    assert cli(home, "uninstall", package).returncode == 0
    assert not secrets_path(home, package).exists()
