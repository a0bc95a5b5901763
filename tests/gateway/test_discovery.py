"""Discovery of extensions: the extension roots, trust, manifests and launching."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from gateway import open_gateway
from gateway.model import discover
from gateway.packages.trust import set_workspace_trust
from tests.gateway._discovery import (
    EXTENSION_ROOTS,
    FIXTURE,
    codes,
    names,
    write_json,
    write_script,
    ws,
)

# --------------------------------------------------------------------------- extension roots


def test_extension_roots_are_searched_in_spec_order(workspace):
    # Names run backwards, so only the root order can put them in this order.
    for root, name in zip(EXTENSION_ROOTS, ("d", "c", "b", "a"), strict=True):
        workspace.add_extension(name, root=root)
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert names(found) == ["d", "c", "b", "a"]
    assert [item.scope for item in found.extensions] == ["user", "user", "project", "project"]


@pytest.mark.anyio
async def test_hooks_are_asked_in_startup_order(workspace):
    guards = ("d", "c", "b", "a")
    for root, name in zip(EXTENSION_ROOTS, guards, strict=True):
        workspace.add_extension(
            name,
            root=root,
            tools=[],
            events=["tool_call"],
            hooks={"tool_call": {"arguments": {"by": name}}},
        )
        workspace.grant(name, "hooks.rewrite")  # each changes another extension's tool
    workspace.add_extension("tool", root="~/.nimlet/extensions")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {"by": "model"})
    seen = [
        next(m for m in workspace.received(name) if m.get("event") == "tool_call")["payload"]
        for name in guards
    ]
    # Each guard sees the rewrite of the guard started before it.
    assert [payload["arguments"]["by"] for payload in seen] == ["model", "d", "c", "b"]
    assert json.loads(result.content)["arguments"] == {"by": "a"}


@pytest.mark.anyio
async def test_every_extension_folder_starts_even_with_the_same_name(workspace):
    first = workspace.add_extension("twin", folder="one", tools=["first"])
    second = workspace.add_extension("twin", folder="two", tools=["second"])
    third = workspace.add_extension("twin", root="~/.nimlet/extensions", tools=["third"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert len(gateway.processes) == 3
        results = [await gateway.call_tool(tool) for tool in ("first", "second", "third")]
    assert [r.is_error for r in results] == [False, False, False]
    for log in (first, second, third):
        kinds = [json.loads(line)["type"] for line in log.read_text().splitlines()]
        assert kinds[0] == "initialize"
        assert "tool" in kinds


@pytest.mark.anyio
async def test_same_tool_name_in_two_extensions_last_loaded_wins(workspace):
    workspace.add_extension("early", root="~/.nimlet/extensions")
    workspace.add_extension("late", root=".nimlet/extensions")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {"x": 1})
        owner = gateway.registry.tool("act").owner
    assert result.is_error is False
    assert owner == "late"
    assert [m for m in workspace.received("late") if m["type"] == "tool"]
    assert not [m for m in workspace.received("early") if m["type"] == "tool"]


def test_there_is_no_dot_agent_extensions_root(workspace):
    workspace.add_extension("hidden", root=".agent/extensions")
    workspace.add_extension("hidden_user", root="~/.agent/extensions")
    workspace.add_extension("seen", root=".agents/extensions")
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert names(found) == ["seen"]


# --------------------------------------------------------------------------- trust


@pytest.mark.anyio
async def test_project_roots_skipped_until_workspace_trusted(workspace):
    workspace.add_extension("mine", root="~/.nimlet/extensions")
    workspace.add_extension("shared", root=".agents/extensions")
    workspace.add_extension("project", root=".nimlet/extensions")
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        untrusted = sorted(p.name for p in gateway.processes)
    assert untrusted == ["mine"]
    assert workspace.received("project") == []
    assert workspace.received("shared") == []
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        trusted = sorted(p.name for p in gateway.processes)
    assert trusted == ["mine", "project", "shared"]


@pytest.mark.anyio
async def test_persisted_trust_loads_project_roots(workspace):
    workspace.add_extension("project")
    set_workspace_trust(workspace.config.home, workspace.root, True)
    async with open_gateway(
        workspace.root, trust=None, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert [p.name for p in gateway.processes] == ["project"]
    set_workspace_trust(workspace.config.home, workspace.root, False)
    async with open_gateway(
        workspace.root, trust=None, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.processes == []


@pytest.mark.anyio
async def test_subfolder_inherits_persisted_trust(workspace):
    workspace.add_extension("nested", root="pkg/app/.nimlet/extensions")
    set_workspace_trust(workspace.config.home, workspace.root, True)
    async with open_gateway(
        workspace.root / "pkg" / "app", config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert [p.name for p in gateway.processes] == ["nested"]


def test_untrusted_diagnostic_when_project_resources_skipped(workspace):
    workspace.add_extension("project")
    untrusted = discover(ws(workspace), workspace.home, trusted=False)
    assert codes(untrusted.diagnostics) == ["workspace.untrusted"]
    assert str(ws(workspace)) in untrusted.diagnostics[0].message
    trusted = discover(ws(workspace), workspace.home, trusted=True)
    assert "workspace.untrusted" not in codes(trusted.diagnostics)


def test_untrusted_diagnostic_only_when_something_was_skipped(workspace):
    workspace.add_extension("mine", root="~/.nimlet/extensions")
    found = discover(ws(workspace), workspace.home, trusted=False)
    assert names(found) == ["mine"]
    assert found.diagnostics == []


@pytest.mark.parametrize(
    "relative", [".nimlet/tools/t/tool.json", ".agent/skills/s/SKILL.md", ".agents/prompts/p.md"]
)
def test_untrusted_diagnostic_for_tools_skills_and_prompts(workspace, relative):
    path = workspace.root / relative
    path.parent.mkdir(parents=True)
    path.write_text("{}" if path.suffix == ".json" else "text")
    found = discover(ws(workspace), workspace.home, trusted=False)
    assert codes(found.diagnostics) == ["workspace.untrusted"]
    assert found.tools == found.skills == found.prompts == []


# --------------------------------------------------------------------------- manifests


def manifest_path(workspace: Any, folder: str = "bad") -> Path:
    return ws(workspace) / ".nimlet" / "extensions" / folder / "extension.json"


def test_manifest_missing_name_is_skipped_with_warning(workspace):
    path = write_json(manifest_path(workspace), {"command": ["./run"]})
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert found.extensions == []
    assert [d.message for d in found.diagnostics] == [f"skipping {path}: missing name"]
    assert codes(found.diagnostics) == ["manifest.invalid"]


@pytest.mark.parametrize(
    "manifest",
    [
        pytest.param({"name": "x"}, id="missing-command"),
        pytest.param({"name": "x", "command": []}, id="empty-command"),
        pytest.param({"name": "x", "command": [1, 2]}, id="command-of-numbers"),
        pytest.param({"name": "x", "command": ["./run", None]}, id="command-with-null"),
        pytest.param({"name": "x", "command": "./run"}, id="command-is-a-string"),
        pytest.param({"name": 7, "command": ["./run"]}, id="name-not-a-string"),
        pytest.param({"name": "", "command": ["./run"]}, id="empty-name"),
        pytest.param({"name": "x", "command": ["./run"], "response_timeout_seconds": 0}, id="t0"),
        pytest.param({"name": "x", "command": ["./run"], "response_timeout_seconds": -1}, id="t-1"),
        pytest.param(
            {"name": "x", "command": ["./run"], "response_timeout_seconds": "30"}, id="t-str"
        ),
        pytest.param(
            {"name": "x", "command": ["./run"], "response_timeout_seconds": True}, id="t-true"
        ),
        pytest.param(
            {"name": "x", "command": ["./run"], "response_timeout_seconds": 1.5}, id="t-float"
        ),
        pytest.param(["x", "./run"], id="not-an-object"),
    ],
)
def test_invalid_manifest_is_skipped_with_warning(workspace, manifest):
    path = write_json(manifest_path(workspace), manifest)
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert found.extensions == []
    assert codes(found.diagnostics) == ["manifest.invalid"]
    assert found.diagnostics[0].message.startswith(f"skipping {path}: ")


def test_empty_command_warning_names_the_command(workspace):
    path = write_json(manifest_path(workspace), {"name": "x", "command": []})
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert found.diagnostics[0].message.startswith(f"skipping {path}: command")


@pytest.mark.parametrize(("value", "expected"), [(None, None), (5, 5), ("absent", 30)])
def test_response_timeout_null_means_none_and_defaults_to_30(workspace, value, expected):
    manifest: dict[str, Any] = {"name": "x", "command": ["./run"]}
    if value != "absent":
        manifest["response_timeout_seconds"] = value
    write_json(manifest_path(workspace, "ok"), manifest)
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert found.diagnostics == []
    assert found.extensions[0].manifest.response_timeout_seconds == expected


def test_manifest_that_is_not_json_is_unreadable(workspace):
    path = manifest_path(workspace)
    path.parent.mkdir(parents=True)
    path.write_text('{"name": "x", "command": ["./run"],')
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert found.extensions == []
    assert codes(found.diagnostics) == ["manifest.unreadable"]
    assert found.diagnostics[0].message.startswith(f"skipping {path}: ")


@pytest.mark.anyio
async def test_bad_manifests_do_not_stop_other_extensions(workspace):
    write_json(manifest_path(workspace, "a_noname"), {"command": ["./run"]})
    write_json(manifest_path(workspace, "b_empty"), {"name": "b", "command": []})
    write_json(
        manifest_path(workspace, "c_timeout"),
        {"name": "c", "command": ["./run"], "response_timeout_seconds": "30"},
    )
    (manifest_path(workspace, "d_json").parent).mkdir(parents=True)
    manifest_path(workspace, "d_json").write_text("{")
    workspace.add_extension("good", folder="e_good")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("act", {"ok": True})
        found = codes(gateway.diagnostics)
    assert result.is_error is False
    assert found.count("manifest.invalid") == 3
    assert found.count("manifest.unreadable") == 1


# --------------------------------------------------------------------------- launching


def scripted(workspace: Any, name: str, command: list[str], **behaviour: Any) -> Path:
    """A scripted extension whose manifest command is replaced by ``command``."""
    workspace.add_extension(name, **behaviour)
    folder = workspace.root / ".nimlet" / "extensions" / name
    write_json(folder / "extension.json", {"name": name, "command": command})
    # A confined extension reads its own folder, not the test suite's.
    shutil.copy(FIXTURE, folder / FIXTURE.name)
    return folder


@pytest.mark.anyio
async def test_relative_command_is_resolved_against_extension_folder(workspace):
    folder = scripted(workspace, "py", ["./ext.py", "extra-arg"])
    write_script(
        folder / "ext.py",
        f"#!{sys.executable}\n"
        "import os, sys\n"
        "assert sys.argv[1:] == ['extra-arg'], sys.argv\n"
        f"os.execv(sys.executable, [sys.executable, {str(folder / FIXTURE.name)!r}, {str(folder / 'config.json')!r}])\n",
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert codes(gateway.diagnostics) == []
        result = await gateway.call_tool("act", {"x": 1})
    assert json.loads(result.content) == {"tool": "act", "arguments": {"x": 1}}


@pytest.mark.anyio
async def test_sh_script_is_launched_through_bash(workspace):
    folder = scripted(workspace, "sh", ["./run.sh"])
    # Not executable and no shebang: only an interpreter can run it; BASH_VERSION proves bash.
    write_script(
        folder / "run.sh",
        'test -n "$BASH_VERSION" || exit 9\n'
        f'exec "{sys.executable}" "{folder / FIXTURE.name}" "{folder / "config.json"}"\n',
        executable=False,
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert codes(gateway.diagnostics) == []
        result = await gateway.call_tool("act")
    assert result.is_error is False


NOTES_EXTENSION = """\
import json, sys

