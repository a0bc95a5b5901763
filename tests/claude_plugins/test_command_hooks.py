"""Claude Code command hooks on the gateway's hook chain (adapters.plugin_host._command_hooks),
run through real ``sh`` scripts."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from adapters import _codes as adapters_codes
from adapters.plugin_host import _codes as codes
from adapters.plugin_host._command_hooks import CommandHooks

pytestmark = pytest.mark.anyio


def _script(root: Path, name: str, body: str) -> str:
    path = root / "scripts" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return f"${{CLAUDE_PLUGIN_ROOT}}/scripts/{name}"


def _hooks(root: Path, events: dict[str, list[dict[str, Any]]]) -> CommandHooks:
    data = root / "data"
    data.mkdir(exist_ok=True)
    return CommandHooks.from_config(
        {"hooks": events}, root=str(root), data_dir=str(data), env={"EXTRA": "yes"}
    )


def _command(command: str, matcher: str | None = None, **extra: Any) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **extra}]}
    if matcher is not None:
        group["matcher"] = matcher
    return group


def _codes_of(hooks: CommandHooks) -> list[str]:
    return [d["code"] for d in hooks.diagnostics]


CALL = {"tool": "Write", "arguments": {"file_path": "/tmp/x", "content": "hi"}}


async def test_exit_2_blocks_the_call_with_stderr_as_the_reason(tmp_path: Path) -> None:
    hook = _script(tmp_path, "deny.sh", "echo 'no writes here' >&2\nexit 2\n")
    hooks = _hooks(tmp_path, {"PreToolUse": [_command(hook, "Write")]})
    assert hooks.events == ["tool_call"]
    assert await hooks.dispatch("tool_call", CALL) == {"allow": False, "reason": "no writes here"}


async def test_exit_0_with_json_decision_block_blocks_with_its_reason(tmp_path: Path) -> None:
    hook = _script(tmp_path, "j.sh", 'echo \'{"decision": "block", "reason": "nope"}\'\n')
    hooks = _hooks(tmp_path, {"PreToolUse": [_command(hook)]})
    assert await hooks.dispatch("tool_call", CALL) == {"allow": False, "reason": "nope"}


async def test_permission_decision_deny_blocks_with_its_reason(tmp_path: Path) -> None:
    reply = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "protected path",
        }
    }
    hook = _script(tmp_path, "d.sh", f"cat <<'EOF'\n{json.dumps(reply)}\nEOF\n")
    hooks = _hooks(tmp_path, {"PreToolUse": [_command(hook)]})
    assert await hooks.dispatch("tool_call", CALL) == {"allow": False, "reason": "protected path"}


async def test_permission_decision_allow_lets_the_call_through(tmp_path: Path) -> None:
    reply = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
    hook = _script(tmp_path, "a.sh", f"echo '{json.dumps(reply)}'\n")
    hooks = _hooks(tmp_path, {"PreToolUse": [_command(hook)]})
    assert await hooks.dispatch("tool_call", CALL) == {}
    assert hooks.diagnostics == []


async def test_permission_decision_ask_blocks_since_no_one_can_confirm(tmp_path: Path) -> None:
    reply = {
        "hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}
    }
    hook = _script(tmp_path, "ask.sh", f"echo '{json.dumps(reply)}'\n")
    hooks = _hooks(tmp_path, {"PreToolUse": [_command(hook)]})
    reply_fields = await hooks.dispatch("tool_call", CALL)
    assert reply_fields["allow"] is False and "sure?" in reply_fields["reason"]
    assert codes.CLAUDE_HOOK_OUTPUT_IGNORED.code in _codes_of(hooks)


async def test_updated_input_rewrites_the_arguments(tmp_path: Path) -> None:
    # The hook reads the event from stdin and rewrites the path it names.
    body = (
        'python3 -c \'import json,sys; e=json.load(sys.stdin); i=e["tool_input"]; '
        'i["file_path"]=i["file_path"]+".safe"; '
        'print(json.dumps({"hookSpecificOutput": {"permissionDecision": "allow", '
        '"updatedInput": i}}))\'\n'
    )
    hook = _script(tmp_path, "rewrite.sh", body)
    hooks = _hooks(tmp_path, {"PreToolUse": [_command(hook, "Write|Edit")]})
    reply = await hooks.dispatch("tool_call", CALL)
    assert reply == {"arguments": {"file_path": "/tmp/x.safe", "content": "hi"}}


async def test_the_event_reaches_stdin_in_claudes_shape(tmp_path: Path) -> None:
    out = tmp_path / "seen.json"
    hook = _script(tmp_path, "record.sh", f'cat > "{out}"\nenv > "{out}.env"\n')
    hooks = _hooks(
        tmp_path,
        {"PreToolUse": [_command(hook)], "SessionStart": [_command(hook)]},
    )
    await hooks.dispatch("session_start", {"session_id": "s1", "workspace": str(tmp_path)})
    await hooks.dispatch("tool_call", CALL)
    seen = json.loads(out.read_text())
    assert seen["hook_event_name"] == "PreToolUse"
    assert seen["tool_name"] == "Write" and seen["tool_input"] == CALL["arguments"]
    assert seen["session_id"] == "s1" and seen["cwd"] == str(tmp_path)
    env = out.with_name("seen.json.env").read_text().splitlines()
    assert f"CLAUDE_PLUGIN_ROOT={tmp_path}" in env
    assert f"CLAUDE_PROJECT_DIR={tmp_path}" in env
    assert f"CLAUDE_PLUGIN_DATA={tmp_path / 'data'}" in env
    assert "EXTRA=yes" in env


@pytest.mark.parametrize(
    ("matcher", "tool", "runs"),
    [
        ("Write|Edit", "Edit", True),
        ("Write|Edit", "MultiEdit", False),
        ("Write", "WriteFile", False),
        ("mcp__.*", "mcp__plugin_x_srv__search", True),
        ("mcp__.*", "Bash", False),
        ("", "Bash", True),
        ("*", "anything", True),
        (None, "anything", True),
    ],
)
async def test_the_matcher_selects_tools_by_claudes_rule(
    tmp_path: Path, matcher: str | None, tool: str, runs: bool
) -> None:
    hook = _script(tmp_path, "m.sh", "echo matched >&2\nexit 2\n")
    hooks = _hooks(tmp_path, {"PreToolUse": [_command(hook, matcher)]})
    reply = await hooks.dispatch("tool_call", {"tool": tool, "arguments": {}})
    assert (reply.get("allow") is False) is runs


async def test_a_timeout_kills_the_group_and_fails_open(tmp_path: Path) -> None:
    pid = tmp_path / "background.pid"
    # Neither the hook nor its child in the background ends by itself; the child would
    # outlive a kill of the shell alone. The timeout leaves the shell ample time to start it.
    hook = _script(tmp_path, "slow.sh", f"sleep 600 &\necho $! > '{pid}'\nsleep 600\nexit 2\n")
    hooks = _hooks(tmp_path, {"PreToolUse": [_command(hook, timeout=2)]})
    with anyio.fail_after(120):  # caps a hang: only a kill ends the hook
        assert await hooks.dispatch("tool_call", CALL) == {}
    assert _codes_of(hooks) == [codes.CLAUDE_HOOK_FAILED.code]
    assert "timed out" in hooks.diagnostics[0]["message"]
    with anyio.fail_after(60):  # caps a hang: SIGKILL to the group lands at once
        while not _gone(int(pid.read_text())):
            await anyio.sleep(0.01)


def _gone(pid: int) -> bool:
    """Whether ``pid`` is dead (a zombie counts)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


