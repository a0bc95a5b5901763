"""The issue's "done when" for Gemini CLI extensions, through the ``gateway`` command line
with a private GATEWAY_HOME (its ``main`` in this process, ``tests/_cli_runner``; the plugin
host and the server real processes in the default sandbox): the fixture extension installs,
is trusted and enabled; a tool of its stdio MCP server is called end to end (named as
Gemini CLI names it), its context file and skill are listed, its TOML command expands
``{{args}}``, its setting reaches the server from ``gateway secret``."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests._cli_runner import cli, cli_json
from tests.agent_plugins._helpers import lite_calc

pytestmark = pytest.mark.slow  # measured long: scheduled first (tests/conftest.py)

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "gemini" / "notes"


def test_a_gemini_extension_runs_its_mcp_tool_and_shows_its_context_file(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    source = shutil.copytree(FIXTURE, tmp_path / "src" / "notes")
    # The fixture's calc.py (the SDK's server) as its standard-library twin: the subject is
    # the adapter (tests/_lite_mcp; the SDK's server is tests/agent_plugins' contract).
    lite_calc(source / "servers")
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    ws = ("--workspace", str(project))

    installed = cli_json(home, "install", str(source), env=env)
    assert (installed["id"], installed["ecosystem"]) == ("notes-ext", "gemini")
    cli_json(home, "trust", "notes-ext", env=env)
    cli_json(home, "enable", "notes-ext", env=env)

    listed = json.dumps(cli_json(home, "list", *ws, env=env))
    assert "mcp_calc_add" in listed
    assert "mcp_calc_echo" not in listed  # the server's excludeTools
    assert "notes-ext:GEMINI.md" in listed and "tidy" in listed
    assert "notes:summarize" in listed

    done = cli(home, "call", "mcp_calc_add", '{"a": 2, "b": 40}', *ws, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("42")

    command = cli(home, "command", "notes:summarize", "the meeting ran long", *ws, env=env)
    assert command.returncode == 0, command.stderr
    assert "Summarize the following in one line:\n\nthe meeting ran long" in command.stdout


def test_the_commands_shell_injection_is_reported_not_run(tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = shutil.copytree(FIXTURE, tmp_path / "src" / "notes")
    inspected = cli_json(home, "inspect", str(source))
    codes = {d["code"]: d["message"] for d in inspected["diagnostics"]}
    assert "status.toml" in codes["gemini.command_injection_not_run"]
