"""A Gemini CLI extension's hooks through the real gateway: installed, its hooks/hooks.json
run by Gemini CLI's hook protocol in a real, confined plugin-host process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gateway import ToolOutcome, open_gateway
from gateway.packages import install, load_adapters
from gateway.packages.secrets import set_secret
from gateway.store import StateStore

pytestmark = pytest.mark.anyio

SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}}}


def _extension(root: Path) -> Path:
    root.mkdir(parents=True)
    manifest = {"name": "guard", "version": "1.0.0",
                "settings": [{"name": "Team", "description": "d", "envVar": "TEAM"}]}  # fmt: skip
    (root / "gemini-extension.json").write_text(json.dumps(manifest))
    scripts = {
        # BeforeTool: Gemini CLI's exit 2 with the reason on stderr.
        "deny-rm.sh": (
            "#!/bin/sh\ncase \"$(cat)\" in *'rm -rf'*)\n"
            "  echo 'rm -rf is not allowed' >&2; exit 2;;\nesac\necho '{\"decision\": \"allow\"}'\n"
        ),
        # AfterTool: reads the result Gemini CLI hands it and answers with context.
        "audit.py": (
            "import json, os, sys\nevent = json.load(sys.stdin)\n"
            "seen = event['tool_response']['llmContent']\n"
            "print(json.dumps({'hookSpecificOutput': {'additionalContext': "
            "f\"{os.environ['TEAM']} saw {seen!r} from {event['tool_name']}\"}}))\n"
        ),
    }
    for name, text in scripts.items():
        (root / "hooks").mkdir(exist_ok=True)
        (root / "hooks" / name).write_text(text)
        (root / "hooks" / name).chmod(0o755)
    hooks = {"hooks": {
        "BeforeTool": [{"matcher": "run_shell_command", "hooks": [
            {"type": "command", "command": "${extensionPath}${/}hooks${/}deny-rm.sh"}]}],
        "AfterTool": [{"matcher": "shell", "hooks": [
            {"type": "command", "name": "audit", "timeout": 20000,
             "command": "python3 ${extensionPath}/hooks/audit.py"}]}],
        "AfterAgent": [{"hooks": [{"type": "command", "command": "true"}]}],
    }}  # fmt: skip
    (root / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    return root


def _install_ready(home: Path, source: Path) -> str:
    report = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    package_id = report.package.record.id
    with StateStore.open(home) as store:
        store.set_trusted(package_id, True)
        store.set_enabled(package_id, True)
        store.grant(package_id, ["hooks.rewrite"], ["hooks.rewrite"])
    return package_id


async def test_before_tool_blocks_a_call_and_after_tool_sees_the_result(workspace: Any) -> None:
    home = workspace.config.home
    package = _install_ready(home, _extension(workspace.home / "src" / "guard"))
    set_secret(home, package, "TEAM", "infra")
    ran: list[dict[str, Any]] = []

    async def shell(arguments: dict[str, Any]) -> ToolOutcome:
        ran.append(arguments)
        return ToolOutcome("a.txt")

    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.register_builtin_tool("run_shell_command", "Run a command", SCHEMA, shell)
        blocked = await gateway.call_tool("run_shell_command", {"command": "rm -rf /"})
        allowed = await gateway.call_tool("run_shell_command", {"command": "ls"})
        codes = [d.code for d in gateway.diagnostics]
    assert blocked.blocked and blocked.content == "rm -rf is not allowed"
    assert not allowed.blocked and ran == [{"command": "ls"}]
    assert allowed.content == (
        "a.txt\n\n<hook_context>infra saw 'a.txt' from run_shell_command</hook_context>"
    )
    assert "gemini.hooks_not_run" in codes  # AfterAgent has no gateway counterpart
