"""The audit trail of ``serve --mcp --http`` (``gateway.serve._audit``): what the tool
pipeline decided reaches the trail (hooks that blocked or let a call through, an adopted
policy's rule), an OAuth caller is named with its subject, arguments and results only when
the operator opts in (cut), and a line is never split between two rotated files."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from gateway import GatewayConfig, ToolOutcome, open_gateway
from gateway.base.telemetry import CALL_TRAIL, CallTrail
from gateway.serve._audit import AuditLog, AuditRecord
from gateway.serve._tokens import TokenRecord
from gateway.store import PolicyRecords, StateStore
from gateway.wire import LogLimits
from tests.serve._helpers import install_ready

pytestmark = pytest.mark.anyio

# A nimlet extension whose tool_call hook blocks "danger" and lets "echo" through.
DESK = textwrap.dedent(
    """\
    import json, sys

    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n")
        sys.stdout.flush()

    schema = {"type": "object"}
    send({"type": "register", "commands": [], "events": ["tool_call"],
          "tools": [{"name": "echo", "description": "echo", "input_schema": schema},
                    {"name": "danger", "description": "blocked", "input_schema": schema}]})
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "tool":
            send({"type": "response", "id": message["id"], "content": "done"})
        elif kind == "event":
            blocked = message["payload"].get("tool") == "danger"
            send({"type": "response", "id": message["id"],
                  **({"allow": False, "reason": "not this one"} if blocked else {})})
        elif kind == "shutdown":
            break
    """
)
TOKEN = TokenRecord(name="ci-bot", sha256="x")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def desk(tmp_path: Path) -> tuple[Path, GatewayConfig]:
    folder = tmp_path / "ws" / ".nimlet" / "extensions" / "desk"
    folder.mkdir(parents=True)
    (folder / "desk.py").write_text(DESK)
    manifest = {"name": "desk", "command": [sys.executable, str(folder / "desk.py")]}
    (folder / "extension.json").write_text(json.dumps(manifest))
    home = tmp_path / "home"
    return tmp_path / "ws", GatewayConfig(home=home / ".gateway", user_home=home)


async def _trail_of(gateway: Any, tool: str) -> CallTrail:
    trail = CallTrail()
    given = CALL_TRAIL.set(trail)
    try:
        await gateway.call_tool(tool, {})
    finally:
        CALL_TRAIL.reset(given)
    return trail


async def test_what_the_hooks_decided_is_in_the_trail(desk, tmp_path: Path) -> None:
    workspace, config = desk
    async with open_gateway(workspace, trust=True, config=config) as gateway:
        blocked = await _trail_of(gateway, "danger")
        allowed = await _trail_of(gateway, "echo")
    assert (blocked.outcome, blocked.package, blocked.ecosystem) == ("blocked", "desk", "nimlet")
    assert blocked.hooks == {
        "tool_call": {"asked": 1, "failed": 0, "blocked": True, "rewrote": False}
    }
    assert allowed.outcome == "ok"
    assert allowed.hooks["tool_call"]["blocked"] is False
    line = AuditLog(tmp_path / "audit.jsonl").line(AuditRecord(TOKEN, "danger", blocked, 0.01))
    assert (line["outcome"], line["hooks"]) == ("blocked", blocked.hooks)


async def test_an_adopted_policys_rule_is_in_the_trail(desk, tmp_path: Path) -> None:
    workspace, config = desk
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "extension.json").write_text(json.dumps({"name": "rules", "command": ["true"]}))
    package = install_ready(config.home, folder)
    bundle = {"rules": [{"id": "no-rm", "priority": 1, "when": {"target": "rm_*"},
                         "then": {"decision": "deny"}}]}  # fmt: skip
    with StateStore.open(config.home) as store:
        PolicyRecords(store).accept(package, bundle)

    async def remove(arguments: dict[str, Any]) -> ToolOutcome:
        raise AssertionError("a denied tool never runs")

    async with open_gateway(workspace, trust=True, config=config) as gateway:
        gateway.register_builtin_tool("rm_files", "Remove files.", {"type": "object"}, remove)
        trail = await _trail_of(gateway, "rm_files")
    assert trail.outcome == "policy_denied"
    assert trail.policy == {"decision": "deny", "rule": "rules:no-rm", "reason": ""}
    line = AuditLog(tmp_path / "audit.jsonl").line(AuditRecord(TOKEN, "rm_files", trail, 0.0))
    assert line["policy"] == trail.policy


def test_an_oauth_caller_is_named_with_its_subject(tmp_path: Path) -> None:
    oauth = TokenRecord(name="oauth:agent-app", sha256="", subject="user-42")
    line = AuditLog(tmp_path / "a.jsonl").line(AuditRecord(oauth, "echo", CallTrail(), 0.0))
    assert (line["auth"], line["token"], line["subject"]) == ("oauth", "oauth:agent-app", "user-42")
    plain = AuditLog(tmp_path / "a.jsonl").line(AuditRecord(TOKEN, "echo", CallTrail(), 0.0))
    assert (plain["auth"], plain["subject"]) == ("token", None)


def test_arguments_and_results_only_when_the_operator_opts_in(tmp_path: Path) -> None:
    record = AuditRecord(TOKEN, "echo", CallTrail(outcome="ok"), 0.0,
                         arguments={"secret": "s3cr3t"}, result={"text": "x" * 5000})  # fmt: skip
    assert "arguments" not in AuditLog(tmp_path / "a.jsonl").line(record)
    kept = AuditLog(tmp_path / "a.jsonl", arguments=True).line(record)
    assert kept["arguments"] == {"secret": "s3cr3t"}
    assert kept["result"]["length"] > 5000 and len(kept["result"]["cut"]) == 4096


def test_a_line_is_never_split_between_two_rotated_files(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "audit.jsonl"
    audit = AuditLog(path, limits=LogLimits(max_bytes=2000, keep=3))
    for n in range(40):
        audit.record(AuditRecord(TOKEN, f"tool-{n}", CallTrail(outcome="ok"), 0.0))
    audit.close()
    files = [path.with_name(f"audit.jsonl.{i}") for i in (3, 2, 1)] + [path]
    assert all(f.exists() for f in files)
    assert not path.with_name("audit.jsonl.4").exists()  # three older files kept
    tools = []
    for f in files:
        text = f.read_text()
        assert text.endswith("\n") and f.stat().st_size <= 2000
        tools += [json.loads(line)["tool"] for line in text.splitlines()]
    # the newest lines, whole and in order, up to the last one written
    assert tools == [f"tool-{n}" for n in range(40 - len(tools), 40)]
