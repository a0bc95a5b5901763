"""The extended events through the Pi sidecar (negotiated ``events.extended``): Pi's
``input`` (continue / transform / handled), ``before_agent_start`` (system prompt chain,
injected messages) and ``context`` (messages replaced, chained) via the Gateway API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from gateway import Gateway, open_gateway

from .conftest import FIXTURES, install_ready, module_workspace

pytestmark = pytest.mark.anyio

PKG = "pi-prompt-events"


@pytest.fixture
def ready(workspace: Any) -> Any:
    install_ready(workspace.config.home, FIXTURES / "prompt-events")
    return workspace


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def gateway(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Gateway]:
    """One gateway (one sidecar start, its TypeScript compiled once) for the tests that read
    what the package subscribed to or send it one event whose result is their own. Only the
    input test submits input: what `seen` reports is its inputs alone. Plan mode opens its
    own."""
    root, config = module_workspace(tmp_path_factory, "prompt-events")
    install_ready(config.home, FIXTURES / "prompt-events")
    async with open_gateway(root, trust=True, config=config) as opened:
        yield opened


async def test_subscribes_only_to_what_the_package_listens_to(gateway: Gateway) -> None:
    # Pi's `context` replaces the messages: filed as `context_transform`, apart from
    # nimlet's additive `context` (docs/protocol.md).
    for event in ("input", "before_agent_start", "context_transform"):
        assert [h.owner for h in gateway.registry.hooks(event)] == [PKG]
    assert gateway.registry.hooks("context") == []
    assert gateway.registry.hooks("tool_call") == []
    codes = [d.code for d in gateway.diagnostics]
    assert "pi.event_unmapped" not in codes and "event.unknown" not in codes


async def test_input_continue_transform_chain_and_handled(gateway: Gateway) -> None:
    plain = await gateway.submit_input("hello")
    assert (plain.action, plain.text, plain.handled_by) == ("continue", "hello", None)
    # shout.ts transforms, suffix.ts sees the transformed text and transforms again.
    shouted = await gateway.submit_input("/shout hi", source="rpc")
    assert (shouted.action, shouted.text, shouted.source) == ("transform", "HI (suffix)", "rpc")
    # shout.ts handles "ping": suffix.ts is not asked.
    ping = await gateway.submit_input("ping")
    assert (ping.action, ping.text, ping.handled_by) == ("handled", "ping", PKG)
    assert any(n.message == "pong" for _, n in gateway.session.notifications)
    seen = await gateway.run_command("seen")
    assert seen.message == "interactive:hello|rpc:HI"


async def test_before_agent_start_chains_the_system_prompt_and_collects_messages(
    gateway: Gateway,
) -> None:
    result = await gateway.before_agent_start("fix the bug", "You are helpful.")
    assert result.system_prompt == "You are helpful.\n[shout]\n[suffix saw 2 lines]"
    assert result.messages == [
        {
            "role": "custom",
            "custom_type": "shout-note",
            "content": "prompt was fix the bug",
            "display": False,
            "details": {"from": "shout"},
        },
        {
            "role": "custom",
            "custom_type": "suffix-note",
            "content": [{"type": "text", "text": "second"}],
            "display": True,
        },
    ]


async def test_context_replaces_messages_chained(gateway: Gateway) -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "debug", "content": "noise"},
        {"role": "assistant", "content": "hello"},
    ]
    result = await gateway.build_context(messages)
    # shout.ts returns a filtered list; suffix.ts edits that list in place.
    assert result == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "seen 2"},
    ]
    assert len(messages) == 3  # the caller's list is not touched


async def test_plan_mode_dispatches_none_of_them(ready: Any) -> None:
    async with open_gateway(ready.root, trust=True, plan=True, config=ready.config) as gateway:
        handled = await gateway.submit_input("ping")
        assert (handled.action, handled.text) == ("continue", "ping")
        start = await gateway.before_agent_start("p", "sys")
        assert (start.system_prompt, start.messages) == ("sys", [])
        assert await gateway.build_context([{"role": "debug", "content": "x"}]) == [
            {"role": "debug", "content": "x"}
        ]
