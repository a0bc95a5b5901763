"""The Pi host as it is now (Pi 0.80 → 1.6), each change behind the Pi a package declares:
two packages run the same extension (tests/pi/fixtures/pi-now), one declaring the pinned Pi
(``^1.6.0``), the other an older one (``^0.70.0``: it keeps Pi 0.70's behaviour). Both are
installed, so they share one sidecar, and one gateway serves every assertion."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from adapters.pi._host_versions import declared_host_version, pi_releases
from gateway import Gateway, GatewayConfig, open_gateway
from gateway.packages import load_adapters

from .conftest import FIXTURES, install_ready

pytestmark = pytest.mark.anyio

HOST = FIXTURES / "pi-now"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def gateway(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Gateway]:
    base = tmp_path_factory.mktemp("pi-now")
    root, home = base / "project", base / "home"
    root.mkdir()
    home.mkdir()
    config = GatewayConfig(
        home=home / ".gateway", user_home=home, shutdown_grace=0.3, term_grace=0.5
    )
    for name in ("current", "older"):
        install_ready(config.home, HOST / name)
    async with open_gateway(root, trust=True, config=config) as opened:
        yield opened


async def seen(gateway: Gateway, prefix: str) -> list[str]:
    outcome = await gateway.run_command(f"{prefix}-seen")
    return str(outcome.message).split(" | ")


def codes_about(gateway: Gateway, code: str, package: str) -> list[str]:
    return [d.message for d in gateway.diagnostics if d.code == code and d.package == package]


def test_declared_range_excluding_the_pinned_pi_targets_its_newest_release() -> None:
    assert "0.70.6" in pi_releases()
    assert declared_host_version(HOST / "older") == "0.70.6"
    assert declared_host_version(HOST / "current") is None
    # `gateway inspect` says so with the range's mismatch.
    said = [d.message for d in load_adapters().inspect(HOST / "older").diagnostics]
    assert any("excludes" in m and "keeps 0.70.6's" in m for m in said)


async def test_default_active_false_and_deferred_tools_register_inactive(gateway: Gateway) -> None:
    names = {tool.name for tool in gateway.tools()}
    assert {"now_plain", "now_ns", "now_data", "now_send"} <= names
    assert "now_lazy" not in names and "now_deferred" not in names
    # A package for Pi 0.70 (before defaultActive and exposure): every tool is active.
    assert {"old_plain", "old_lazy", "old_deferred"} <= names
    active = next(item for item in await seen(gateway, "now") if item.startswith("active:"))
    assert "now_lazy" not in active and "now_deferred" not in active and "now_ns" in active


async def test_set_active_tools_activates_a_default_inactive_tool(gateway: Gateway) -> None:
    await gateway.run_command("now-activate")
    assert "now_lazy" in {tool.name for tool in gateway.tools()}
    result = await gateway.call_tool("now_lazy", {})
    assert result.content == "lazy ran"


async def test_registering_a_tool_again_hidden_withdraws_it(gateway: Gateway) -> None:
    await gateway.run_command("now-withdraw")
    await gateway.run_command("old-withdraw")  # Pi 0.70 knew no exposure: it stays
    names = {tool.name for tool in gateway.tools()}
    assert "now_plain" not in names and "old_plain" in names


async def test_namespaced_tool_keeps_its_name_and_namespace(gateway: Gateway) -> None:
    assert "now_ns" in {tool.name for tool in gateway.tools()}
    assert "ns:docs" in await seen(gateway, "now")


async def test_output_schema_and_structured_content_reach_the_registry(gateway: Gateway) -> None:
    now = gateway.registry.tool("now_data")
    assert now is not None and now.output_schema is not None
    assert now.output_schema["properties"] == {"n": {"type": "number"}}
    result = await gateway.call_tool("now_data", {})
    assert result.content == "n is 42" and result.structured == {"n": 42}
    # Pi 0.70 knew no output schemas: the tool has none, its structuredContent is not used.
    old = gateway.registry.tool("old_data")
    assert old is not None and old.output_schema is None
    assert (await gateway.call_tool("old_data", {})).structured is None
    assert not any("outputSchema" in d.message for d in gateway.diagnostics)


async def test_an_output_schema_that_is_not_an_object_schema_is_said_and_left_out(
    gateway: Gateway,
) -> None:
    said = codes_about(gateway, "tool.output_schema_invalid", "pi-now-current")
    assert len(said) == 1 and "now_scalar" in said[0] and 'type "object"' in said[0]
    scalar = gateway.registry.tool("now_scalar")
    assert scalar is not None and scalar.output_schema is None


async def test_pi_ai_root_import_resolves_to_the_compat_entry(gateway: Gateway) -> None:
    assert "compat" in await seen(gateway, "now")
    assert "compat" in await seen(gateway, "old")  # the @mariozechner/pi-ai name too


async def test_before_agent_start_is_busy_with_message_type_since_pi_1_2(gateway: Gateway) -> None:
    await gateway.before_agent_start("hello", "system")
    assert "bas:user:false" in await seen(gateway, "now")
    assert "bas:undefined:true" in await seen(gateway, "old")


async def test_send_user_message_delivers_as_steering_or_follow_up(gateway: Gateway) -> None:
    gateway.take_steering("all"), gateway.take_follow_ups("all")
    started = await gateway.before_agent_start("please send", "system")
    await gateway.call_tool("now_send", {})
    steering = [m.content for m in gateway.take_steering("all")]
    follow_ups = [m.content for m in gateway.take_follow_ups("all")]
    assert "now steer" in steering
    assert "now follow from tool" in follow_ups
    # Busy without deliverAs: dropped and said (Pi 1.2 is busy in before_agent_start). For a
    # package targeting Pi 0.70 the session was idle there: each message starts a run
    # (deliver_as "now"; with no turn open and no agent link, queued as a follow-up).
    assert "now plain" not in steering + follow_ups
    assert "old plain" in follow_ups and "old steer" in follow_ups
    assert "now from tool" not in steering + follow_ups
    dropped = codes_about(gateway, "pi.user_message_dropped", "pi-now-current")
    assert dropped and "deliverAs" in dropped[0]
    # Pi 1.2: a custom message sent while the run starts is queued into it (for a package
    # targeting Pi 0.70 it is a notification, as a message sent outside a command).
    queued = [m["content"] for m in started.messages if m.get("custom_type") == "note"]
    assert queued == ["now queued"]


async def test_set_session_name_fires_session_info_changed(gateway: Gateway) -> None:
    await gateway.run_command("now-name", "release notes")
    assert "info:release notes" in await seen(gateway, "now")
    assert not [
        m
        for m in codes_about(gateway, "pi.event_unmapped", "pi-now-current")
        if "session_info" in m
    ]


async def test_compaction_events_carry_reason_and_will_retry_since_pi_0_79_10(
    gateway: Gateway,
) -> None:
    await gateway.compact("", 1000, None)
    await gateway.compact("", 9000, None, reason="overflow", will_retry=True)
    now, old = await seen(gateway, "now"), await seen(gateway, "old")
    # (and, in every Pi, the session is not idle while compaction runs)
    assert "compact:manual:false:idle=false" in now and "compacted:manual:false" in now
    assert "compact:overflow:true:idle=false" in now and "compacted:overflow:true" in now
    assert "compact:undefined:undefined:idle=false" in old
    assert not [item for item in old if item.startswith("compact:overflow")]


async def test_project_trust_is_reported_as_the_users_decision(gateway: Gateway) -> None:
    messages = codes_about(gateway, "pi.event_unmapped", "pi-now-current")
    assert any("project_trust" in m and "workspace trust" in m for m in messages)
