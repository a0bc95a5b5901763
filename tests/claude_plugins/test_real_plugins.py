"""Real plugins from anthropics/claude-plugins-official (pinned, Apache-2.0; see
tests/fixtures/claude_plugins/README.md) inspect cleanly and their commands expand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters import _codes as adapters_codes
from adapters.claude_plugins import ClaudePluginsAdapter
from adapters.claude_plugins import _codes as codes
from adapters.plugin_host._command_hooks import CommandHooks
from adapters.registry import inspect_package
from gateway.base import Severity
from gateway.model import CatalogEntry

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "claude_plugins"
ADAPTER = ClaudePluginsAdapter()


def _entry(name: str) -> CatalogEntry:
    entry = inspect_package(FIXTURES / name)
    assert entry.ecosystem == "claude" and entry.id == name
    assert not [d for d in entry.diagnostics if d.severity is Severity.ERROR]
    return entry


def _kinds(entry: CatalogEntry, kind: str) -> list[str]:
    return sorted(c.name for c in entry.contributions if c.kind == kind)


def test_commit_commands_expand_with_claudes_argument_rule() -> None:
    entry = _entry("commit-commands")
    assert _kinds(entry, "prompt") == ["clean_gone", "commit", "commit-push-pr"]
    ignored = [d.message for d in entry.diagnostics if d.code == "claude.command_field_ignored"]
    # Both have `!` lines, which their allowed-tools decides: said so, never "not applied".
    assert len(ignored) == 2 and all("not applied" not in m for m in ignored)
    assert all("`allowed-tools` limits only its `!` lines here" in m for m in ignored)
    lines = [d for d in entry.diagnostics if d.code.startswith("claude.command_shell_line")]
    allowed = [d.message for d in lines if d.code == "claude.command_shell_line_runs"]
    assert len(lines) == 7 and len(allowed) == 2  # only `git status` is in allowed-tools
    assert all("'git status'" in m for m in allowed)
    # The two with `!` lines are the plugin host's (it runs them); the third is served here.
    assert entry.runtime == "python-sidecar"
    assert entry.metadata["shell_commands"] == ["commit-push-pr", "commit"]
    (clean_gone,) = ADAPTER.package_resources(entry).prompts
    assert clean_gone.name == "clean_gone" and clean_gone.expand is not None
    assert clean_gone.expand(clean_gone.body, "").startswith("## Your Task")


def test_example_plugin_lists_its_command_skills_and_remote_server() -> None:
    entry = _entry("example-plugin")
    assert _kinds(entry, "prompt") == ["example-command"]
    assert _kinds(entry, "skill") == ["example-command", "example-skill"]
    assert list(entry.metadata["remote_servers"]) == ["example-server"]
    assert [p.name for p in entry.permissions] == ["network:mcp.example.com:443"]
    assert entry.runtime == "python-sidecar"  # the plugin host connects the remote server
    (prompt,) = ADAPTER.package_resources(entry).prompts
    assert prompt.expand is not None
    assert "invoked this command with: first second" in prompt.expand(prompt.body, "first second")


def test_feature_dev_reports_its_subagents() -> None:
    entry = _entry("feature-dev")
    assert entry.metadata["agents"] == ["code-architect", "code-explorer", "code-reviewer"]
    assert [d.code for d in entry.diagnostics] == [codes.CLAUDE_COMPONENT_UNSUPPORTED.code]
    (prompt,) = ADAPTER.package_resources(entry).prompts
    assert prompt.expand is not None
    assert "Initial request: add dark mode" in prompt.expand(prompt.body, "add dark mode")


def test_ralph_loop_names_its_stop_hook_and_runs_its_setup_line() -> None:
    entry = _entry("ralph-loop")
    found = [d.code for d in entry.diagnostics]
    assert adapters_codes.CLAUDE_HOOK_EVENT_UNSUPPORTED.code in found
    assert codes.COMMAND_SHELL_LINE_RUNS.code in found  # its quoted script, by its own rule
    assert entry.metadata["hooks"] is None
    assert entry.runtime == "python-sidecar" and entry.metadata["shell_commands"] == ["ralph-loop"]
    assert _kinds(entry, "prompt") == ["cancel-ralph", "help", "ralph-loop"]
    ignored = {
        d.message for d in entry.diagnostics if d.code == codes.CLAUDE_COMMAND_FIELD_IGNORED.code
    }
    assert ignored == {  # cancel-ralph has no `!` line: its allowed-tools has nothing to limit
        "commands/cancel-ralph.md: `allowed-tools` is not applied (the gateway's permission "
        "prompts apply)",
        "commands/ralph-loop.md: `allowed-tools` limits only its `!` lines here, not the "
        "model's tool calls (the gateway's permission prompts apply)",
    }


@pytest.mark.anyio
async def test_explanatory_output_style_session_context_reaches_the_model(tmp_path: Path) -> None:
    entry = _entry("explanatory-output-style")
    assert entry.runtime == "python-sidecar"
    assert [(c.kind, c.target) for c in entry.contributions] == [("hook", "session_start")]
    hooks = CommandHooks.from_config(
        entry.metadata["hooks"], root=entry.root, data_dir=str(tmp_path), env={}
    )
    assert hooks.events == ["session_start", "session_compact", "before_agent_start"]
    assert await hooks.dispatch("session_start", {"session_id": "s", "reason": "startup"}) == {}
    reply = await hooks.dispatch("before_agent_start", {"prompt": "hi", "system_prompt": "Base."})
    assert reply["system_prompt"].startswith("Base.\n\nYou are in 'explanatory' output style")
    assert hooks.diagnostics == []


def test_the_fixtures_are_the_pinned_upstream_files() -> None:
    manifest = json.loads((FIXTURES / "ralph-loop" / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "ralph-loop"
    assert "340e33aef211d95769d252324854497af871dafe" in (FIXTURES / "README.md").read_text()
