"""Discovery of tool.json tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters import inspect_package
from gateway.model import discover
from tests.gateway._discovery import (
    codes,
    write_json,
    ws,
)

# --------------------------------------------------------------------------- tool.json


def add_tool(base: Path, name: str, folder: str | None = None, **manifest: Any) -> Path:
    directory = base / (folder or name)
    required = {"description": "", "input_schema": {"type": "object"}}
    write_json(
        directory / "tool.json", {"name": name, "command": ["./tool.py"], **required, **manifest}
    )
    return directory


def test_tool_json_roots_later_root_overrides_by_name(workspace):
    root = ws(workspace)
    add_tool(workspace.home / ".nimlet/tools", "t")
    add_tool(root / ".agent/tools", "t")
    winner = add_tool(root / ".nimlet/tools", "t")
    add_tool(workspace.home / ".nimlet/tools", "only_user")
    found = discover(root, workspace.home, trusted=True)
    by_name = {tool.manifest.name: tool for tool in found.tools}
    assert sorted(by_name) == ["only_user", "t"]
    assert by_name["t"].folder == winner
    assert codes(found.diagnostics) == ["resource.overridden", "resource.overridden"]


def test_tool_json_agent_root_overrides_user_root(workspace):
    root = ws(workspace)
    add_tool(workspace.home / ".nimlet/tools", "t")
    winner = add_tool(root / ".agent/tools", "t")
    found = discover(root, workspace.home, trusted=True)
    assert [tool.folder for tool in found.tools] == [winner]
    assert codes(found.diagnostics) == ["resource.overridden"]


def test_tool_json_roots_are_only_the_three_of_the_spec(workspace):
    root = ws(workspace)
    add_tool(workspace.home / ".agents/tools", "a")
    add_tool(workspace.home / ".agent/tools", "b")
    add_tool(root / ".agents/tools", "c")
    add_tool(workspace.home / ".nimlet/tools", "user")
    add_tool(root / ".agent/tools", "agent")
    add_tool(root / ".nimlet/tools", "nimlet")
    found = discover(root, workspace.home, trusted=True)
    assert sorted(tool.manifest.name for tool in found.tools) == ["agent", "nimlet", "user"]
    untrusted = discover(root, workspace.home, trusted=False)
    assert [tool.manifest.name for tool in untrusted.tools] == ["user"]


def test_invalid_tool_manifest_is_skipped_with_warning(workspace):
    root = ws(workspace)
    bad = add_tool(root / ".nimlet/tools", "bad", timeout_seconds=0)
    add_tool(root / ".nimlet/tools", "good")
    found = discover(root, workspace.home, trusted=True)
    assert [tool.manifest.name for tool in found.tools] == ["good"]
    assert codes(found.diagnostics) == ["manifest.invalid"]
    assert found.diagnostics[0].message.startswith(f"skipping {bad / 'tool.json'}: ")


@pytest.mark.parametrize("missing", ["description", "input_schema"])
def test_tool_json_that_install_refuses_is_skipped_by_discovery_too(workspace, missing):
    """One reader: the fields ``inspect`` requires are the fields discovery requires."""
    root = ws(workspace)
    folder = add_tool(root / ".nimlet/tools", "t")
    data = json.loads((folder / "tool.json").read_text())
    del data[missing]
    write_json(folder / "tool.json", data)
    found = discover(root, workspace.home, trusted=True)
    assert found.tools == []
    assert [d.message for d in found.diagnostics] == [
        f"skipping {folder / 'tool.json'}: missing {missing}"
    ]
    inspected = inspect_package(folder)
    assert [d.message for d in inspected.diagnostics if d.code == "nimlet.tool_invalid"] == [
        f"tool.json: missing {missing}"
    ]


def test_tool_json_with_an_invalid_input_schema_is_skipped_when_discovered(workspace):
    root = ws(workspace)
    add_tool(root / ".nimlet/tools", "t", input_schema={"type": "no-such-type"})
    found = discover(root, workspace.home, trusted=True)
    assert found.tools == []
    assert "input_schema is not a valid JSON Schema" in found.diagnostics[0].message
