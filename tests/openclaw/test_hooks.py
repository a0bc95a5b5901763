"""Typed hooks of the OpenClaw host, each mapped hook and its merge rule: before_tool_call
(priorities, block, last params wins with each handler seeing the original event,
requireApproval through the user, fail-closed, matcher), after_tool_call,
tool_result_persist, before_prompt_build and agent_turn_prepare (context and system prompt
merges), the legacy before_agent_start and deactivate aliases, before_dispatch /
before_agent_reply / before_agent_run at input, llm_input / llm_output, agent_end, session
and compaction hooks, message_received / message_sending / reply_payload_sending /
message_sent, gateway_start / gateway_stop; unmapped and unknown hooks; the conversation
grant."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from gateway import Gateway, UiAnswer, open_gateway
from gateway.model import ToolOutcome

from .conftest import FIXTURES, config_for, install_ready, messages

pytestmark = pytest.mark.anyio

PKG = "oc-conformance"


@pytest.fixture
def ready(workspace: Any) -> Any:
    install_ready(workspace.config.home, FIXTURES / "conformance", grant=("conversation_access",))
    return workspace


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def gateway(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Gateway]:
    """One gateway (one sidecar start) for the tests of hooks on a single call or event,
    each reading only the hook log its own calls added (``since``), and of what loading
    reported. The tests that need a dialog, the session's transcript or lifecycle, the
    gateway's shutdown or another grant open their own (``ready``)."""
    base = tmp_path_factory.mktemp("oc-hooks")
    home = base / "user" / ".gateway"
    install_ready(home, FIXTURES / "conformance", grant=("conversation_access",))
    (base / "project").mkdir()
    async with open_gateway(
        base / "project", trust=True, config=config_for(home, base / "user")
    ) as opened:
        yield opened


def opened(ready: Any, **kwargs: Any) -> Any:
    return open_gateway(ready.root, trust=True, config=ready.config, **kwargs)


async def hook_log(gateway: Any, since: int = 0) -> list[str]:
    """What the plugin's hooks logged, from entry ``since`` on."""
    return list(json.loads((await gateway.run_command("hooks-log")).message))[since:]


async def since(gateway: Any) -> int:
    """Where the log is now: what a test's own calls add comes after it."""
    return len(await hook_log(gateway))


async def test_before_tool_call_block_is_terminal(gateway: Gateway) -> None:
    mark = await since(gateway)
    result = await gateway.call_tool("guarded", {})
    assert result.blocked and result.content == "guarded by conformance"
    log = await hook_log(gateway, mark)
    assert "btc-high:guarded:{}" in log and not any(e.startswith("btc-low:guarded") for e in log)


async def test_before_tool_call_last_params_win_each_seeing_the_original(gateway: Gateway) -> None:
    mark = await since(gateway)
    result = await gateway.call_tool("rewrite", {"text": "hi"})
    # priority 10 adds "!", priority 0 (seeing the original) adds mode: the last wins.
    assert result.arguments == {"text": "hi", "mode": "low"}
    assert result.content == 'rewrite ran with {"text":"hi","mode":"low"}'
    log = await hook_log(gateway, mark)
    assert log.index('btc-high:rewrite:{"text":"hi"}') < log.index('btc-low:rewrite:{"text":"hi"}')


async def test_before_tool_call_approval_asks_the_user(ready: Any) -> None:
    answers = iter(["Deny", "Allow"])
    asked: list[tuple[str, list[str]]] = []

    async def ui(process: Any, request: Any) -> UiAnswer:
        asked.append((request.prompt, list(request.options)))
        return UiAnswer(answer=next(answers))

    async with opened(ready, ui=ui) as gateway:
        denied = await gateway.call_tool("approve", {})
        assert denied.blocked and "not approved (Run approve?)" in denied.content
        allowed = await gateway.call_tool("approve", {})
        assert not allowed.blocked and allowed.content == "approve ran with {}"
    assert asked == [("Run approve?\nconformance asks", ["Allow", "Deny"])] * 2


async def test_before_tool_call_fails_closed_and_guards_host_tools(gateway: Gateway) -> None:
    ran: list[dict[str, Any]] = []

    async def bash(arguments: dict[str, Any]) -> ToolOutcome:
        ran.append(arguments)
        return ToolOutcome("ran", False)

    mark = await since(gateway)
    failed = await gateway.call_tool("throws_hook", {})
    assert failed.blocked and "hook exploded" in failed.content
    gateway.register_builtin_tool("bash", "shell", {"type": "object"}, bash)
    assert (await gateway.call_tool("bash", {"command": "ls"})).content == "ran"
    assert 'btc-high:bash:{"command":"ls"}' in await hook_log(gateway, mark)


