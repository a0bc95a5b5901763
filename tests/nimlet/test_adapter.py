"""nimlet: extension.json, tool.json, SKILL.md skills and prompt templates."""

from __future__ import annotations

import json
from pathlib import Path

from adapters import inspect_package
from tests.adapters._helpers import assert_well_formed, codes, errors, messages, names, write_tree

NOTES = {"name": "notes", "command": ["./extension.py"], "response_timeout_seconds": 30}


def test_nimlet_extension_manifest_gives_identity_and_entry(tmp_path: Path) -> None:
    write_tree(tmp_path, {"extension.json": NOTES, "extension.py": "#!/usr/bin/env python3\n"})
    entry = inspect_package(tmp_path)
    assert (entry.ecosystem, entry.id, entry.name, entry.runtime) == (
        "nimlet",
        "notes",
        "notes",
        "nimlet-process",
    )
    assert entry.entries == ["extension.py"]
    assert entry.metadata["response_timeout_seconds"] == 30
    assert errors(entry) == []
    assert_well_formed(entry)


def test_nimlet_extension_contributions_are_runtime_only(tmp_path: Path) -> None:
    write_tree(tmp_path, {"extension.json": NOTES, "extension.py": ""})
    entry = inspect_package(tmp_path)
    assert entry.contributions == []
    assert "nimlet.contributions_runtime_only" in codes(entry)


def test_nimlet_missing_name_is_reported(tmp_path: Path) -> None:
    write_tree(tmp_path, {"extension.json": {"command": ["x"]}})
    entry = inspect_package(tmp_path)
    assert messages(entry, "nimlet.manifest_invalid") == ["extension.json: missing name"]
    assert entry.id == tmp_path.name  # the folder names it when the manifest cannot


def test_nimlet_empty_command_is_rejected(tmp_path: Path) -> None:
    write_tree(tmp_path, {"extension.json": {"name": "x", "command": []}})
    assert messages(inspect_package(tmp_path), "nimlet.manifest_invalid") == [
        "extension.json: command must not be empty"
    ]


def test_nimlet_command_items_must_be_non_empty_strings(tmp_path: Path) -> None:
    write_tree(tmp_path, {"extension.json": {"name": "x", "command": ["ok", 3, ""]}})
    found = messages(inspect_package(tmp_path), "nimlet.manifest_invalid")
    assert found == [
        "extension.json: command[1] must be a non-empty string (got a number)",
        "extension.json: command[2] must be a non-empty string (got a string)",
    ]


def test_nimlet_timeout_must_be_positive_integer_or_null(tmp_path: Path) -> None:
    for bad in (0, -5, 1.5, True, "30"):
        write_tree(
            tmp_path,
            {
                "extension.json": {
                    "name": "x",
                    "command": ["x"],
                    **{"response_timeout_seconds": bad},
                }
            },
        )
        found = messages(inspect_package(tmp_path), "nimlet.manifest_invalid")
        assert len(found) == 1 and "response_timeout_seconds" in found[0], bad


def test_nimlet_null_timeout_means_no_timeout(tmp_path: Path) -> None:
    manifest = {"name": "x", "command": ["x"], "response_timeout_seconds": None}
    entry = inspect_package(write_tree(tmp_path, {"extension.json": manifest}))
    assert entry.metadata["response_timeout_seconds"] is None
    assert errors(entry) == []


def test_nimlet_default_timeout_is_30(tmp_path: Path) -> None:
    entry = inspect_package(
        write_tree(tmp_path, {"extension.json": {"name": "x", "command": ["x"]}})
    )
    assert entry.metadata["response_timeout_seconds"] == 30


def test_nimlet_unknown_manifest_field_is_a_warning(tmp_path: Path) -> None:
    manifest = {**NOTES, "command": ["x"], "response_timeout": 5}
    entry = inspect_package(write_tree(tmp_path, {"extension.json": manifest}))
    assert messages(entry, "nimlet.manifest_unknown_field") == [
        "extension.json: unknown field response_timeout"
    ]
    assert errors(entry) == []


