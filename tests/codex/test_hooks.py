"""A Codex plugin's hooks through the real gateway, in a confined plugin-host process, where
Codex runs them: in the session's working folder (the workspace), with ``PLUGIN_ROOT`` and
``PLUGIN_DATA`` (and their ``CLAUDE_`` twins) naming the plugin's folders. Codex's
``codex-rs/hooks/src/engine/command_runner.rs`` sets a plugin hook's ``current_dir`` to the
session's cwd, as for every other hook; only a relative ``cwd`` of an MCP server is the
plugin's folder (``codex-mcp/src/plugin_config.rs``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gateway import ToolOutcome, open_gateway
from gateway.packages import install, load_adapters
from gateway.store import StateStore

pytestmark = pytest.mark.anyio


def _plugin(root: Path) -> Path:
    (root / ".codex-plugin").mkdir(parents=True)
    (root / ".codex-plugin" / "plugin.json").write_text(json.dumps({"name": "where"}))
    script = root / "hooks" / "where.sh"
    script.parent.mkdir()
    # Blocks with where it ran and what PLUGIN_ROOT names, to read both in the reason.
    script.write_text(
        '#!/bin/sh\ncat >/dev/null\necho "cwd=$(pwd) root=$PLUGIN_ROOT" >&2\nexit 2\n'
    )
    script.chmod(0o755)
    hooks = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": '"$PLUGIN_ROOT/hooks/where.sh"'}]}]}}  # fmt: skip
    (root / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    return root


async def test_a_codex_hook_runs_in_the_workspace_with_plugin_root_set(workspace: Any) -> None:
    home = workspace.config.home
    report = install(
        home, str(_plugin(workspace.home / "src" / "where")), kind="local",
        inspector=load_adapters().inspect,
    )  # fmt: skip
    package = report.package.record
    with StateStore.open(home) as store:
        store.set_trusted(package.id, True)
        store.set_enabled(package.id, True)

    async def bash(arguments: dict[str, Any]) -> ToolOutcome:
        return ToolOutcome("ran")

    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.register_builtin_tool("Bash", "Run a command", {"type": "object"}, bash)
        blocked = await gateway.call_tool("Bash", {"command": "ls"})
    assert blocked.blocked
    assert blocked.content == f"cwd={workspace.root} root={package.path}"
