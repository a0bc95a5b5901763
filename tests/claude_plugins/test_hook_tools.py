"""``register.hook_tools``: a plugin whose tool hooks list exact tool names is asked — and
started — only for those tools; a hook that can apply to a call always runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from adapters.plugin_host._command_hooks import CommandHooks
from gateway import open_gateway
from gateway.packages import install, load_adapters
from gateway.store import StateStore
from gateway.wire.features import ExtraError, RegisterExtras
from tests.conftest import FIXTURES

pytestmark = pytest.mark.anyio

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "packages"


def _narrowed(tmp_path: Path, events: dict[str, list[dict[str, Any]]]) -> dict[str, list[str]]:
    hooks = CommandHooks.from_config(
        {"hooks": events}, root=str(tmp_path), data_dir=str(tmp_path), env={}
    )
    return hooks.hook_tools


def _group(matcher: str | None) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": "true"}]}
    return group if matcher is None else {**group, "matcher": matcher}


def test_exact_name_matchers_narrow_their_event_to_those_tools(tmp_path: Path) -> None:
    events = {"PreToolUse": [_group("Write|Edit"), _group("open_ticket")]}
    assert _narrowed(tmp_path, events) == {"tool_call": ["Edit", "Write", "open_ticket"]}


@pytest.mark.parametrize("matcher", [None, "", "*", "mcp__.*", "Write.*"])
def test_a_matcher_that_can_match_more_narrows_nothing(tmp_path: Path, matcher: str) -> None:
    events = {"PreToolUse": [_group("Write"), _group(matcher)], "PostToolUse": [_group("Edit")]}
    assert _narrowed(tmp_path, events) == {"tool_result": ["Edit"]}


def test_a_malformed_declaration_is_an_error_not_a_filter() -> None:
    with pytest.raises(ExtraError):
        RegisterExtras.parse({"hook_tools": {"tool_call": "Write"}}).hook_tool_filters()
    with pytest.raises(ExtraError):
        RegisterExtras.parse({"hook_tools": ["Write"]}).hook_tool_filters()
    only = RegisterExtras.parse({"hook_tools": {"tool_call": ["a"], "input": ["b"]}})
    assert only.hook_tool_filters() == {"tool_call": frozenset({"a"})}


def _ready(home: Path, source: Path) -> str:
    report = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    package_id = report.package.record.id
    with StateStore.open(home) as store:
        store.set_trusted(package_id, True)
        store.set_enabled(package_id, True)
    return package_id


def _tools_package(root: Path, tools: list[str]) -> Path:
    source = root / "tools-source"
    source.mkdir(parents=True)
    config = root / "tools-config.json"
    config.write_text(json.dumps({"tools": tools}))
    command = [sys.executable, str(FIXTURES / "scripted_extension.py"), str(config)]
    (source / "extension.json").write_text(json.dumps({"name": "tools", "command": command}))
    return source


async def test_a_dormant_plugin_starts_only_for_the_tools_its_hooks_name(workspace: Any) -> None:
    home = workspace.config.home
    _ready(home, EXAMPLES / "ticket-policy")  # PreToolUse, matcher "open_ticket"
    _ready(home, _tools_package(workspace.root.parent, ["other_tool", "open_ticket"]))

    def opened() -> Any:
        return open_gateway(workspace.root, trust=True, config=workspace.config)

    async with opened():
        pass  # the first load starts both and caches what they registered
    async with opened() as gateway:
        await gateway.start_for(["session_start", "tool_call", "tool_result"], ["other_tool"])
        result = await gateway.call_tool("other_tool", {"do": "echo"})
        assert not result.is_error
        assert [p.name for p in gateway.processes] == ["tools"]
        blocked = await gateway.call_tool("open_ticket", {"title": "prod is down"})
        assert blocked.blocked, blocked.content  # the hook applies: its plugin started
        assert "on-call runbook" in blocked.content
        assert sorted(p.name for p in gateway.processes) == ["ticket-policy", "tools"]
