"""Discovery: the extension roots and trust, manifests, tool.json tools, skills and prompts."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from adapters import inspect_package
from gateway import open_gateway
from gateway.model import discover, expand_prompt
from gateway.packages.trust import set_workspace_trust

FIXTURE = Path(__file__).parents[1] / "fixtures" / "scripted_extension.py"

EXTENSION_ROOTS = (
    "~/.agents/extensions",
    "~/.nimlet/extensions",
    ".agents/extensions",
    ".nimlet/extensions",
)


def codes(diagnostics: Any) -> list[str]:
    return [d.code for d in diagnostics]


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def write_script(path: Path, text: str, *, executable: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755 if executable else 0o644)
    return path


def names(found: Any) -> list[str]:
    return [item.manifest.name for item in found.extensions]


def ws(workspace: Any) -> Path:
    return workspace.root.resolve()


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


# --------------------------------------------------------------------------- skills


def add_skill(base: Path, folder: str, text: str) -> Path:
    path = base / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


SKILL_ROOTS = ("~/.agents/skills", "~/.nimlet/skills", ".agent/skills", ".agents/skills",
               ".nimlet/skills")  # fmt: skip


def skill_root(workspace: Any, root: str) -> Path:
    return workspace.home / root[2:] if root.startswith("~/") else ws(workspace) / root


def test_skill_roots_later_root_overrides_by_name(workspace):
    paths = [
        add_skill(
            skill_root(workspace, root), "s", f"---\nname: shared\ndescription: from {root}\n---\n"
        )
        for root in SKILL_ROOTS
    ]
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert [(s.name, s.description, s.path) for s in found.skills] == [
        ("shared", "from .nimlet/skills", paths[-1])
    ]
    assert codes(found.diagnostics) == ["resource.overridden"] * 4


@pytest.mark.parametrize("root", SKILL_ROOTS)
def test_every_skill_root_is_read(workspace, root):
    add_skill(skill_root(workspace, root), "s", "---\nname: here\n---\nbody\n")
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert [s.name for s in found.skills] == ["here"]
    untrusted = discover(ws(workspace), workspace.home, trusted=False)
    assert [s.name for s in untrusted.skills] == (["here"] if root.startswith("~/") else [])


def test_skill_front_matter_name_and_description(workspace):
    add_skill(
        ws(workspace) / ".nimlet/skills",
        "folder-name",
        "---\nname: pdf-tools\ndescription: Work with PDF files.\n---\n# PDF\nOther text.\n",
    )
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert [(s.name, s.description) for s in found.skills] == [
        ("pdf-tools", "Work with PDF files.")
    ]


def test_skill_description_falls_back_to_first_non_heading_line(workspace):
    add_skill(
        ws(workspace) / ".nimlet/skills",
        "helper",
        "---\nname: helper\n---\n\n# Helper\n## Usage\n\n  Formats the changelog.  \nMore.\n",
    )
    add_skill(ws(workspace) / ".nimlet/skills", "plain", "# Plain\nNo front matter here.\n")
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert sorted((s.name, s.description) for s in found.skills) == [
        ("helper", "Formats the changelog."),
        ("plain", "No front matter here."),
    ]


def test_skill_scan_stops_after_64_lines(workspace):
    headings = "".join(f"# heading {n}\n" for n in range(63))
    add_skill(ws(workspace) / ".nimlet/skills", "in_time", headings + "line 64\n")
    add_skill(ws(workspace) / ".nimlet/skills", "too_late", headings + "# 64\nline 65\n")
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert sorted((s.name, s.description) for s in found.skills) == [
        ("in_time", "line 64"),
        ("too_late", ""),
    ]


def test_skill_front_matter_fields_in_the_first_64_lines_are_read(workspace):
    long_tail = "".join(f"key{n}: value\n" for n in range(70))
    add_skill(
        ws(workspace) / ".nimlet/skills",
        "folder",
        f"---\nname: long-skill\ndescription: A long one.\n{long_tail}---\nBody.\n",
    )
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert [(s.name, s.description) for s in found.skills] == [("long-skill", "A long one.")]


@pytest.mark.parametrize(
    "front_matter",
    ["name: [unclosed", "- just\n- a list", "name: {nested: map}"],
    ids=["not-yaml", "not-a-mapping", "name-not-text"],
)
def test_malformed_skill_front_matter_is_skill_invalid(workspace, front_matter):
    bad = add_skill(ws(workspace) / ".nimlet/skills", "bad", f"---\n{front_matter}\n---\nbody\n")
    add_skill(ws(workspace) / ".nimlet/skills", "good", "---\nname: good\n---\nFine.\n")
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert [s.name for s in found.skills] == ["good"]
    assert codes(found.diagnostics) == ["skill.invalid"]
    assert str(bad) in found.diagnostics[0].message


# --------------------------------------------------------------------------- prompts


def add_prompt(base: Path, name: str, text: str) -> Path:
    path = base / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.anyio
async def test_prompt_templates_become_commands(workspace):
    add_prompt(
        ws(workspace) / ".nimlet/prompts",
        "review",
        "---\ndescription: Review some files\n---\nReview $ARGUMENTS carefully.\nFiles: $@\n",
    )
    add_prompt(workspace.home / ".agents/prompts", "plain", "# Title\nSay hello to $ARGUMENTS\n")
    (ws(workspace) / ".nimlet/prompts/notes.txt").write_text("not a template")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        commands = {c.name: c.description for c in gateway.registry.commands()}
        review = await gateway.run_command("REVIEW", "a.py b.py")
        plain = await gateway.run_command("plain", "Ada")
    assert commands == {"review": "Review some files", "plain": "Say hello to $ARGUMENTS"}
    assert review.prompt == "Review a.py b.py carefully.\nFiles: a.py b.py"
    assert plain.prompt == "# Title\nSay hello to Ada"


def test_prompt_roots_later_root_overrides_by_name(workspace):
    add_prompt(workspace.home / ".agents/prompts", "fix", "user")
    add_prompt(ws(workspace) / ".agent/prompts", "fix", "agent")
    winner = add_prompt(ws(workspace) / ".nimlet/prompts", "fix", "nimlet")
    found = discover(ws(workspace), workspace.home, trusted=True)
    assert [(p.name, p.body, p.path) for p in found.prompts] == [("fix", "nimlet", winner)]
    assert codes(found.diagnostics) == ["resource.overridden"] * 2


def test_prompt_arguments_are_substituted_once(workspace):
    assert expand_prompt("Pay $ARGUMENTS now", "me $@ 5") == "Pay me $@ 5 now"
    assert expand_prompt("Pay $@ now", "me $ARGUMENTS 5") == "Pay me $ARGUMENTS 5 now"