async def test_another_nonzero_exit_is_a_non_blocking_error(tmp_path: Path) -> None:
    hook = _script(tmp_path, "one.sh", "echo 'jq: not found' >&2\nexit 1\n")
    hooks = _hooks(tmp_path, {"PreToolUse": [_command(hook)]})
    assert await hooks.dispatch("tool_call", CALL) == {}
    assert _codes_of(hooks) == [codes.CLAUDE_HOOK_FAILED.code]
    assert "exited with 1" in hooks.diagnostics[0]["message"]
    assert "jq: not found" in hooks.diagnostics[0]["message"]


async def test_two_blocking_hooks_both_run_and_their_reasons_join(tmp_path: Path) -> None:
    # In parallel, as in Claude Code: each hook waits on the other through a FIFO (opening
    # one end blocks until the other end is open), so hooks run one after the other would
    # hold the first until its timeout, and it would fail open instead of blocking.
    fifo = tmp_path / "rendezvous"
    os.mkfifo(fifo)
    first = _script(tmp_path, "a.sh", f"echo go > '{fifo}'\necho first >&2\nexit 2\n")
    second = _script(tmp_path, "b.sh", f"cat '{fifo}' > /dev/null\necho second >&2\nexit 2\n")
    group = {"hooks": [{"type": "command", "command": c, "timeout": 30} for c in (first, second)]}
    hooks = _hooks(tmp_path, {"PreToolUse": [group]})
    reply = await hooks.dispatch("tool_call", CALL)
    assert reply == {"allow": False, "reason": "first; second"}


