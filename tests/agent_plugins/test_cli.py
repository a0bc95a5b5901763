"""The issue's "done when", through the ``gateway`` command line with a private
GATEWAY_HOME (its ``main`` in this process, ``tests/_cli_runner``; the plugin host and the
MCP servers real processes in the default sandbox): the demo plugin installs, is inspected,
trusted and enabled; its skill is listed, a tool of its real MCP server (the SDK's) is
called end to end, and the server that crashes at start is a diagnostic; a tool's error and
a prompt come back through ``call`` and ``command``."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests._cli_runner import cli, cli_json
from tests._lite_mcp import script

from ._helpers import DEMO

pytestmark = pytest.mark.slow(3)  # measured long: scheduled first (tests/conftest.py)


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
    # Its reason is in the server's stderr ("Connection closed" says nothing): the log's command.
    assert "  hint: gateway logs demo-plugin\n" in done.stderr, done.stderr


def test_a_plugin_tools_error_and_its_prompt_through_the_command_line(tmp_path: Path) -> None:
    """The demo plugin with its calc as the standard-library twin (each one-shot verb starts
    the plugin's servers; the SDK's ~1 s import is the story's above, and the SDK server's
    error result and prompt are test_plugin_host's, over the host's stdio): ``call`` of a
    tool that fails exits 1 with the server's message, ``command`` prints the prompt."""
    from ._helpers import lite_calc

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    source = shutil.copytree(DEMO, tmp_path / "src" / "demo")
    lite_calc(source / "servers")
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    ws = ("--workspace", str(project))
    for verb in (("install", str(source)), ("trust", "demo-plugin"), ("enable", "demo-plugin")):
        cli_json(home, *verb, env=env)

    error = cli(home, "call", "mcp_demo-plugin--calc_echo", '{"text": "x", "fail": true}',
                *ws, env=env)  # fmt: skip
    assert error.returncode == 1 and "echo refused 'x'" in (error.stdout + error.stderr)

    prompt = cli(home, "command", "mcp_demo-plugin--calc_prompt_review", "the parser tone=strict",
                 *ws, env=env)  # fmt: skip
    assert prompt.returncode == 0, prompt.stderr
    assert "Please review the parser in a strict tone." in prompt.stdout


# The servers below are standard-library scripts (tests/_lite_mcp): what these tests prove
# is the plugin's sandbox and how a server is found, not the MCP SDK's server, which the
# story above runs.
WRITER = script("""
    server = Server("writer")


    @server.tool(description="Write each file; say what happened to each, one line per path.")
    def write(paths: list[str]) -> str:
        lines = []
        for path in paths:
            try:
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write("x")
            except OSError as error:
                lines.append(f"refused ({error.strerror}): {path}")
            else:
                lines.append(f"wrote: {path}")
        return "\\n".join(lines)


    server.run()
""")


def test_the_servers_inherit_the_plugins_sandbox(tmp_path: Path) -> None:
    """The MCP servers are the plugin host's children: they write only to PLUGIN_DATA."""
    from gateway.sandbox import package_dirs

    from ._helpers import write_plugin

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    root = write_plugin(tmp_path / "src" / "writer",
                        servers={"w": {"type": "stdio", "command": "python3",
                                       "args": ["${PLUGIN_ROOT}/writer.py"]}})  # fmt: skip
    (root / "writer.py").write_text(WRITER)
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    for verb in (("install", str(root)), ("trust", "writer"), ("enable", "writer")):
        cli_json(home, *verb, env=env)
    data, _ = package_dirs(home, "writer", create=False)

    # One call tries the three places.
    allowed, in_project, in_user = (
        data / "ok.txt",
        project / "nope.txt",
        tmp_path / "u" / "nope.txt",
    )
    in_user.parent.mkdir()
    arguments = json.dumps({"paths": [str(allowed), str(in_project), str(in_user)]})
    done = cli(home, "call", "mcp_writer_write", arguments, "--workspace", str(project), env=env)
    assert done.returncode == 0, done.stderr
    said = [line.removeprefix("[ok] ") for line in done.stdout.splitlines()]
    assert f"wrote: {allowed}" in said and allowed.exists(), done.stdout
    for refused in (in_project, in_user):  # both folders exist: only the sandbox refuses
        # Denied, or not there at all: the private /tmp hides what the suite keeps in /tmp.
        assert any(
            line.startswith("refused (") and line.endswith(f": {refused}") for line in said
        ), done.stdout
        assert not refused.exists()


SERVER = script("""
    server = Server("venv")


    @server.tool(description="Say where the server runs from.")
    def where() -> str:
        return "served from " + sys.prefix


    server.run()
""")


def test_an_mcp_server_installed_as_a_console_script_in_its_own_venv_starts(tmp_path: Path) -> None:
    """Issue 31: a Python MCP server installed the normal way — a console script in its own
    venv, in the user's home, found on PATH — starts in the plugin's sandbox (it failed
    with ``PermissionError …/pyvenv.cfg``)."""
    import subprocess

    from ._helpers import write_plugin

    home, project, user = tmp_path / "home", tmp_path / "project", tmp_path / "user"
    project.mkdir()
    venv = user / ".local" / "share" / "venvs" / "where"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    console = venv / "bin" / "where-server"
    console.write_text(f"#!{venv / 'bin' / 'python'}\n{SERVER}")
    console.chmod(0o755)
    root = write_plugin(tmp_path / "src" / "where",
                        servers={"w": {"type": "stdio", "command": "where-server"}})  # fmt: skip
    env = {"PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
    for verb in (("install", str(root)), ("trust", "where"), ("enable", "where")):
        cli_json(home, *verb, env=env)
    done = cli(home, "call", "mcp_where_where", "{}", "--workspace", str(project), env=env)
    assert done.returncode == 0, done.stderr
    assert f"served from {venv}" in done.stdout