def test_nimlet_command_escaping_the_package_is_an_error(tmp_path: Path) -> None:
    manifest = {"name": "x", "command": ["../../bin/run"]}
    entry = inspect_package(write_tree(tmp_path / "ext", {"extension.json": manifest}))
    assert any("leaves the package" in m for m in messages(entry, "package.path_escape"))
    assert entry.entries == []


def test_nimlet_absolute_or_path_program_is_not_an_entry(tmp_path: Path) -> None:
    for command in (["/usr/bin/python3", "x.py"], ["python3", "missing.py"]):
        write_tree(tmp_path, {"extension.json": {"name": "x", "command": command}})
        entry = inspect_package(tmp_path)
        assert entry.entries == [] and errors(entry) == [], command


def test_nimlet_interpreter_script_in_package_is_the_entry(tmp_path: Path) -> None:
    manifest = {"name": "x", "command": ["node", "extension.mjs"]}
    entry = inspect_package(write_tree(tmp_path, {"extension.json": manifest, "extension.mjs": ""}))
    assert entry.entries == ["extension.mjs"]


def test_nimlet_invalid_json_names_file_and_position(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"extension.json": '{"name": "x",\n  oops}'}))
    assert messages(entry, "package.json_invalid") == [
        "extension.json: invalid JSON at line 2 column 3: Expecting property name enclosed "
        "in double quotes"
    ]


def test_nimlet_non_object_manifest_is_reported(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"extension.json": ["notes"]}))
    assert messages(entry, "package.not_an_object") == [
        "extension.json: top level is an array, not an object"
    ]


def test_nimlet_tool_json_folder_is_a_per_call_tool(tmp_path: Path) -> None:
    tool = {
        "name": "word_count",
        "description": "Count words.",
        "command": ["./count.sh"],
        "timeout_seconds": 5,
        "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}},
        "capabilities": ["read"],
    }
    entry = inspect_package(write_tree(tmp_path, {"tool.json": tool, "count.sh": ""}))
    assert (entry.id, entry.runtime, entry.entries) == ("word_count", "nimlet-tool", ["count.sh"])
    (contribution,) = entry.contributions
    assert contribution.detail["timeout_seconds"] == 5
    assert contribution.detail["capabilities"] == ["read"]
    assert errors(entry) == []


def test_nimlet_tool_without_capabilities_counts_as_unsafe(tmp_path: Path) -> None:
    tool = {"name": "t", "description": "", "command": ["t"], "input_schema": {}}
    entry = inspect_package(write_tree(tmp_path, {"tool.json": tool}))
    assert entry.contributions[0].detail["capabilities"] == ["write", "shell", "network"]


def test_nimlet_tool_missing_fields_are_named(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"tools/t/tool.json": {"name": "t"}}))
    assert messages(entry, "nimlet.tool_invalid") == [
        "tools/t/tool.json: missing description",
        "tools/t/tool.json: missing command",
        "tools/t/tool.json: missing input_schema",
    ]


def test_nimlet_tool_timeout_below_one_is_rejected(tmp_path: Path) -> None:
    tool = {
        "name": "t",
        "description": "",
        "command": ["t"],
        "input_schema": {},
        "timeout_seconds": 0,
    }
    entry = inspect_package(write_tree(tmp_path, {"tool.json": tool}))
    assert messages(entry, "nimlet.tool_invalid") == [
        "tool.json: timeout_seconds must be a positive integer (got a number)"
    ]


def test_nimlet_tool_unknown_capability_is_rejected(tmp_path: Path) -> None:
    tool = {
        "name": "t",
        "description": "",
        "command": ["t"],
        "input_schema": {},
        "capabilities": ["read", "admin"],
    }
    entry = inspect_package(write_tree(tmp_path, {"tool.json": tool}))
    assert messages(entry, "nimlet.tool_invalid") == [
        "tool.json: capabilities has unknown capability 'admin'; expected some of network, "
        "read, shell, user, write"
    ]


