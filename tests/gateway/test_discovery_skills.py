"""Discovery of skills and prompt templates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gateway import open_gateway
from gateway.model import discover, expand_prompt
from tests.gateway._discovery import (
    codes,
    ws,
)

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
