"""One plugin-host launch plan for every format it hosts (adapters/_host_plan.py): the
gateway's own rules hold alike for an Agent Plugin, a Claude Code plugin, a Codex plugin and
a Gemini CLI extension; only the format's placeholders, names and codes differ."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from adapters.agent_plugins import AgentPluginsAdapter
from adapters.claude_plugins import ClaudePluginsAdapter
from adapters.registry import inspect_package
from gateway.model import LaunchSpec

CLAUDE, AGENT = ClaudePluginsAdapter(), AgentPluginsAdapter()
AGENT_SCHEMA = "https://agent-plugins.org/schemas/1.0.0/"


def _claude(root: Path, servers: dict[str, Any], **files: str) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "demo"}))
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    for rel, text in files.items():
        (root / rel).write_text(text)
    return root


def _agent(root: Path, servers: dict[str, Any]) -> Path:
    root.mkdir(parents=True)
    plugin = {"$schema": AGENT_SCHEMA + "plugin.schema.json", "name": "demo"}
    (root / "plugin.json").write_text(json.dumps(plugin))
    mcp = {"$schema": AGENT_SCHEMA + "mcp.schema.json", "mcpServers": servers}
    (root / "mcp.json").write_text(json.dumps(mcp))
    return root


def _config(spec: LaunchSpec) -> dict[str, Any]:
    return json.loads(Path(spec.command[spec.command.index("--config") + 1]).read_text())


def test_the_reply_timeout_is_the_plugin_hosts_own_variable_not_nanobots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_NANOBOT_TIMEOUT", "7")
    monkeypatch.setenv("GATEWAY_PLUGIN_HOST_TIMEOUT", "45")
    for adapter, root in (
        (CLAUDE, _claude(tmp_path / "c", {"s": {"command": "sh"}})),
        (AGENT, _agent(tmp_path / "a", {"s": {"type": "stdio", "command": "sh"}})),
    ):
        spec = adapter.plan_launch(inspect_package(root), tmp_path / "home")
        assert isinstance(spec, LaunchSpec) and spec.response_timeout == 45.0


def test_none_waits_forever_for_every_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_PLUGIN_HOST_TIMEOUT", "none")
    hooks = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    root = _claude(tmp_path / "c", {"s": {"command": "sh"}})
    (root / "hooks").mkdir()
    (root / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    spec = CLAUDE.plan_launch(inspect_package(root), tmp_path / "home")
    assert isinstance(spec, LaunchSpec) and spec.response_timeout is None


def test_a_claude_servers_missing_command_is_said_when_the_launch_is_planned(
    tmp_path: Path,
) -> None:
    root = _claude(tmp_path / "c", {"gone": {"command": "no-such-program-here"},
                                    "ok": {"command": "sh"}})  # fmt: skip
    spec = CLAUDE.plan_launch(inspect_package(root), tmp_path / "home")
    assert isinstance(spec, LaunchSpec)
    assert [(d.code, d.contribution) for d in spec.diagnostics] == [
        ("claude.command_not_found", "gone")
    ]
    assert _config(spec)["servers"]["ok"]["command"] == shutil.which("sh")


def test_a_claude_server_named_by_the_plugin_root_runs_the_file_inside_it(
    tmp_path: Path,
) -> None:
    root = _claude(tmp_path / "c", {"s": {"command": "${CLAUDE_PLUGIN_ROOT}/server.sh"}},
                   **{"server.sh": "#!/bin/sh\n"})  # fmt: skip
    spec = CLAUDE.plan_launch(inspect_package(root), tmp_path / "home")
    assert isinstance(spec, LaunchSpec) and not spec.diagnostics
    assert _config(spec)["servers"]["s"]["command"] == str(root / "server.sh")
    assert str(root / "server.sh") not in spec.programs  # the plugin's content, not PATH's


def test_a_relative_working_directory_is_under_the_package_for_every_format(
    tmp_path: Path,
) -> None:
    claude = _claude(tmp_path / "c", {"s": {"command": "sh", "cwd": "sub"}})
    agent = _agent(tmp_path / "a", {"s": {"type": "stdio", "command": "sh", "cwd": "./sub"}})
    for adapter, root in ((CLAUDE, claude), (AGENT, agent)):
        (root / "sub").mkdir()
        spec = adapter.plan_launch(inspect_package(root), tmp_path / "home")
        assert isinstance(spec, LaunchSpec)
        assert _config(spec)["servers"]["s"]["cwd"] == str(root / "sub")


def test_a_working_directory_in_the_data_folder_is_made_for_every_format(
    tmp_path: Path,
) -> None:
    claude = _claude(tmp_path / "c", {"s": {"command": "sh", "cwd": "${CLAUDE_PLUGIN_DATA}/w"}})
    agent = _agent(tmp_path / "a", {"s": {"type": "stdio", "command": "sh",
                                          "cwd": "${PLUGIN_DATA}/w"}})  # fmt: skip
    for adapter, root in ((CLAUDE, claude), (AGENT, agent)):
        spec = adapter.plan_launch(inspect_package(root), tmp_path / "home")
        assert isinstance(spec, LaunchSpec)
        cwd = Path(_config(spec)["servers"]["s"]["cwd"])
        assert cwd.is_dir() and cwd.parent in spec.writes


def test_no_server_writes_bytecode_into_its_package_whatever_the_format(
    tmp_path: Path,
) -> None:
    claude = _claude(tmp_path / "c", {"s": {"command": "sh", "env": {"X": "1"}}})
    agent = _agent(tmp_path / "a", {"s": {"type": "stdio", "command": "sh"}})
    for adapter, root in ((CLAUDE, claude), (AGENT, agent)):
        spec = adapter.plan_launch(inspect_package(root), tmp_path / "home")
        assert isinstance(spec, LaunchSpec)
        assert _config(spec)["servers"]["s"]["env"]["PYTHONDONTWRITEBYTECODE"] == "1"


def test_every_format_gives_its_servers_the_same_start_bound(tmp_path: Path) -> None:
    claude = _claude(tmp_path / "c", {"s": {"command": "sh"}})
    agent = _agent(tmp_path / "a", {"s": {"type": "stdio", "command": "sh"}})
    bounds = set()
    for adapter, root in ((CLAUDE, claude), (AGENT, agent)):
        spec = adapter.plan_launch(inspect_package(root), tmp_path / "home")
        assert isinstance(spec, LaunchSpec)
        bounds.add(spec.start_timeout)
    assert len(bounds) == 1 and None not in bounds
