"""The issue's "done when", through the ``gateway`` command line with a private
GATEWAY_HOME (real subprocesses, the default sandbox): the demo plugin installs, is
inspected, trusted and enabled; its skill is listed, a tool of its real MCP server is called
end to end, and the server that crashes at start is a diagnostic."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from tests.nanobot._helpers import cli, cli_json

from ._helpers import DEMO


def test_install_trust_enable_and_call_a_plugin_tool(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    source = shutil.copytree(DEMO, tmp_path / "src" / "demo")
    # `python3` in mcp.json is looked up on PATH: the one with the mcp SDK first.
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    ws = ("--workspace", str(project))

    installed = cli_json(home, "install", str(source), env=env)
    assert (installed["id"], installed["ecosystem"]) == ("demo-plugin", "agent-plugins")
    inspected = cli_json(home, "inspect", "demo-plugin", env=env)
    assert inspected["runtime"] == "plugin-host"

    refused = cli(home, "call", "mcp_demo-plugin--calc_add", '{"a": 1, "b": 2}', *ws, env=env)
    assert refused.returncode == 1 and "unknown tool" in refused.stderr

    cli_json(home, "trust", "demo-plugin", env=env)
    cli_json(home, "enable", "demo-plugin", env=env)
    [status] = cli_json(home, "status", env=env)["packages"]
    assert status["active"] is True, status

    listed = cli_json(home, "list", *ws, env=env)
    assert "mcp_demo-plugin--calc_add" in json.dumps(listed)
    assert "greeting" in json.dumps(listed)

    done = cli(home, "call", "mcp_demo-plugin--calc_add", '{"a": 2, "b": 40}', *ws, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("42")
    assert "agent_plugins.server_failed" in done.stderr and "'broken'" in done.stderr

    error = cli(home, "call", "mcp_demo-plugin--calc_echo", '{"text": "x", "fail": true}',
                *ws, env=env)  # fmt: skip
    assert error.returncode == 1 and "echo refused 'x'" in (error.stdout + error.stderr)