async def test_matcher_limits_a_hook_to_its_tools(gateway: Gateway) -> None:
    mark = await since(gateway)
    await gateway.call_tool("greet", {})
    await gateway.call_tool("only_this", {})
    log = await hook_log(gateway, mark)
    assert [e for e in log if e.startswith("btc-matcher")] == ["btc-matcher:only_this"]


async def test_after_tool_call_observes_and_tool_result_persist_rewrites(gateway: Gateway) -> None:
    mark = await since(gateway)
    persisted = await gateway.call_tool("persist", {})
    assert persisted.content == "persisted by hook"
    await gateway.call_tool("fails", {})
    log = await hook_log(gateway, mark)
    assert "after:persist:persisted by hook:" in log
    assert "after:fails:tool exploded:tool exploded" in log


async def test_prompt_build_merges_context_and_system_prompt(ready: Any) -> None:
    async with opened(ready) as gateway:
        gateway.session.append({"type": "user", "content": "earlier"})
        out = await gateway.before_agent_start("question", "BASE")
        # systemPrompt: first (highest priority) wins; system contexts wrap it; prompt
        # contexts are joined in priority order, agent_turn_prepare's outermost.
        assert out.system_prompt == "PS2\n\nSYS-A\n\nAS1"
        assert out.prompt == "TP\n\nP1\n\nP2\n\nquestion\n\nA2"
        assert "bpb:question:1" in await hook_log(gateway)


async def test_input_hooks_claim_or_block_the_message(ready: Any) -> None:
    async with opened(ready) as gateway:
        claimed = await gateway.submit_input("/claimed")
        assert claimed.action == "handled"
        replied = await gateway.submit_input("ping")
        assert replied.action == "handled"
        blocked = await gateway.submit_input("something forbidden")
        assert blocked.action == "handled"
        passed = await gateway.submit_input("fine")
        assert passed.action == "continue"
        shown = [n.message for _, n in gateway.session.notifications]
        assert shown == ["claimed by plugin", "pong", "blocked by policy"]


async def test_model_call_hooks_observe_context_and_output(gateway: Gateway) -> None:
    mark = await since(gateway)
    await gateway.build_context([{"role": "user", "content": "what now"}])
    sent = await gateway.emit("message_sending", {"text": "the secret plan"})
    assert sent.allowed and sent.payload["text"] == "the [redacted] plan (via gateway)"
    log = await hook_log(gateway, mark)
    assert "llm_input:what now" in log
    assert "llm_output:the [redacted] plan (via gateway)" in log


async def test_message_hooks(gateway: Gateway) -> None:
    mark = await since(gateway)
    await gateway.emit("message_received", {"text": "hello there", "source": "interactive"})
    cancelled = await gateway.emit("message_sending", {"text": "please cancel me"})
    assert not cancelled.allowed and cancelled.reason == "cancelled by conformance"
    await gateway.emit("message_sent", {"text": "bye", "success": True})
    log = await hook_log(gateway, mark)
    assert "received:hello there" in log and "sent:bye:true" in log


async def test_session_turn_and_compaction_hooks(ready: Any) -> None:
    async with opened(ready) as gateway:
        await gateway.start_session()
        gateway.session.append({"type": "user", "content": "remember tea"})
        await gateway.start_turn()
        await gateway.end_turn()

        async def summarize(instruction: str, entries: list[Any]) -> tuple[str, int]:
            return "summary", 1

        await gateway.compact("", 1234, summarize)
        await gateway.end_session()
        log = await hook_log(gateway)
        for expected in ("gateway_start", "session_start:true", "agent_end:true:1",
                         "before_compaction:1234", "after_compaction:1", "session_end:shutdown"):  # fmt: skip
            assert expected in log


async def test_before_reset_runs_when_a_session_ends_for_a_new_one_only(ready: Any) -> None:
    """OpenClaw's /new: the transcript about to be left; never at a plain shutdown."""
    async with opened(ready) as gateway:
        await gateway.start_session()
        gateway.session.append({"type": "user", "content": "remember tea"})
        await gateway.new_session()
        await gateway.end_session()
    state = next((ready.config.home / "openclaw").glob("oc-conformance/state"))
    assert (state / "reset").read_text().splitlines() == ["new:1"]


