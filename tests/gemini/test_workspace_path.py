"""``${workspacePath}`` is the session's workspace, filled where Gemini CLI fills it (an MCP
server's ``args``, ``env``, ``cwd``; a hook's command) by the plugin host when it starts:
the gateway's own working directory is another folder here, as under
``gateway serve --workspace``."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from gateway import ToolOutcome, open_gateway
from gateway.packages import install, load_adapters
from gateway.store import StateStore

pytestmark = pytest.mark.anyio

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "gemini" / "notes"


def _extension(root: Path) -> Path:
    shutil.copytree(FIXTURE, root)
    manifest = json.loads((root / "gemini-extension.json").read_text())
    manifest.pop("settings")
    manifest["mcpServers"]["calc"] = {
        "command": sys.executable,  # the one with the MCP SDK
        "args": ["${extensionPath}${/}servers${/}calc.py"],
        "env": {"CALC_GREETING": "in ${workspacePath}"},
        "cwd": "${workspacePath}",
    }
    (root / "gemini-extension.json").write_text(json.dumps(manifest))
    hooks = {"hooks": {"BeforeTool": [{"matcher": "^probe$", "hooks": [
        {"type": "command", "command": "echo 'seen ${workspacePath}' >&2; exit 2"}]}]}}  # fmt: skip
    (root / "hooks").mkdir()
    (root / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    return root


async def test_workspace_path_is_the_sessions_workspace(workspace: Any) -> None:
    home = workspace.config.home
    report = install(
        home, str(_extension(workspace.home / "src" / "notes")), kind="local",
        inspector=load_adapters().inspect,
    )  # fmt: skip
    package = report.package.record.id
    with StateStore.open(home) as store:
        store.set_trusted(package, True)
        store.set_enabled(package, True)

    async def probe(arguments: dict[str, Any]) -> ToolOutcome:
        return ToolOutcome("ran")

    root = workspace.root
    assert Path.cwd() != root
    async with open_gateway(
        root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.register_builtin_tool("probe", "A probe", {"type": "object"}, probe)
        echoed = await gateway.call_tool("mcp_calc_echo", {"text": "hi"})
        blocked = await gateway.call_tool("probe", {})
    assert not echoed.is_error, echoed.content
    assert echoed.content.startswith(f"hi (in {root}; ")
    assert echoed.content.endswith(f"; cwd={root})")
    assert blocked.blocked and blocked.content == f"seen {root}"
