"""Claude Code plugins through the real gateway: installed, their slash commands run and
their skills listed; and (with the plugin host's main module, from the ``agent-plugins``
branch) their command hooks on the hook chain in a real plugin-host process."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import Any

import pytest

from gateway import ToolOutcome, open_gateway
from gateway.packages import install, load_adapters
from gateway.store import StateStore

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude_plugins"
HOST_MAIN = "adapters.plugin_host.__main__"


def _install_ready(home: Path, source: Path) -> str:
    report = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    package_id = report.package.record.id
    with StateStore.open(home) as store:
        store.set_trusted(package_id, True)
        store.set_enabled(package_id, True)
    return package_id


def _needs_plugin_host() -> None:
    """The plugin host's entry point comes from the agent-plugins branch."""
    if importlib.util.find_spec(HOST_MAIN) is None:
        pytest.skip("adapters.plugin_host has no __main__ yet (agent-plugins branch)")


async def test_installed_commands_run_with_claudes_argument_rules(workspace: Any) -> None:
    """The real commit-commands plugin: `/commit` runs its one allowed `!` line (`git
    status`) in the plugin host, in the workspace; the three allowed-tools does not allow
    are refused; the typed arguments are appended, as Claude Code does."""
    import subprocess

    subprocess.run(["git", "init", "-q", "-b", "trunk", str(workspace.root)], check=True)
    (workspace.root / "notes.txt").write_text("hello\n")
    home = workspace.config.home
    assert _install_ready(home, FIXTURES / "commit-commands") == "commit-commands"
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        command = gateway.registry.command("commit")
        assert command is not None and command.owner == "commit-commands"
        assert command.description == "Create a git commit"
        outcome = await gateway.run_command("commit", "only the docs")
        refused = [d for d in gateway.diagnostics if d.code == "claude.command_shell_line_refused"]
    assert outcome.prompt is not None
    # git reads the workspace and the system's gitconfig inside the sandbox.
    assert outcome.prompt.startswith("## Context\n\n- Current git status: On branch trunk")
    assert "\tnotes.txt\n" in outcome.prompt
    assert "Current branch: [not run: `git branch --show-current` is not allowed" in outcome.prompt
    assert outcome.prompt.endswith("\n\nARGUMENTS: only the docs")
    assert sorted(d.message.split("`!` line ")[1].split(" is")[0] for d in refused) == [
        "'git branch --show-current'",
        "'git diff HEAD'",
        "'git log --oneline -10'",
    ]


async def test_installed_skills_are_listed(workspace: Any) -> None:
    _install_ready(workspace.config.home, FIXTURES / "example-plugin")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        names = {s.name for s in gateway.discovery.skills}
        assert {"example-skill", "example-command"} <= names
        outcome = await gateway.run_command("example-command", "alpha beta")
        assert outcome.prompt is not None
        assert "The user invoked this command with: alpha beta" in outcome.prompt