async def test_gateway_stop_runs_at_shutdown_and_the_removed_deactivate_does_not(
    ready: Any,
) -> None:
    async with opened(ready):
        pass
    state = next((ready.config.home / "openclaw").glob("oc-conformance/state"))
    assert (state / "stopped").read_text() == "gateway_stop ran"
    # It declares no OpenClaw: loaded as 2026.9.6, which has no "deactivate" hook since 2026.8.
    assert not (state / "deactivated").exists()


async def test_unmapped_unknown_and_removed_hooks_are_reported_by_name(gateway: Gateway) -> None:
    unmapped = messages(gateway, "openclaw.hook_unmapped")
    assert any('"before_model_resolve" never runs' in m for m in unmapped)
    assert not any('"subagent_spawned"' in m for m in unmapped)
    assert any('"no_such_hook"' in m for m in messages(gateway, "openclaw.hook_unknown"))
    removed = messages(gateway, "openclaw.legacy_hook_removed")
    assert any('"deactivate" was removed in OpenClaw 2026.8' in m for m in removed)
    assert any('use "gateway_stop"' in m for m in removed)
    assert messages(gateway, "openclaw.legacy_api") == []
    assert "never" not in await hook_log(gateway)


async def test_a_hook_of_an_event_the_gateway_never_has_is_registered_and_never_called(
    ready: Any,
) -> None:
    # OpenClaw keeps a subagent_spawned handler (it runs when a subagent spawns); the gateway
    # keeps it too and says it never emits the event. Control: before_model_resolve, whose
    # event happens in the embedding agent, is not registered (openclaw.hook_unmapped).
    async with opened(ready) as gateway:
        never = [d for d in gateway.diagnostics if d.code == "openclaw.hook_never_emitted"]
        assert [d.contribution for d in never] == ["subagent_spawned"]
        said = "registered, as OpenClaw registers it, but a headless gateway never emits it"
        assert f"{said}: the gateway runs no subagents" in never[0].message
        assert any(d.contribution == "before_model_resolve" for d in gateway.diagnostics)
        await gateway.start_session()
        await gateway.end_session()
        assert "never" not in await hook_log(gateway)


async def test_conversation_hooks_need_the_grant(workspace: Any) -> None:
    install_ready(workspace.config.home, FIXTURES / "conformance")  # no grant
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        held = messages(gateway, "openclaw.conversation_access")
        for hook in ("before_prompt_build", "agent_end", "llm_input", "before_agent_run"):
            assert any(f'"{hook}"' in m for m in held)
        out = await gateway.before_agent_start("question", "BASE")
        assert out.prompt is None and out.system_prompt == "BASE"
        assert all("(gateway permissions oc-conformance conversation_access)" in m for m in held)
        # The rest of the plugin runs.
        assert (await gateway.call_tool("guarded", {})).blocked


def test_hook_catalogue_is_complete() -> None:
    """Every name of OpenClaw 2026.9's typed-hook set is in the sidecar's table."""
    import subprocess

    from adapters._sidecar import SIDECAR_DIR
    from adapters.openclaw import MIN_NODE
    from gateway.runtime import find_node

    script = (
        "import fs from 'node:fs';"
        "const {HOOKS, LEGACY} = await import(new URL('lib/openclaw/hooks.mjs', process.argv[1]));"
        "fs.writeSync(1, JSON.stringify({hooks: Object.keys(HOOKS), legacy: Object.keys(LEGACY)}));"
    )
    node = find_node(MIN_NODE)
    assert node
    done = subprocess.run(
        [node, "--input-type=module", "-e", script, SIDECAR_DIR.as_uri() + "/"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    table = json.loads(done.stdout)
    upstream = Path(SIDECAR_DIR / "node_modules" / "openclaw" / "dist")
    source = next(p for p in upstream.glob("hooks-*.mjs") if "pluginHookNameSet" in p.read_text())
    text = source.read_text()
    block = text[
        text.index("pluginHookNameSet") : text.index("]);", text.index("pluginHookNameSet"))
    ]
    names = {line.strip().strip('",') for line in block.splitlines()[1:] if line.strip()}
    assert len(names) == 42 and names == set(table["hooks"])
    assert set(table["legacy"]) == {"before_agent_start", "deactivate", "subagent_spawning"}
