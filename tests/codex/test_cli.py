"""The issue's "done when" for Codex plugins, through the ``gateway`` command line with a
private GATEWAY_HOME (its ``main`` in this process, ``tests/_cli_runner``; the plugin host
and the server real processes in the default sandbox): the fixture plugin installs, is
trusted and enabled; a tool of its stdio MCP server (``.mcp.json``) is called end to end,
named as Codex names it (``mcp__<server>__<tool>``); its skill is listed as Codex lists it
(``<plugin>:<skill>``); its ChatGPT app is named as unsupported, never faked."""

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

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "codex" / "notes"


def test_a_codex_plugin_runs_its_mcp_tool_and_shows_its_skill(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    source = shutil.copytree(FIXTURE, tmp_path / "src" / "notes")
    # The fixture's calc.py (the SDK's server) as its standard-library twin: the subject is
    # the adapter (tests/_lite_mcp; the SDK's server is tests/agent_plugins' contract).
    lite_calc(source / "servers")
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    ws = ("--workspace", str(project))

    installed = cli_json(home, "install", str(source), env=env)
    assert (installed["id"], installed["ecosystem"]) == ("notes", "codex")
    inspected = cli_json(home, "inspect", "notes", env=env)
    assert "codex.app_unsupported" in {d["code"] for d in inspected["diagnostics"]}
    cli_json(home, "trust", "notes", env=env)
    cli_json(home, "enable", "notes", env=env)

    listed = json.dumps(cli_json(home, "list", *ws, env=env))
    assert "mcp__calc__add" in listed and "notes:tidy" in listed
    assert "mcp__calc__echo" not in listed  # the server's disabled_tools

    done = cli(home, "call", "mcp__calc__add", '{"a": 20, "b": 22}', *ws, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("42")


def test_a_codex_plugin_without_a_name_namespaces_its_skills_by_its_folder(
    tmp_path: Path,
) -> None:
    """Codex names a plugin without `name` by its folder; installed, the folder read was the
    version folder, and the skill was listed as `512cd104830e420aa427aa99b8b83888:tidy`."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    source = tmp_path / "src" / "notes-unnamed"
    shutil.copytree(FIXTURE / "skills", source / "skills")
    (source / ".codex-plugin").mkdir()
    (source / ".codex-plugin" / "plugin.json").write_text('{"version": "1.0.0"}')
    assert cli_json(home, "install", str(source))["id"] == "notes-unnamed"
    cli_json(home, "trust", "notes-unnamed")
    cli_json(home, "enable", "notes-unnamed")
    skills = [s["name"] for s in cli_json(home, "list", "--workspace", str(project))["skills"]]
    assert skills == ["notes-unnamed:tidy"], skills
