"""nimlet's permission prompt for extension tools: keyed ``tool:<name>``, asked before the
``tool_call`` hook in act mode, answered once / session / project / deny, skipped with no
one to ask or in yolo mode."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from gateway import AgentLink, Approval, ApprovalRequest, open_gateway

from ._shell import shell
from .conftest import add_current, tool

pytestmark = pytest.mark.anyio


def approvals(*answers: Approval) -> tuple[list[ApprovalRequest], Any]:
    asked: list[ApprovalRequest] = []
    queue = list(answers)

    async def approve(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return queue.pop(0)

    return asked, approve


def hooked(workspace: Any) -> list[str]:
    return [m["payload"]["tool"] for m in workspace.received("guard") if m["type"] == "event"]


async def test_the_prompt_comes_before_the_hook_and_a_denial_skips_it(workspace, current) -> None:
    current("ext", tools=[tool("t", ["read"])])
    current("guard", subscribe=["tool_call"])
    asked, approve = approvals(Approval.DENY, Approval.ONCE, Approval.ONCE)
    link = AgentLink(approve=approve)
    async with open_gateway(
        workspace.root,
        trust=True,
        config=workspace.config,
        transport=workspace.transport,
        agent=link,
    ) as gateway:
        denied = await gateway.call_tool("t", {"x": 1})
        assert hooked(workspace) == []
        allowed = await gateway.call_tool("t", {})
        again = await gateway.call_tool("t", {})
    assert (denied.content, denied.error_code, denied.blocked) == (
        "Tool execution was denied.",
        "approval_denied",
        True,
    )
    assert not allowed.is_error and not again.is_error
    assert [(r.key, r.prompt, r.owner) for r in asked] == [("tool:t", "Allow tool: t", "ext")] * 3
    assert asked[0].arguments == {"x": 1}
    assert hooked(workspace) == ["t", "t"]


async def test_session_grants_last_until_a_restart_project_grants_are_saved(
    workspace, current
) -> None:
    current("ext", tools=[tool("a"), tool("b")])
    asked, approve = approvals(Approval.SESSION, Approval.PROJECT, Approval.ONCE)
    link = AgentLink(approve=approve)
    async with open_gateway(
        workspace.root,
        trust=True,
        config=workspace.config,
        transport=workspace.transport,
        agent=link,
    ) as gateway:
        for _ in range(2):
            await gateway.call_tool("a", {})
            await gateway.call_tool("b", {})
        assert gateway.permissions.grants() == {"project": ["tool:b"], "session": ["tool:a"]}
        await gateway.reload()
        await gateway.call_tool("b", {})  # the project grant stays
        await gateway.call_tool("a", {})  # the session grant ended: asked again
    assert [r.tool for r in asked] == ["a", "b", "a"]
    saved = json.loads((workspace.root / ".nimlet/permissions.json").read_text())
    assert saved == {"allow": ["tool:b"]}
    async with open_gateway(
        workspace.root, trust=False, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.permissions.grants()["project"] == []  # read only when trusted


async def test_no_one_to_ask_or_yolo_runs_without_asking(workspace, current) -> None:
    current("ext", tools=[tool("t")])
    asked, approve = approvals()
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert not (await gateway.call_tool("t", {})).is_error
        gateway.agent.approve = approve
        gateway.agent.yolo = True
        assert not (await gateway.call_tool("t", {})).is_error
    assert asked == []


async def test_tool_json_tools_ask_too(workspace) -> None:
    folder = workspace.root / ".nimlet/tools/hello"
    folder.mkdir(parents=True)
    (folder / "tool.json").write_text(json.dumps({
        "name": "hello", "description": "hi", "input_schema": {"type": "object"},
        "command": [sys.executable, "-c", "import json; print(json.dumps('hi'))"],
    }))  # fmt: skip
    asked, approve = approvals(Approval.DENY)
    link = AgentLink(approve=approve)
    async with open_gateway(
        workspace.root,
        trust=True,
        config=workspace.config,
        transport=workspace.transport,
        agent=link,
    ) as gateway:
        result = await gateway.call_tool("hello", {})
    assert result.error_code == "approval_denied" and [r.key for r in asked] == ["tool:hello"]


def test_the_shell_asks_when_told_to(workspace) -> None:
    add_current(workspace, "ext", tools=[tool("t")])
    out = shell(workspace, "/call t {}", "d", "/call t {}", "s", "/call t {}", "/permissions",
                options=("--permissions", "ask"))  # fmt: skip
    assert out.count("! Allow tool: t (ext)") == 2
    assert "[blocked] Tool execution was denied." in out
    assert out.count("[ok] ok") == 2
    assert "session: tool:t" in out
    quiet = shell(workspace, "/call t {}")  # off a terminal, nimlet's headless rule
    assert "Allow tool" not in quiet and "[ok] ok" in quiet