def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()

send({"type": "register", "commands": [{"name": "note"}],
      "tools": [{"name": "save_note", "description": "Save a note.",
                 "input_schema": {"type": "object", "properties": {"text": {"type": "string"}},
                                  "required": ["text"]},
                 "capabilities": ["write"]}]})
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "tool":
        with open("NOTES.md", "a") as handle:
            handle.write(message["arguments"]["text"] + "\\n")
        send({"type": "response", "id": message["id"], "content": "Saved the note."})
    elif kind == "command":
        with open("NOTES.md", "a") as handle:
            handle.write(message["arguments"] + "\\n")
        send({"type": "response", "id": message["id"], "message": "Noted."})
    elif kind == "shutdown":
        break
"""


@pytest.mark.anyio
@pytest.mark.parametrize("form", ["executable", "workspace-relative"])
async def test_extension_working_directory_is_the_workspace(workspace, form):
    folder = workspace.root / ".nimlet" / "extensions" / "notes"
    executable = form == "executable"
    write_script(
        folder / "extension.py", f"#!{sys.executable}\n{NOTES_EXTENSION}", executable=executable
    )
    # The spec's two forms: a script beside the manifest, or an interpreter given a path
    # relative to the workspace (which only works when the workspace is the cwd).
    command = (
        ["./extension.py"]
        if executable
        else [sys.executable, ".nimlet/extensions/notes/extension.py"]
    )
    write_json(folder / "extension.json", {"name": "notes", "command": command})
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("save_note", {"text": "remember the cache bug"})
        outcome = await gateway.run_command("note", "second line")
    assert (result.content, result.is_error, outcome.message) == (
        "Saved the note.",
        False,
        "Noted.",
    )
    assert (workspace.root / "NOTES.md").read_text() == "remember the cache bug\nsecond line\n"
    assert not (folder / "NOTES.md").exists()
