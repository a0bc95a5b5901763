"""Capabilities as current nimlet reads them (case-insensitive; missing or null: write,
shell, network; one invalid value rejects the whole ``register``; ``[]`` is plan-safe) and
what follows from them: plan mode's tools, and read-only calls running concurrently."""

from __future__ import annotations

import pytest

from gateway import open_gateway

from .conftest import script, tool

pytestmark = pytest.mark.anyio


async def test_capabilities_are_read_case_insensitively_with_the_unsafe_default(
    workspace, current
) -> None:
    current("ext", tools=[tool("mixed", ["READ", "User", "read"]), tool("missing"),
                          tool("null", None), tool("none", [])])  # fmt: skip
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        found = {t.name: t.capabilities for t in gateway.tools()}
    assert found == {
        "mixed": ("read", "user"),
        "missing": ("write", "shell", "network"),
        "null": ("write", "shell", "network"),
        "none": (),
    }
    async with open_gateway(
        workspace.root,
        trust=True,
        plan=True,
        config=workspace.config,
        transport=workspace.transport,
    ) as gateway:
        assert sorted(t.name for t in gateway.tools()) == ["mixed", "none"]


@pytest.mark.parametrize(
    ("capabilities", "problem"),
    [
        (["read", "admin"], "unknown capability: admin"),
        ("read", "capabilities must be an array"),
        (["read", 1], "capabilities must contain strings"),
    ],
)
async def test_one_invalid_value_rejects_the_whole_register(
    workspace, current, capabilities, problem
) -> None:
    register = {"type": "register", "commands": [{"name": "cmd"}],
                "tools": [tool("fine", ["read"]), tool("bad", capabilities)]}  # fmt: skip
    current("ext", register=register)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.processes == [] and gateway.tools() == []
        assert gateway.registry.command("cmd") is None
        [failure] = [d for d in gateway.diagnostics if d.code == "extension.register_invalid"]
    assert f"invalid capabilities for tool 'bad': {problem}" in failure.message


BARRIER = {"barrier": {"parties": 2, "timeout": 2}}
RESULT = {"reply": {"content": "$answers"}}


async def test_read_only_calls_of_one_step_run_concurrently(workspace, current) -> None:
    current("ext", tools=[tool("look", ["read"]), tool("peek", ["READ"]),
                          tool("user", ["read", "user"])])  # fmt: skip
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        together = await gateway.call_tools(
            [("look", script(BARRIER, RESULT)), ("peek", script(BARRIER, RESULT))]
        )
        assert [r.content for r in together] == ['["passed"]', '["passed"]']
        # A tool that is not exactly ["read"] in the step: one call after the other, so
        # neither meets the other at the barrier.
        alone = script({"barrier": {"parties": 2, "timeout": 0.5, "name": "alone"}}, RESULT)
        one_by_one = await gateway.call_tools([("look", alone), ("user", alone)])
        assert [r.content for r in one_by_one] == ['["timeout"]', '["timeout"]']