async def test_the_same_command_twice_runs_once(tmp_path: Path) -> None:
    count = tmp_path / "count"
    hook = _script(tmp_path, "c.sh", f"echo x >> '{count}'\n")
    hooks = _hooks(tmp_path, {"PreToolUse": [_command(hook, "Write"), _command(hook, "*")]})
    await hooks.dispatch("tool_call", CALL)
    assert count.read_text() == "x\n"


async def test_huge_output_is_capped_and_the_hook_fails_open(tmp_path: Path) -> None:
    hook = _script(tmp_path, "loud.sh", "yes 'spam spam spam'\n")
    hooks = _hooks(tmp_path, {"PreToolUse": [_command(hook)]})
    with anyio.fail_after(120):  # caps a hang: `yes` never ends by itself
        assert await hooks.dispatch("tool_call", CALL) == {}
    assert "more than" in hooks.diagnostics[0]["message"]


async def test_malformed_entries_are_diagnostics_and_the_rest_load(tmp_path: Path) -> None:
    good = _script(tmp_path, "g.sh", "echo fine >&2\nexit 2\n")
    hooks = _hooks(
        tmp_path,
        {
            "PreToolUse": [
                "not an object",
                {"matcher": "(", "hooks": [{"type": "command", "command": good}]},
                {"matcher": "Write", "hooks": "nope"},
                {
                    "hooks": [
                        {"type": "command"},
                        {"type": "command", "command": good, "timeout": -1},
                    ]
                },
                {"hooks": [{"type": "prompt", "prompt": "judge it"}]},
                _command(good, "Write"),
            ],
            "Stop": [_command(good)],
            "Whatever": [_command(good)],
            "PostToolUse": {"not": "a list"},
        },
    )
    found = _codes_of(hooks)
    assert found.count(adapters_codes.CLAUDE_HOOKS_INVALID.code) == 6
    assert found.count(codes.CLAUDE_HOOK_TYPE_UNSUPPORTED.code) == 1
    assert found.count(adapters_codes.CLAUDE_HOOK_EVENT_UNSUPPORTED.code) == 2
    assert any("'Stop'" in d["message"] for d in hooks.diagnostics)
    assert len(hooks.hooks) == 1 and hooks.events == ["tool_call"]
    assert await hooks.dispatch("tool_call", CALL) == {"allow": False, "reason": "fine"}


async def test_post_tool_use_feedback_is_appended_to_the_output(tmp_path: Path) -> None:
    lint = _script(tmp_path, "lint.sh", "echo 'line 3: unused import' >&2\nexit 2\n")
    reply = {"hookSpecificOutput": {"additionalContext": "formatted with black"}}
    fmt = _script(tmp_path, "fmt.sh", f"echo '{json.dumps(reply)}'\n")
    group = {"matcher": "Edit", "hooks": [{"command": lint}, {"command": fmt}]}
    hooks = _hooks(tmp_path, {"PostToolUse": [group]})
    assert hooks.events == ["tool_result"]
    result = {"tool": "Edit", "arguments": {}, "output": "edited", "is_error": False}
    reply_fields = await hooks.dispatch("tool_result", result)
    assert reply_fields == {"output": "edited\n\nline 3: unused import\n\nformatted with black"}


