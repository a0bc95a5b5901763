"""Gemini CLI command hooks on the gateway's hook chain (``CommandHooks`` with Gemini CLI's
protocol, adapters.plugin_host._gemini_hooks), run through real ``sh`` scripts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.plugin_host._command_hooks import CommandHooks
from adapters.plugin_host._gemini_hook_config import read_gemini_hooks

pytestmark = pytest.mark.anyio

CALL = {"tool": "run_shell_command", "arguments": {"command": "ls", "dir": "."}}


def _script(root: Path, name: str, body: str) -> str:
    path = root / "hooks" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


def _hooks(root: Path, events: dict[str, list[dict[str, Any]]]) -> CommandHooks:
    data = root / "data"
    data.mkdir(exist_ok=True)
    return CommandHooks.from_config(
        {"hooks": events}, root=str(root), data_dir=str(data), env={"API_KEY": "k"},
        protocol="gemini",
    )  # fmt: skip


def _group(command: str, matcher: str | None = None, **extra: Any) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **extra}]}
    if matcher is not None:
        group["matcher"] = matcher
    return group


def _codes(hooks: CommandHooks) -> list[str]:
    return [d["code"] for d in hooks.diagnostics]


async def test_exit_2_blocks_the_tool_call_with_stderr_as_the_reason(tmp_path: Path) -> None:
    hook = _script(tmp_path, "deny.sh", "cat >/dev/null\necho 'no shell here' >&2\nexit 2\n")
    hooks = _hooks(tmp_path, {"BeforeTool": [_group(hook, "run_shell_command")]})
    assert hooks.events == ["tool_call"]
    reply = await hooks.dispatch("tool_call", CALL)
    assert reply == {"allow": False, "reason": "no shell here"}


async def test_decision_deny_blocks_and_allow_lets_the_call_through(tmp_path: Path) -> None:
    deny = _script(tmp_path, "d.sh", 'echo \'{"decision": "deny", "reason": "nope"}\'\n')
    allow = _script(tmp_path, "a.sh", 'echo \'{"decision": "allow"}\'\n')
    denying = _hooks(tmp_path, {"BeforeTool": [_group(deny)]})
    allowing = _hooks(tmp_path, {"BeforeTool": [_group(allow)]})
    assert await denying.dispatch("tool_call", CALL) == {"allow": False, "reason": "nope"}
    assert await allowing.dispatch("tool_call", CALL) == {}
    assert allowing.diagnostics == []


async def test_plain_text_after_exit_0_is_for_the_user_and_blocks_nothing(tmp_path: Path) -> None:
    hook = _script(tmp_path, "t.sh", "echo 'checked'\n")
    hooks = _hooks(tmp_path, {"BeforeTool": [_group(hook)]})
    assert await hooks.dispatch("tool_call", CALL) == {}


async def test_tool_input_is_merged_over_the_arguments(tmp_path: Path) -> None:
    reply = {"hookSpecificOutput": {"tool_input": {"dir": "/safe"}}}
    hook = _script(tmp_path, "m.sh", f"echo '{json.dumps(reply)}'\n")
    hooks = _hooks(tmp_path, {"BeforeTool": [_group(hook)]})
    assert await hooks.dispatch("tool_call", CALL) == {
        "arguments": {"command": "ls", "dir": "/safe"}
    }


async def test_the_matcher_is_a_regular_expression_searched_in_the_tool_name(
    tmp_path: Path,
) -> None:
    hook = _script(tmp_path, "deny.sh", "echo 'no' >&2\nexit 2\n")
    hooks = _hooks(tmp_path, {"BeforeTool": [_group(hook, "shell")]})
    assert (await hooks.dispatch("tool_call", CALL))["allow"] is False
    other = {"tool": "read_file", "arguments": {}}
    assert await hooks.dispatch("tool_call", other) == {}
    assert hooks.hook_tools == {}  # a regular expression narrows nothing


async def test_after_tool_sees_the_result_and_adds_context(tmp_path: Path) -> None:
    hook = _script(tmp_path, "seen.sh", (
        "input=$(cat)\n"
        "content=$(printf '%s' \"$input\" | python3 -c "
        "'import json,sys; print(json.load(sys.stdin)[\"tool_response\"][\"llmContent\"])')\n"
        'printf \'{"hookSpecificOutput": {"additionalContext": "saw %s"}}\' "$content"\n'
    ))  # fmt: skip
    hooks = _hooks(tmp_path, {"AfterTool": [_group(hook)]})
    reply = await hooks.dispatch("tool_result", {**CALL, "output": "a.txt", "is_error": False})
    assert reply == {"output": "a.txt\n\n<hook_context>saw a.txt</hook_context>"}


async def test_after_tool_deny_replaces_the_result(tmp_path: Path) -> None:
    hook = _script(tmp_path, "hide.sh", 'echo \'{"decision": "deny", "reason": "secret"}\'\n')
    hooks = _hooks(tmp_path, {"AfterTool": [_group(hook)]})
    reply = await hooks.dispatch("tool_result", {**CALL, "output": "key=1", "is_error": False})
    assert reply == {"output": "Tool result blocked: secret", "is_error": True}


async def test_the_hook_reads_geminis_event_and_environment(tmp_path: Path) -> None:
    hook = _script(tmp_path, "env.sh", (
        "cat > \"$GEMINI_PLANS_DIR/in.json\"\n"
        "env > \"$GEMINI_PLANS_DIR/env.txt\"\n"
    ))  # fmt: skip
    hooks = _hooks(tmp_path, {"BeforeTool": [_group(hook)]})
    payload = {**CALL, "session_id": "s-1", "workspace": str(tmp_path)}
    assert await hooks.dispatch("tool_call", payload) == {}
    seen = json.loads((tmp_path / "data" / "in.json").read_text())
    assert seen["hook_event_name"] == "BeforeTool" and seen["session_id"] == "s-1"
    assert seen["tool_name"] == "run_shell_command" and seen["tool_input"] == CALL["arguments"]
    assert seen["cwd"] == str(tmp_path) and seen["timestamp"].endswith("Z")
    env = (tmp_path / "data" / "env.txt").read_text().splitlines()
    for line in (
        f"GEMINI_PROJECT_DIR={tmp_path}",
        f"GEMINI_CWD={tmp_path}",
        "GEMINI_SESSION_ID=s-1",
        f"CLAUDE_PROJECT_DIR={tmp_path}",
        "API_KEY=k",
    ):
        assert line in env  # fmt: skip


async def test_before_agent_denies_the_prompt_or_adds_context(tmp_path: Path) -> None:
    hook = _script(tmp_path, "p.sh", (
        'case "$(cat)" in *password*) echo \'{"decision": "deny", "reason": "no"}\';;\n'
        '*) echo \'{"hookSpecificOutput": {"additionalContext": "Branch: main"}}\';; esac\n'
    ))  # fmt: skip
    hooks = _hooks(tmp_path, {"BeforeAgent": [_group(hook)]})
    assert await hooks.dispatch("input", {"text": "my password"}) == {"action": "handled"}
    assert await hooks.dispatch("input", {"text": "fix it"}) == {
        "text": "fix it\n\nBranch: main", "action": "transform",
    }  # fmt: skip


async def test_session_start_context_joins_the_system_prompt(tmp_path: Path) -> None:
    reply = {"hookSpecificOutput": {"additionalContext": "Be brief."}}
    hook = _script(tmp_path, "s.sh", f"echo '{json.dumps(reply)}'\n")
    hooks = _hooks(tmp_path, {"SessionStart": [_group(hook, "startup")]})
    assert hooks.events == ["session_start", "before_agent_start"]
    await hooks.dispatch("session_start", {})
    started = await hooks.dispatch("before_agent_start", {"system_prompt": "You help."})
    assert started == {"system_prompt": "You help.\n\nBe brief."}


async def test_a_timeout_is_in_milliseconds_and_fails_open(tmp_path: Path) -> None:
    hook = _script(tmp_path, "slow.sh", "sleep 5\necho 'late' >&2\nexit 2\n")
    hooks = _hooks(tmp_path, {"BeforeTool": [_group(hook, timeout=200)]})
    assert await hooks.dispatch("tool_call", CALL) == {}
    assert _codes(hooks) == ["gemini.hook_failed"]
    assert "timed out after 0.2 s" in hooks.diagnostics[0]["message"]


async def test_sequential_hooks_see_the_input_the_previous_one_made(tmp_path: Path) -> None:
    first = _script(tmp_path, "1.sh", (
        'cat >/dev/null\necho \'{"hookSpecificOutput": {"tool_input": {"dir": "/a"}}}\'\n'
    ))  # fmt: skip
    second = _script(tmp_path, "2.sh", (
        'case "$(cat)" in *\'"dir": "/a"\'*) exit 0;; esac\necho "not sequential" >&2\nexit 2\n'
    ))  # fmt: skip
    group = {"sequential": True, "hooks": [{"type": "command", "command": first},
                                           {"type": "command", "command": second}]}  # fmt: skip
    hooks = _hooks(tmp_path, {"BeforeTool": [group]})
    assert await hooks.dispatch("tool_call", CALL) == {"arguments": {"command": "ls", "dir": "/a"}}


def test_what_gemini_cli_skips_and_events_without_a_counterpart_are_coded() -> None:
    found, problems = read_gemini_hooks({"hooks": {
        "BeforeTool": [{"hooks": [{"command": "true"}]},  # no type: Gemini CLI drops it
                       {"hooks": [{"type": "command", "command": "true", "timeout": "1"}]},
                       {"matcher": "x", "hooks": [{"type": "command", "command": "ok"}]}],
        "AfterModel": [{"hooks": [{"type": "command", "command": "true"}]}],
        "Bogus": [],
        "enabled": True,
    }})  # fmt: skip
    assert [(hook.event, hook.command, hook.timeout) for hook in found] == [
        ("BeforeTool", "ok", 60.0)
    ]
    assert [p.code for p in problems] == [
        "gemini.hooks_invalid", "gemini.hooks_invalid", "gemini.hooks_not_run",
        "gemini.hooks_invalid",
    ]  # fmt: skip
    assert "'AfterModel' hooks never run" in problems[2].message