def test_nimlet_tool_with_builtin_name_is_flagged(tmp_path: Path) -> None:
    tool = {"name": "bash", "description": "", "command": ["b"], "input_schema": {}}
    entry = inspect_package(write_tree(tmp_path, {"tool.json": tool}))
    assert codes(entry).count("nimlet.tool_builtin_name") == 1


def test_nimlet_skill_folder_uses_frontmatter(tmp_path: Path) -> None:
    skill = "---\nname: pdf-tools\ndescription: Work with PDFs.\n---\n# PDF\nBody.\n"
    entry = inspect_package(write_tree(tmp_path, {"SKILL.md": skill}))
    assert (entry.id, entry.runtime, entry.description) == (
        "pdf-tools",
        "declarative",
        "Work with PDFs.",
    )
    assert names(entry, "skill") == ["pdf-tools"]


def test_nimlet_skill_without_frontmatter_uses_first_line(tmp_path: Path) -> None:
    entry = inspect_package(
        write_tree(tmp_path, {"skills/lint/SKILL.md": "# Lint\nRun linters.\n"})
    )
    (skill,) = entry.contributions
    assert (skill.name, skill.description) == ("lint", "Run linters.")


def test_nimlet_skill_with_broken_frontmatter_is_a_warning(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"SKILL.md": "---\nname: [unclosed\n---\nx\n"}))
    assert messages(entry, "package.skill_invalid") == [
        "SKILL.md: front matter is not valid YAML (ParserError)"
    ]
    assert errors(entry) == []


def test_nimlet_prompts_become_prompt_contributions(tmp_path: Path) -> None:
    prompt = "---\ndescription: Review the diff\n---\nReview $ARGUMENTS\n"
    entry = inspect_package(write_tree(tmp_path, {"prompts/review.md": prompt}))
    (contribution,) = entry.contributions
    assert (contribution.kind, contribution.name, contribution.description) == (
        "prompt",
        "review",
        "Review the diff",
    )


def test_nimlet_forced_on_empty_folder_reports_missing_manifest(tmp_path: Path) -> None:
    entry = inspect_package(tmp_path, "nimlet")
    assert messages(entry, "package.file_missing") == ["extension.json: file not found"]


def test_nimlet_conformance_spec_examples(tmp_path: Path) -> None:
    """The nimlet document's notes and guard extensions, a tool, a skill and a prompt."""
    write_tree(
        tmp_path,
        {
            "notes/extension.json": NOTES,
            "notes/extension.py": "#!/usr/bin/env python3\n",
            "guard/extension.json": {"name": "guard", "command": ["./extension.py"]},
            "guard/extension.py": "",
            "win/extension.json": {
                "name": "notes",
                "command": ["python", ".nimlet/extensions/notes/extension.py"],
            },
            "bundle/tools/wc/tool.json": {
                "name": "wc",
                "description": "Count words",
                "command": ["python3", "wc.py"],
                "input_schema": {"type": "object"},
            },
            "bundle/tools/wc/wc.py": "",
            "bundle/skills/review/SKILL.md": "---\nname: review\ndescription: Review.\n---\n",
            "bundle/prompts/fix.md": "Fix $@\n",
        },
    )
    notes = inspect_package(tmp_path / "notes")
    assert (notes.id, notes.entries, errors(notes)) == ("notes", ["extension.py"], [])
    assert inspect_package(tmp_path / "guard").metadata["response_timeout_seconds"] == 30
    windows = inspect_package(tmp_path / "win")
    assert (windows.entries, errors(windows)) == ([], [])
    bundle = inspect_package(tmp_path / "bundle")
    assert bundle.ecosystem == "nimlet" and bundle.runtime == "nimlet-tool"
    assert [(c.kind, c.name) for c in bundle.contributions] == [
        ("tool", "wc"),
        ("skill", "review"),
        ("prompt", "fix"),
    ]
    assert bundle.entries == ["tools/wc/wc.py"]
    for entry in (notes, windows, bundle):
        assert_well_formed(entry)
    json.dumps(bundle.to_dict())
