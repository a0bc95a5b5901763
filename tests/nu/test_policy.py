"""policy.yaml: shown at install as suggested rules, adopted with `gateway policy accept`,
then applied to every tool call of any ecosystem: allow, deny (a blocked result naming the
rule), require_approval (asked through the approval handler; refused when no one can
answer), first match by priority, rate limits, the package's default action."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from gateway import ToolOutcome, open_gateway
from gateway.host import Gateway
from gateway.model import AgentLink, Approval, ApprovalRequest
from gateway.packages import write_package_config
from gateway.packages.secrets import set_secret
from tests.nu._packages import (
    Recorder,
    cli,
    cli_json,
    codes,
    config_for,
    install_ready,
    messages,
    probe_package,
    requires_runtime,
    standup,
)

pytestmark = [requires_runtime, pytest.mark.anyio, pytest.mark.slow]

BASH = {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}


async def bash(arguments: dict[str, Any]) -> ToolOutcome:
    return ToolOutcome(f"ran {arguments['command']}")


@asynccontextmanager
async def standup_gateway(
    tmp_path: Path, server: Recorder, *, accept: bool = True, agent: AgentLink | None = None
) -> AsyncIterator[Gateway]:
    home = tmp_path / "home"
    package = install_ready(home, standup(tmp_path / "standup"))
    set_secret(home, package, "STANDUP_TOKEN", "tok")
    write_package_config(home, package, {"webhookUrl": server.url, "userId": "ada"})
    if accept:
        assert cli(home, "policy", "accept", package).returncode == 0
    (tmp_path / "ws").mkdir()
    config = config_for(home, tmp_path)
    async with open_gateway(tmp_path / "ws", trust=True, config=config, agent=agent) as gateway:
        gateway.register_builtin_tool("bash", "Run a command", BASH, bash)
        yield gateway


def answering(answer: Approval, asked: list[ApprovalRequest]) -> AgentLink:
    async def approve(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return answer

    return AgentLink(approve_policy=approve)


async def test_suggested_rules_apply_only_once_adopted(tmp_path: Path) -> None:
    with Recorder() as server:
        async with standup_gateway(tmp_path, server, accept=False) as gateway:
            result = await gateway.call_tool("standup__post", {"channel": "general", "text": "hi"})
    assert (result.is_error, result.policy) == (False, None)
    assert len(server.requests) == 1


async def test_install_shows_the_suggested_rules_and_how_to_adopt_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = cli(home, "install", str(standup(tmp_path / "standup")))
    assert done.returncode == 0, done.stderr
    assert "Suggested policy rules (5)" in done.stdout
    assert "no-credentials-in-posts" in done.stdout
    assert "not applied until you adopt them: gateway policy accept nu-standup" in done.stdout
    shown = cli_json(home, "policy", "show", "nu-standup")
    assert shown["adopted"] is None and len(shown["suggested"]["rules"]) == 5
    cli(home, "policy", "accept", "nu-standup")
    shown = cli_json(home, "policy", "show", "nu-standup")
    assert shown["adopted"] == shown["suggested"] and shown["adopted_is_suggested"]
    cli(home, "policy", "revoke", "nu-standup")
    assert cli_json(home, "policy", "show", "nu-standup")["adopted"] is None


async def test_a_deny_rule_blocks_the_call_naming_its_rule(tmp_path: Path) -> None:
    with Recorder() as server:
        async with standup_gateway(tmp_path, server) as gateway:
            result = await gateway.call_tool(
                "standup__post", {"channel": "team", "text": "the password is hunter2"}
            )
            denied = messages(gateway, "policy.denied")
    assert (result.blocked, result.error_code) == (True, "policy_denied")
    assert result.content == (
        "Blocked by policy rule nu-standup:no-credentials-in-posts: "
        "a standup must never carry credentials"
    )
    assert result.policy == {
        "decision": "deny",
        "rule": "nu-standup:no-credentials-in-posts",
        "reason": "a standup must never carry credentials",
    }
    assert server.requests == [] and len(denied) == 1


async def test_an_allow_decision_names_its_rule_too(tmp_path: Path) -> None:
    with Recorder() as server:
        async with standup_gateway(tmp_path, server) as gateway:
            result = await gateway.call_tool(
                "standup__post", {"channel": "team", "text": "shipped"}
            )
    assert not result.is_error
    assert result.policy == {
        "decision": "allow",
        "rule": "nu-standup:post-to-team-channels",
        "reason": "",
    }


async def test_adopted_rules_apply_to_tools_of_other_ecosystems(tmp_path: Path) -> None:
    with Recorder() as server:
        async with standup_gateway(tmp_path, server) as gateway:
            blocked = await gateway.call_tool("bash", {"command": "rm -rf /tmp/x"})
            allowed = await gateway.call_tool("bash", {"command": "ls"})
    assert blocked.blocked and blocked.policy["rule"] == "nu-standup:no-destructive-shell"  # type: ignore[index]
    assert (allowed.content, allowed.policy) == ("ran ls", None)


async def test_the_default_action_covers_only_the_packages_own_tools(tmp_path: Path) -> None:
    home = tmp_path / "home"
    policy = "default_action: deny\nrules:\n  - {id: one, priority: 1, when: {target: probe__one}, then: {decision: allow}}\n"
    source = probe_package(
        tmp_path / "pkg",
        {"one": "export default () => 1;", "two": "export default () => 2;"},
        nu={"policy": "policy.yaml"},
        files={"policy.yaml": policy},
    )
    package = install_ready(home, source)
    cli(home, "policy", "accept", package)
    (tmp_path / "ws").mkdir()
    async with open_gateway(
        tmp_path / "ws", trust=True, config=config_for(home, tmp_path)
    ) as gateway:
        gateway.register_builtin_tool("bash", "Run a command", BASH, bash)
        one = await gateway.call_tool("probe__one", {})
        two = await gateway.call_tool("probe__two", {})
        other = await gateway.call_tool("bash", {"command": "ls"})
    assert (one.content, one.policy["rule"]) == ("1", "nu-probe:one")  # type: ignore[index]
    assert two.blocked and two.content == (
        "Blocked by policy rule nu-probe:default_action: no rule allows it"
    )
    assert not other.is_error


async def test_require_approval_asks_and_runs_when_approved(tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []
    with Recorder() as server:
        async with standup_gateway(
            tmp_path, server, agent=answering(Approval.ONCE, asked)
        ) as gateway:
            result = await gateway.call_tool("standup__post", {"channel": "general", "text": "hi"})
            again = await gateway.call_tool("standup__post", {"channel": "general", "text": "two"})
    assert not result.is_error and not again.is_error
    assert [r.prompt for r in asked] == [
        "Post this standup to #general, where everyone reads it?"
    ] * 2
    assert asked[0].key == "policy:nu-standup:ask-before-general"
    assert asked[0].arguments == {"channel": "general", "text": "hi"}
    assert result.policy == {"decision": "allow", "rule": "nu-standup:ask-before-general",
                             "reason": "approved by the user"}  # fmt: skip


async def test_a_session_approval_is_not_asked_again(tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []
    with Recorder() as server:
        async with standup_gateway(
            tmp_path, server, agent=answering(Approval.SESSION, asked)
        ) as gateway:
            await gateway.call_tool("standup__post", {"channel": "general", "text": "one"})
            await gateway.call_tool("standup__post", {"channel": "general", "text": "two"})
    assert len(asked) == 1 and len(server.requests) == 2


async def test_require_approval_denied_blocks_the_call(tmp_path: Path) -> None:
    asked: list[ApprovalRequest] = []
    with Recorder() as server:
        async with standup_gateway(
            tmp_path, server, agent=answering(Approval.DENY, asked)
        ) as gateway:
            result = await gateway.call_tool("standup__post", {"channel": "general", "text": "hi"})
    assert result.blocked and result.content == (
        "Blocked by policy rule nu-standup:ask-before-general: the user did not approve"
    )
    assert server.requests == []


async def test_require_approval_with_no_one_to_answer_is_refused(tmp_path: Path) -> None:
    with Recorder() as server:
        async with standup_gateway(tmp_path, server) as gateway:
            result = await gateway.call_tool("standup__post", {"channel": "general", "text": "hi"})
            unanswered = codes(gateway).count("policy.unanswered")
    assert result.blocked and result.content == (
        "Blocked by policy rule nu-standup:ask-before-general: it requires approval and no one can answer"
    )
    assert unanswered == 1 and server.requests == []


async def test_an_approval_not_given_within_the_rules_timeout_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    policy = (
        "rules:\n  - id: ask\n    priority: 1\n    when: {target: probe__one}\n"
        "    then: {decision: require_approval, approval_config: {timeout: 200ms}}\n"
    )
    source = probe_package(tmp_path / "pkg", {"one": "export default () => 1;"},
                           nu={"policy": "policy.yaml"}, files={"policy.yaml": policy})  # fmt: skip
    package = install_ready(home, source)
    cli(home, "policy", "accept", package)

    async def never(request: ApprovalRequest) -> Approval:
        await anyio.sleep_forever()
        raise AssertionError

    (tmp_path / "ws").mkdir()
    agent = AgentLink(approve_policy=never)
    async with open_gateway(
        tmp_path / "ws", trust=True, config=config_for(home, tmp_path), agent=agent
    ) as gateway:
        result = await gateway.call_tool("probe__one", {})
    assert result.blocked and result.content.endswith(
        "it requires approval and no answer within 0.2s"
    )


async def test_a_rate_limit_denies_calls_over_it(tmp_path: Path) -> None:
    with Recorder() as server:
        async with standup_gateway(tmp_path, server) as gateway:
            results = [
                await gateway.call_tool("standup__post", {"channel": "team", "text": f"update {n}"})
                for n in range(4)
            ]
    assert [r.is_error for r in results] == [False, False, False, True]
    assert results[3].content == (
        "Blocked by policy rule nu-standup:post-to-team-channels: rate limit of 3 calls per 3600s reached"
    )
    assert len(server.requests) == 3