def _hook_plugin(root: Path) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "guard"}))
    scripts = {
        "deny-rm.sh": (
            "#!/bin/sh\ninput=$(cat)\ncase \"$input\" in *'rm -rf'*)\n"
            "  echo 'rm -rf is not allowed' >&2; exit 2;;\nesac\nexit 0\n"
        ),
        "context.sh": "#!/bin/sh\necho 'Project rule: be brief.'\n",
        "prompt.sh": (
            '#!/bin/sh\ncase "$(cat)" in *password*)\n'
            "  echo 'no secrets in prompts' >&2; exit 2;;\nesac\necho 'Branch: main'\n"
        ),
        "lint.sh": "#!/bin/sh\necho 'lint: 2 warnings' >&2\nexit 2\n",
    }
    for name, text in scripts.items():
        path = root / "hooks" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755)
    hooks = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/deny-rm.sh"}
                    ],
                }
            ],
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/prompt.sh"}]}
            ],
            "PostToolUse": [
                {"matcher": "Edit", "hooks": [{"command": "${CLAUDE_PLUGIN_ROOT}/hooks/lint.sh"}]}
            ],
            "SessionStart": [
                {
                    "hooks": [
                        {"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/hooks/context.sh"}
                    ]
                }
            ],
        }
    }
    (root / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    return root


async def test_a_pre_tool_use_hook_blocks_a_builtin_tool_call(workspace: Any) -> None:
    _needs_plugin_host()  # needs the agent-plugins branch's plugin host
    _install_ready(workspace.config.home, _hook_plugin(workspace.home / "src" / "guard"))
    ran: list[dict[str, Any]] = []

    async def bash(arguments: dict[str, Any]) -> ToolOutcome:
        ran.append(arguments)
        return ToolOutcome("ran")

    schema = {"type": "object", "properties": {"command": {"type": "string"}}}
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.register_builtin_tool("Bash", "Run a shell command", schema, bash)
        blocked = await gateway.call_tool("Bash", {"command": "rm -rf /"})
        allowed = await gateway.call_tool("Bash", {"command": "ls"})
    assert blocked.blocked and blocked.content == "rm -rf is not allowed"
    assert not allowed.blocked and allowed.content == "ran"
    assert ran == [{"command": "ls"}]


async def test_session_start_context_joins_the_system_prompt(workspace: Any) -> None:
    _needs_plugin_host()  # needs the agent-plugins branch's plugin host
    _install_ready(workspace.config.home, _hook_plugin(workspace.home / "src" / "guard"))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.start_session()
        started = await gateway.before_agent_start("hi", "You are helpful.")
    assert started.system_prompt == "You are helpful.\n\nProject rule: be brief."


async def test_a_user_prompt_hook_blocks_or_adds_context(workspace: Any) -> None:
    _needs_plugin_host()  # needs the agent-plugins branch's plugin host
    _install_ready(workspace.config.home, _hook_plugin(workspace.home / "src" / "guard"))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        blocked = await gateway.submit_input("my password is hunter2")
        passed = await gateway.submit_input("fix the build")
    assert blocked.action == "handled"
    assert passed.action == "transform" and passed.text == "fix the build\n\nBranch: main"


async def test_post_tool_use_feedback_reaches_the_tool_result(workspace: Any) -> None:
    _needs_plugin_host()  # needs the agent-plugins branch's plugin host
    home = workspace.config.home
    guard = _install_ready(home, _hook_plugin(workspace.home / "src" / "guard"))

    async def edit(arguments: dict[str, Any]) -> ToolOutcome:
        return ToolOutcome("edited")

    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        gateway.register_builtin_tool("Edit", "Edit a file", {"type": "object"}, edit)
        refused = await gateway.call_tool("Edit", {"path": "a.py"})
    # Its feedback changes the result of the agent's own tool: that takes hooks.rewrite.
    assert refused.content == "edited"
    assert [d.code for d in refused.diagnostics] == ["hook.rewrite_refused"]
    with StateStore.open(home) as store:
        store.grant(guard, ["hooks.rewrite"], ["hooks.rewrite"])

    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        gateway.register_builtin_tool("Edit", "Edit a file", {"type": "object"}, edit)
        result = await gateway.call_tool("Edit", {"path": "a.py"})
    assert result.content == "edited\n\nlint: 2 warnings" and not result.is_error


async def test_a_hook_run_by_a_venvs_python_runs_in_the_sandbox(
    workspace: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31: a hook command that is a console script of a venv in the user's home (its
    `#!` names the venv's `python`) runs; it failed on the venv's `pyvenv.cfg`."""
    import subprocess
    import sys

    _needs_plugin_host()
    venv = workspace.home / "tools" / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    script = venv / "bin" / "rules-hook"
    script.write_text(f"#!{venv / 'bin' / 'python'}\nimport sys\nprint('Rules from', sys.prefix)\n")
    script.chmod(0o755)
    monkeypatch.setenv("HOME", str(workspace.home))
    monkeypatch.setenv("PATH", f"{venv / 'bin'}:{os.environ['PATH']}")
    root = workspace.home / "src" / "rules"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "rules"}))
    hooks = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "rules-hook"}]}]}}
    (root / "hooks").mkdir()
    (root / "hooks" / "hooks.json").write_text(json.dumps(hooks))
    _install_ready(workspace.config.home, root)
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        await gateway.start_session()
        started = await gateway.before_agent_start("hi", "You are helpful.")
    assert started.system_prompt == f"You are helpful.\n\nRules from {venv}"
