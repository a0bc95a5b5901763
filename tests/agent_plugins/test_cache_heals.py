"""A start that failed is never served from the registration cache: an Agent Plugin whose
server command is missing fails, and heals on the next ``list`` once the command is on
PATH — no cache file deleted by hand (gateway/host/_registrations.py)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from adapters.agent_plugins._launch import plan_plugin as plan_plugin_host
from gateway.host import registration_key, start_inputs
from gateway.packages import load_adapters
from tests import _cli_runner as in_process
from tests.nanobot._helpers import cli_process

from ._helpers import lite_calc, write_plugin

pytestmark = pytest.mark.slow  # measured long: scheduled first (tests/conftest.py)

TOOL = "mcp_heal_add"


def _plugin(root: Path) -> Path:
    plugin = write_plugin(
        root / "heal",
        servers={"calc": {"type": "stdio", "command": "calc-server",
                          "args": ["${PLUGIN_ROOT}/calc.py"]}},
    )  # fmt: skip
    lite_calc(plugin)  # the demo's calc as a standard-library twin: the subject is the cache
    return plugin


def _install_server(folder: Path) -> None:
    """``calc-server`` on PATH: a Python script running the server it is given."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "calc-server"
    script.write_text(
        f"#!{sys.executable}\nimport runpy, sys\n"
        "sys.argv = sys.argv[1:]\nrunpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    script.chmod(0o755)


def _load_failure(home: Path, env: dict[str, str]) -> str | None:
    """Why the package failed to load, as ``status`` (which starts nothing, and is never a
    session's) reads it; None when it is active."""
    found = in_process.cli_json(home, "status", env=env)["packages"]
    package = next(p for p in found if p["id"] == "heal")
    assert package["active"] is (package["load_failure"] is None)
    return package["load_failure"]


@pytest.mark.parametrize("session", ["off", "on"])
def test_a_plugin_whose_server_command_was_missing_heals_on_the_next_list(
    tmp_path: Path, session: str
):
    home, project, bin_dir = tmp_path / "home", tmp_path / "project", tmp_path / "bin"
    project.mkdir()
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "GATEWAY_SESSION": session}  # fmt: skip
    # The verbs a session serves (`list`, `call`) run one-shot in this process with the
    # session off (tests/_cli_runner), and as processes with it on: a warm session, started
    # by the first and kept running, serves them all. The rest runs in this process.
    one_shot = session == "off"

    def run(*args: str):
        if one_shot:
            return in_process.cli(home, *args, env=env)
        return cli_process(home, *args, env=env)

    def listed() -> dict:
        done = run("list", "--workspace", str(project), "--json")
        assert done.returncode == 0, done.stderr
        assert "cli.session_unreachable" not in done.stderr, done.stderr  # never one-shot
        return json.loads(done.stdout)

    in_process.cli_json(home, "install", str(_plugin(tmp_path / "src")), env=env)
    for verb in ("trust", "enable"):
        in_process.cli_json(home, verb, "heal", env=env)
    try:
        for _ in range(2):  # not healed by a cache either: the start failed, nothing is served
            broken = listed()
            assert TOOL not in [t["name"] for t in broken["tools"]]
            codes = {d["code"] for d in broken["diagnostics"]}
            assert "agent_plugins.command_not_found" in codes
            # Never "active": said at once, even by a session that keeps running.
            assert "calc-server" in (_load_failure(home, env) or "")

        _install_server(bin_dir)
        healed = listed()
        assert TOOL in [t["name"] for t in healed["tools"]], healed["diagnostics"]
        assert _load_failure(home, env) is None
        done = run("call", TOOL, '{"a": 2, "b": 40}', "--workspace", str(project))
        assert done.returncode == 0 and done.stdout.strip().endswith("42"), done.stderr
    finally:
        if not one_shot:
            cli_process(home, "session", "stop", "--all", env=env)


def test_what_a_server_command_resolves_to_is_part_of_what_a_start_depends_on(
    tmp_path: Path, monkeypatch
):
    bin_dir = tmp_path / "bin"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    entry = load_adapters().inspect(_plugin(tmp_path / "src"))
    home = tmp_path / "home"
    spec = plan_plugin_host(entry, home)
    assert spec is not None and spec.programs == ("calc-server",)
    status = SimpleNamespace(id="heal", runtime=spec, package=SimpleNamespace(
        record=SimpleNamespace(content_hash="h"), granted=frozenset(), trusted_at=None))  # fmt: skip
    missing = start_inputs(status, home)  # type: ignore[arg-type]
    _install_server(bin_dir)
    found = start_inputs(status, home)  # type: ignore[arg-type]
    assert missing.programs == ["calc-server -> not found"]
    assert str(bin_dir / "calc-server") in found.programs[0]
    assert registration_key([], {}, missing) != registration_key([], {}, found)