async def test_user_prompt_block_marks_the_input_handled(tmp_path: Path) -> None:
    hook = _script(tmp_path, "p.sh", "echo 'secrets in prompt' >&2\nexit 2\n")
    hooks = _hooks(tmp_path, {"UserPromptSubmit": [_command(hook)]})
    assert hooks.events == ["input"]
    reply = await hooks.dispatch("input", {"text": "my key is sk-123", "source": "interactive"})
    assert reply == {"action": "handled"}
    assert "secrets in prompt" in hooks.diagnostics[0]["message"]


async def test_user_prompt_plain_stdout_is_added_to_the_text(tmp_path: Path) -> None:
    hook = _script(tmp_path, "ctx.sh", "echo 'Current branch: main'\n")
    hooks = _hooks(tmp_path, {"UserPromptSubmit": [_command(hook)]})
    reply = await hooks.dispatch("input", {"text": "fix it", "source": "interactive"})
    assert reply == {"text": "fix it\n\nCurrent branch: main", "action": "transform"}


async def test_a_user_prompt_hook_runs_whatever_its_matcher_says(tmp_path: Path) -> None:
    hook = _script(tmp_path, "any.sh", "echo 'note'\n")
    hooks = _hooks(tmp_path, {"UserPromptSubmit": [_command(hook, "Write")]})
    reply = await hooks.dispatch("input", {"text": "hi", "source": "interactive"})
    assert reply == {"text": "hi\n\nnote", "action": "transform"}


async def test_session_start_context_joins_the_system_prompt(tmp_path: Path) -> None:
    reply = {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "Be brief."}
    }
    hook = _script(tmp_path, "s.sh", f"echo '{json.dumps(reply)}'\n")
    hooks = _hooks(tmp_path, {"SessionStart": [_command(hook)]})
    assert hooks.events == ["session_start", "session_compact", "before_agent_start"]
    start = {"prompt": "hi", "system_prompt": "You help."}
    assert await hooks.dispatch("before_agent_start", start) == {}
    assert await hooks.dispatch("session_start", {"session_id": "s", "reason": "startup"}) == {}
    reply_fields = await hooks.dispatch("before_agent_start", start)
    assert reply_fields == {"system_prompt": "You help.\n\nBe brief."}


async def test_session_start_matcher_is_the_source(tmp_path: Path) -> None:
    hook = _script(tmp_path, "s.sh", "echo resumed\n")
    hooks = _hooks(tmp_path, {"SessionStart": [_command(hook, "resume")]})
    start = {"prompt": "hi", "system_prompt": ""}
    await hooks.dispatch("session_start", {"session_id": "s", "reason": "startup"})
    assert await hooks.dispatch("before_agent_start", start) == {}
    await hooks.dispatch("session_start", {"session_id": "s", "reason": "resume"})
    assert await hooks.dispatch("before_agent_start", start) == {"system_prompt": "resumed"}


async def test_a_compaction_starts_the_session_again_with_source_compact(tmp_path: Path) -> None:
    hook = _script(tmp_path, "s.sh", 'echo "again: $(cat | grep -o compact)"\n')
    hooks = _hooks(tmp_path, {"SessionStart": [_command(hook, "compact")]})
    start = {"prompt": "hi", "system_prompt": ""}
    assert await hooks.dispatch("session_compact", {"did_compact": False}) == {}
    assert await hooks.dispatch("before_agent_start", start) == {}
    assert await hooks.dispatch("session_compact", {"did_compact": True, "summary": "s"}) == {}
    assert await hooks.dispatch("before_agent_start", start) == {"system_prompt": "again: compact"}


async def test_pre_compact_block_stops_the_compaction(tmp_path: Path) -> None:
    hook = _script(tmp_path, "c.sh", "echo 'not now' >&2\nexit 2\n")
    hooks = _hooks(tmp_path, {"PreCompact": [_command(hook, "manual")]})
    assert hooks.events == ["session_before_compact"]
    reply = await hooks.dispatch("session_before_compact", {"instruction": "", "tokens_before": 0})
    assert reply == {"allow": False, "reason": "not now"}


async def test_session_end_block_cannot_block_and_says_so(tmp_path: Path) -> None:
    hook = _script(tmp_path, "e.sh", "echo bye >&2\nexit 2\n")
    hooks = _hooks(tmp_path, {"SessionEnd": [_command(hook)]})
    assert await hooks.dispatch("session_end", {"session_id": "s", "reason": "quit"}) == {}
    assert _codes_of(hooks) == [codes.CLAUDE_HOOK_OUTPUT_IGNORED.code]


