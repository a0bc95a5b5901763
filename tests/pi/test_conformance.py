"""Conformance of the Pi sidecar through the real gateway: mapped events and Pi's return
rules, structured results, dialogs, side effects, collisions, unsupported APIs and the
per-call timeout. The wire contract every runtime shares (stdout, overlap, cancel, shutdown,
crash and restart, plain v1) is tests/sidecars/test_contract.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from gateway import Gateway, GatewayConfig, UiAnswer, open_gateway
from gateway.model import ToolOutcome

from .conftest import FIXTURES, install_ready


async def until(check: Any, bound: float = 60) -> None:
    """Wait for what the sidecar sends after a reply (an update, a late registration); the
    bound only caps a hang."""
    with anyio.fail_after(bound):
        while not await check():
            await anyio.sleep(0.05)


pytestmark = pytest.mark.anyio

PKG = "pi-conformance"


@pytest.fixture
def ready(workspace: Any) -> Any:
    install_ready(workspace.config.home, FIXTURES / "conformance")
    return workspace


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def gateway(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Gateway]:
    """One gateway (one sidecar start) for the tests that read what the package registered
    or make a call whose outcome depends only on its own input: the hook chains on a call,
    thrown and soft errors, structured results, compaction's replies. What the package
    records across a session (its event log, late registrations, side effects, dialogs),
    the per-call timeout and exec run on a gateway of their own (``ready``)."""
    base = tmp_path_factory.mktemp("conformance")
    root, home = base / "project", base / "home"
    root.mkdir()
    home.mkdir()
    config = GatewayConfig(
        home=home / ".gateway", user_home=home, shutdown_grace=0.3, term_grace=0.5
    )
    install_ready(config.home, FIXTURES / "conformance")
    async with open_gateway(root, trust=True, config=config) as opened:
        yield opened


def codes(gateway: Any, prefix: str = "pi.") -> list[str]:
    return [d.code for d in gateway.diagnostics if d.code.startswith(prefix)]


async def test_registers_tools_commands_and_reports_what_it_cannot_do(gateway: Gateway) -> None:
    tools = {t.name for t in gateway.tools()}
    assert {"echo", "slow", "progress", "fails", "soft_error", "shared"} <= tools
    commands = {c.name for c in gateway.registry.commands()}
    # Pi's command collision rule: every duplicate gets a load-order suffix.
    assert {"ask", "effects", "late", "info", "dup:1", "dup:2"} <= commands
    found = codes(gateway)
    assert "pi.tool_conflict" in found  # first tool wins, with a diagnostic
    assert found.count("pi.command_renamed") == 2
    unsupported = [d.message for d in gateway.diagnostics if d.code == "pi.unsupported_api"]
    assert any("registerShortcut" in m for m in unsupported)
    assert any("registerMessageRenderer" in m for m in unsupported)
    assert any("registerProvider" in m for m in unsupported)
    assert any(
        "model_select" in d.message for d in gateway.diagnostics if d.code == "pi.event_unmapped"
    )
    result = await gateway.call_tool("shared", {})
    assert result.content == "from first"
    out = await gateway.run_command("dup:2")
    assert out.message == "dup two"


async def test_tool_call_mutation_and_tool_result_patch_chain(gateway: Gateway) -> None:
    result = await gateway.call_tool("echo", {"text": "hi", "mode": "plain"})
    # first.ts appends "!" in place, second.ts switches mode to loud in place; the tool
    # runs with the mutated input; tool_result patches chain first → second.
    assert result.arguments == {"text": "hi!", "mode": "loud"}
    assert result.content == "[second] [first] HI!"
    assert not result.is_error and not result.blocked


async def test_tool_call_block_for_host_bash_tool(gateway: Gateway) -> None:
    ran: list[dict[str, Any]] = []

    async def bash(arguments: dict[str, Any]) -> ToolOutcome:
        ran.append(arguments)
        return ToolOutcome("ok", False)

    schema = {"type": "object", "properties": {"command": {"type": "string"}}}
    gateway.register_builtin_tool("bash", "run a shell command", schema, bash)
    blocked = await gateway.call_tool("bash", {"command": "sleep 100 &"})
    assert blocked.blocked and blocked.is_error
    assert "background processes are not allowed" in blocked.content
    fine = await gateway.call_tool("bash", {"command": "ls"})
    assert fine.content == "ok" and not fine.blocked
    assert ran == [{"command": "ls"}]


async def test_throwing_tool_call_hook_blocks_and_errors_keep_flags(gateway: Gateway) -> None:
    async def explode(arguments: dict[str, Any]) -> ToolOutcome:
        return ToolOutcome("should not run", False)

    gateway.register_builtin_tool("explode", "x", {"type": "object"}, explode)
    result = await gateway.call_tool("explode", {})
    assert result.blocked and "hook exploded" in result.content
    thrown = await gateway.call_tool("fails", {})
    assert thrown.is_error and thrown.content == "it broke"
    soft = await gateway.call_tool("soft_error", {})
    assert soft.is_error and soft.content == "soft"


async def test_structured_result_flattens_for_plain_hosts(gateway: Gateway) -> None:
    result = await gateway.call_tool("progress", {})
    assert result.content == "done\n[image image/png]"


async def test_lifecycle_events_map_with_reasons(ready: Any) -> None:
    async with open_gateway(ready.root, trust=True, config=ready.config) as gateway:
        await gateway.start_session()
        await gateway.start_turn()
        await gateway.call_tool("echo", {"text": "x", "mode": "plain"})
        await gateway.end_turn()
        out = await gateway.run_command("info")
        log = next(line for line in out.message.splitlines() if line.startswith("log="))
        assert log.split("=", 1)[1].split(",") == [
            "session_start:startup",
            "resources_discover:startup",
            "agent_start",
            "turn_start",
            "tool_execution_start",
            "tool_call:echo",
            "tool_execution_end",
            "turn_end",
            "agent_end",
        ]  # the unsubscribed turn_start handler ("never") did not run
        assert gateway.session.statuses[f"{PKG}:last"] == "agent_end"
        await gateway.end_session()
        after = (await gateway.run_command("info")).message
        assert "session_shutdown:quit" in after


async def test_compaction_cancel_and_custom_summary(gateway: Gateway) -> None:
    cancelled = await gateway.compact("cancel")
    assert not cancelled.did_compact
    custom = await gateway.compact("custom")
    assert custom.custom and custom.summary == "pi summary" and custom.first_kept_index == 2


async def test_command_side_effects_dialogs_and_api_state(ready: Any) -> None:
    asked: list[tuple[str, list[str]]] = []

    async def ui(process: Any, request: Any) -> UiAnswer:
        asked.append((request.prompt, list(request.options)))
        return UiAnswer(answer=request.options[-1] if "env" in request.prompt else "Yes")

    async with open_gateway(ready.root, trust=True, config=ready.config, ui=ui) as gateway:
        out = await gateway.run_command("effects", "run tests")
        assert out.message == "a custom message"
        assert out.prompt == "please run tests"
        session = gateway.session

        async def applied() -> bool:
            return f"{PKG}:w" in session.widgets and bool(session.extension_entries(PKG))

        await until(applied)
        assert session.statuses[f"{PKG}:job"] == "working"
        assert session.widgets[f"{PKG}:w"] == ["line one", "line two"]
        assert {"customType": "note", "data": {"args": "run tests"}} in session.extension_entries(
            PKG
        )
        await gateway.run_command("ask")
        assert asked == [
            ("Which env?", ["staging", "production"]),
            ("Sure?\ndeploy to production", ["Yes", "No"]),
        ]
        info = (await gateway.run_command("info")).message
        assert "flag=true" in info and "hasUI=true" in info
        assert f"cwd={ready.root}" in info
        assert "commands=ask,dup:1,dup:2,effects,info,late" in info


async def test_negotiated_parts_details_and_progress(gateway: Gateway) -> None:
    seen: list[dict[str, Any]] = []
    gateway.progress_listener = lambda owner, item: seen.append(item)
    try:
        result = await gateway.call_tool("progress", {})
    finally:
        gateway.progress_listener = None  # the module's gateway: the next test's own
    assert result.parts == [
        {"type": "text", "text": "done"},
        {"type": "image", "data": "iVBORw0KGgo=", "mime_type": "image/png"},
    ]
    assert result.details == {"pct": 100}
    assert [p["text"] for p in result.progress] == ["half way"]
    assert result.progress[0]["details"] == {"pct": 50}
    assert seen == result.progress
    # A tool_result hook that replaces the output drops the stale parts.
    echoed = await gateway.call_tool("echo", {"text": "a", "mode": "plain"})
    assert echoed.parts is None and echoed.details == {"length": 2}


async def test_late_tool_registration_and_active_set(ready: Any) -> None:
    async with open_gateway(ready.root, trust=True, config=ready.config) as gateway:
        assert "late_tool" not in {t.name for t in gateway.tools()}
        await gateway.run_command("late")

        async def registered() -> bool:
            return "late_tool" in {t.name for t in gateway.tools()}

        await until(registered)
        names = {t.name for t in gateway.tools()}
        assert "late_tool" in names
        assert "soft_error" not in names  # setActiveTools narrowed the set
        assert "ask" in {c.name for c in gateway.registry.commands()}  # commands kept
        assert (await gateway.call_tool("late_tool", {})).content == "late ok"


async def test_per_call_timeout_fails_the_call_not_the_process(
    ready: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_PI_TIMEOUT", "3")  # per request; the start has its own limit
    async with open_gateway(ready.root, trust=True, config=ready.config) as gateway:
        result = await gateway.call_tool("slow", {"ms": 600_000})  # ends only when aborted
        assert result.is_error and "timed out" in result.content
        assert (await gateway.call_tool("slow", {"ms": 10})).content == "slept 10"

        async def aborted() -> bool:
            return "aborted" in (await gateway.run_command("info")).message

        await until(aborted)


async def test_host_request_free_text_and_session_transcript(ready: Any) -> None:
    asked: list[tuple[str, str]] = []

    async def ui(process: Any, request: Any) -> UiAnswer:
        asked.append((request.method, request.prompt))
        return UiAnswer(answer="Ada")

    async with open_gateway(ready.root, trust=True, config=ready.config, ui=ui) as gateway:
        await gateway.run_command("effects", "x")  # appendEntry("note", …)
        await gateway.call_tool("echo", {"text": "a", "mode": "plain"})

        async def noted() -> bool:
            return bool(gateway.session.extension_entries(PKG))

        await until(noted)
        out = await gateway.run_command("name")
        assert asked == [("input", "Your name?")]
        assert out.message == "name=Ada custom=note results=1"
    async with open_gateway(ready.root, trust=True, config=ready.config) as gateway:
        # No UI handler: the free-text question is answered cancelled → undefined.
        out = await gateway.run_command("name")
        assert out.message.startswith("name=undefined")
        assert any(d.code == "ui.unanswered" for d in gateway.diagnostics)


async def test_exec_runs_on_the_host_under_its_policy(ready: Any) -> None:
    asked: list[tuple[str, str, list[str]]] = []
    async with open_gateway(ready.root, trust=True, config=ready.config) as gateway:
        out = await gateway.run_command("run", "echo $PWD; exit 3")
        assert out.message == f"code=3 out={ready.root}"

        def policy(owner: str, command: str, args: list[str]) -> bool:
            asked.append((owner, command, args))
            return False

        gateway.exec_policy = policy
        refused = await gateway.run_command("run", "echo hi")
        assert refused.message.startswith("error=exec sh: refused")
        assert asked == [(PKG, "sh", ["-c", "echo hi"])]
