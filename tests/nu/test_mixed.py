"""The realistic Nu package end to end, through the Python API and the command line, mixed
with a nimlet extension whose tool_call hook blocks (and rewrites) calls of a Nu tool."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gateway import open_gateway
from gateway.model import AgentLink, Approval, ApprovalRequest
from gateway.packages import write_package_config
from gateway.packages.secrets import set_secret
from tests.nu._packages import (
    FIXTURES,
    Recorder,
    cli,
    cli_json,
    config_for,
    data_folder,
    install_ready,
    requires_runtime,
    standup,
)

pytestmark = [requires_runtime, pytest.mark.slow(2)]

COMMITS = [
    {"message": "fix the cache eviction", "age": "5h"},
    {"message": "add retry to the uploader", "age": "20h"},
    {"message": "bump deps", "age": "3d"},
]


def workspace_with_guard(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    shutil.copytree(FIXTURES / "guard", workspace / ".nimlet" / "extensions" / "guard")
    return workspace


@pytest.mark.anyio
async def test_the_realistic_package_through_the_python_api_beside_a_nimlet_guard(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    package = install_ready(home, standup(tmp_path / "standup"))
    set_secret(home, package, "STANDUP_TOKEN", "tok-standup")
    workspace = workspace_with_guard(tmp_path)
    events = data_folder(home, package) / "events.jsonl"
    asked: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return Approval.ONCE

    with Recorder([{"id": "msg-1"}]) as server:
        write_package_config(home, package, {
            "userId": "ada", "webhookUrl": server.url, "logFile": str(events),
        })  # fmt: skip
        assert cli(home, "policy", "accept", package).returncode == 0
        # The guard rewrites the Nu package's calls: acting on another package's tool.
        assert cli(home, "permissions", "nimlet:guard", "hooks.rewrite").returncode == 0
        agent = AgentLink(approve_policy=approve)
        config = config_for(home, tmp_path)
        async with open_gateway(workspace, trust=True, config=config, agent=agent) as gateway:
            tools = {t.name: t for t in gateway.tools()}
            assert sorted(tools) == ["standup__chart", "standup__post", "standup__summarize"]
            assert tools["standup__post"].display == {
                "icon": "📣", "title": "Post to #{channel}",
                "body": {"argument": "text", "language": "markdown"},
            }  # fmt: skip
            assert [s.name for s in gateway.discovery.skills] == ["standup"]
            command = await gateway.run_command("standup", "Mention the release.")
            assert (
                command.prompt == "Draft my standup from yesterday's commits. Mention the release."
            )

            start = await gateway.before_agent_start("standup please", "You are helpful.")
            assert start.system_prompt.endswith(
                "Standups are for ada: short bullets under Yesterday, Today and Blockers."
            )
            assert (await gateway.submit_input("no standup today")).action == "handled"

            await gateway.start_turn()
            summary = await gateway.call_tool(
                "standup__summarize", {"commits": COMMITS, "since": "1d"}
            )
            friday = await gateway.call_tool(
                "standup__post", {"channel": "team", "text": "Friday: shipped"}
            )
            rerouted = await gateway.call_tool(
                "standup__post", {"channel": "all", "text": "shipped the cache fix"}
            )
            chart = await gateway.call_tool("standup__chart", {"days": [2, 0, 5]})
            await gateway.end_turn()
    assert json.loads(summary.content) == {
        "user": "ada", "window": "1 day", "count": 2,
        "standup": "- fix the cache eviction\n- add retry to the uploader",
    }  # fmt: skip
    # The nimlet guard blocks the Nu tool: nothing was posted for it.
    assert friday.blocked and friday.content == "no standup posts on Fridays (nimlet guard)"
    # It rewrote "all" to "general"; the adopted rule then asked, on the final arguments.
    assert [r.arguments["channel"] for r in asked] == ["general"]
    assert rerouted.arguments["channel"] == "general"
    assert json.loads(rerouted.content) == {"posted": True, "channel": "general", "id": "msg-1"}
    (request,) = server.requests
    assert request["authorization"] == "Bearer tok-standup"
    assert json.loads(request["body"]) == {
        "channel": "general", "user": "ada", "text": "- shipped the cache fix",
    }  # fmt: skip
    assert [p["type"] for p in chart.parts or []] == ["text", "image", "audio"]
    recorded = [json.loads(line) for line in events.read_text().splitlines()]
    assert recorded[0] == {"hook": "load", "user": "ada", "token": "set"}
    assert [e.get("tool") for e in recorded if e["hook"] == "tool_execution_end"] == [
        "standup__summarize", "standup__post", "standup__chart",
    ]  # fmt: skip
    assert [e for e in recorded if e["hook"] == "turn_end"] == [{"hook": "turn_end", "turn": 0}]


def test_the_realistic_package_through_the_command_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    source = standup(tmp_path / "standup")
    workspace = workspace_with_guard(tmp_path)
    assert cli(home, "install", str(source)).returncode == 0
    for verb in (("trust", "nu-standup"), ("enable", "nu-standup"), ("policy", "accept", "nu-standup"),
                 ("permissions", "nu-standup", "network"),
                 ("config", "nu-standup", "userId", "ada")):  # fmt: skip
        done = cli(home, *verb)
        assert done.returncode == 0, done.stderr
    assert cli(home, "secret", "set", "nu-standup", "STANDUP_TOKEN", stdin="tok\n").returncode == 0
    with Recorder() as server:
        cli(home, "config", "nu-standup", "webhookUrl", server.url)
        where = ("--workspace", str(workspace), "--trust")
        listed = cli_json(home, "list", *where)
        assert {t["name"]: t["owner"] for t in listed["tools"]} == {
            "standup__chart": "nu-standup:tools",
            "standup__post": "nu-standup:tools",
            "standup__summarize": "nu-standup:tools",
        }
        assert next(t for t in listed["tools"] if t["name"] == "standup__summarize")["display"] == {
            "icon": "📝", "title": "Summarize the last {since}",
        }  # fmt: skip
        assert {c["name"] for c in listed["commands"]} == {"standup", "blockers"}
        assert {(h["event"], h["owner"]) for h in listed["hooks"]} >= {
            ("tool_call", "guard"), ("before_agent_start", "nu-standup"), ("input", "nu-standup"),
            ("turn_end", "nu-standup"), ("tool_result", "nu-standup"),
        }  # fmt: skip
        assert [s["name"] for s in listed["skills"]] == ["standup"]

        called = cli(
            home,
            "call",
            "standup__summarize",
            json.dumps({"commits": COMMITS, "since": "2d"}),
            *where,
        )
        assert called.returncode == 0, called.stderr
        assert called.stdout.startswith("📝 Summarize the last 2d\n[ok] ")
        posted = cli(
            home, "call", "standup__post", json.dumps({"channel": "team", "text": "- done"}), *where
        )
        assert "📣 Post to #team\n```markdown\n- done\n```\n[ok]" in posted.stdout
        general = cli_json(
            home,
            "call",
            "standup__post",
            json.dumps({"channel": "general", "text": "hi"}),
            *where,
            code=1,
        )
        assert general["blocked"] and general["error_code"] == "policy_denied"
        assert "no one can answer" in general["content"]
        friday = cli_json(
            home,
            "call",
            "standup__post",
            json.dumps({"channel": "team", "text": "friday"}),
            *where,
            code=1,
        )
        assert (
            friday["blocked"] and friday["content"] == "no standup posts on Fridays (nimlet guard)"
        )
        command = cli_json(home, "command", "blockers", "the CI logs", *where)
        assert command["prompt"] == "What is blocking me right now? Look at the CI logs"
    assert len(server.requests) == 1
    status = cli_json(home, "status")["packages"][0]
    assert (status["active"], status["secrets"]) == (True, {"STANDUP_TOKEN": "set"})


def test_the_shell_shows_a_client_tool_when_it_runs(tmp_path: Path) -> None:
    home = tmp_path / "home"
    package = install_ready(home, standup(tmp_path / "standup"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    script = '/call standup__summarize {"commits": [{"message": "x"}], "since": "3d"}\n/quit\n'
    done = cli(home, "shell", "--workspace", str(workspace), "--trust", stdin=script)
    assert done.returncode == 0, done.stderr
    assert "  📝 Summarize the last 3d\n" in done.stdout
    assert '[ok] {"user":null,"window":"3 days","count":1,"standup":"- x"}' in done.stdout
    assert package == "nu-standup"