async def test_hook_text_in_diagnostics_is_printable(tmp_path: Path) -> None:
    hook = _script(tmp_path, "esc.sh", "printf 'bad\\033]52;c;evil\\007' >&2\nexit 1\n")
    hooks = _hooks(tmp_path, {"PreToolUse": [_command(hook)]})
    await hooks.dispatch("tool_call", CALL)
    assert "\x1b" not in hooks.diagnostics[0]["message"]
    assert "\\x1b" in hooks.diagnostics[0]["message"]


async def test_the_plugin_root_is_expanded_by_the_shell_never_spliced(tmp_path: Path) -> None:
    root = tmp_path / "a;>pwned;$(id)b"
    root.mkdir()
    hook = _script(root, "deny.sh", "echo 'ran' >&2\nexit 2\n")
    hooks = _hooks(root, {"PreToolUse": [_command(hook)]})
    assert await hooks.dispatch("tool_call", CALL) == {"allow": False, "reason": "ran"}
    assert not list(tmp_path.rglob("pwned")) and not (Path.cwd() / "pwned").exists()


async def test_new_diagnostics_are_handed_out_once(tmp_path: Path) -> None:
    hook = _script(tmp_path, "one.sh", "exit 1\n")
    hooks = _hooks(tmp_path, {"PreToolUse": [_command(hook)], "Stop": [_command(hook)]})
    assert [d["code"] for d in hooks.new_diagnostics()] == [
        adapters_codes.CLAUDE_HOOK_EVENT_UNSUPPORTED.code
    ]
    assert hooks.new_diagnostics() == []
    await hooks.dispatch("tool_call", CALL)
    assert [d["code"] for d in hooks.new_diagnostics()] == [codes.CLAUDE_HOOK_FAILED.code]


async def test_stopping_at_session_start_is_reported_not_obeyed(tmp_path: Path) -> None:
    reply = {"continue": False, "stopReason": "no license"}
    hook = _script(tmp_path, "stop.sh", f"echo '{json.dumps(reply)}'\n")
    hooks = _hooks(tmp_path, {"SessionStart": [_command(hook)]})
    assert await hooks.dispatch("session_start", {"session_id": "s", "reason": "startup"}) == {}
    (diagnostic,) = hooks.diagnostics
    assert diagnostic["code"] == codes.CLAUDE_HOOK_OUTPUT_IGNORED.code
    assert "no license" in diagnostic["message"]


async def test_post_compact_runs_after_a_compaction_with_its_summary(tmp_path: Path) -> None:
    hook = _script(tmp_path, "p.sh", 'cat > "$CLAUDE_PLUGIN_DATA/post.json"\n')
    hooks = _hooks(tmp_path, {"PostCompact": [_command(hook, "manual")]})
    assert hooks.events == ["session_compact"]
    assert await hooks.dispatch("session_compact", {"did_compact": False}) == {}
    assert not (tmp_path / "data" / "post.json").exists()  # nothing was compacted
    await hooks.dispatch("session_compact", {"did_compact": True, "summary": "the gist"})
    seen = json.loads((tmp_path / "data" / "post.json").read_text())
    assert seen["hook_event_name"] == "PostCompact"
    assert seen["compact_summary"] == "the gist" and seen["trigger"] == "manual"


@pytest.mark.parametrize(
    "event",
    ["Setup", "ConfigChange", "InstructionsLoaded", "StopFailure", "PermissionDenied",
     "PostToolBatch", "UserPromptExpansion", "CwdChanged", "FileChanged"],
)  # fmt: skip
async def test_newer_events_without_a_gateway_event_are_reported_by_name(
    tmp_path: Path, event: str
) -> None:
    hooks = _hooks(tmp_path, {event: [_command("true")]})
    assert hooks.events == []
    (diagnostic,) = hooks.diagnostics
    assert diagnostic["code"] == adapters_codes.CLAUDE_HOOK_EVENT_UNSUPPORTED.code
    assert (
        repr(event) in diagnostic["message"]
        and "not a Claude Code event" not in diagnostic["message"]
    )
