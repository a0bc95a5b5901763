"""Names a package chooses never become paths unchecked (issue 19): a hostile package of
each ecosystem, migrated to each target, writes nothing outside ``--out``; what it names
badly is written under an encoded name (``migrate.name_renamed``) or left out
(``migrate.name_refused``), and MIGRATION.md and the CLI say which."""

from __future__ import annotations

import os

import pytest

from gateway.base import name_problem
from gateway.migrate import TARGETS, Migration, migrate
from gateway.migrate._files import copy_skills
from gateway.migrate._model import Observation, Package
from gateway.packages import load_adapters
from tests._cli import run_here
from tests.migrate import _hostile
from tests.migrate._helpers import config_for, run
from tests.serve._helpers import GATEWAY, REPO

UNSUPPORTED = {("nimlet", "nanobot-manifest"), ("nu", "nanobot-manifest"),
               ("claude", "nanobot-manifest")}  # fmt: skip


def _layout(tmp_path):
    """Source, gateway home and (nested, so ``../..`` stays in view) output folder."""
    return tmp_path / "src", tmp_path / "home", tmp_path / "a" / "b" / "out"


@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("ecosystem", list(_hostile.ECOSYSTEMS))
def test_no_name_a_package_chooses_writes_outside_the_output(tmp_path, ecosystem, target):
    src, home, out = _layout(tmp_path)
    _hostile.ECOSYSTEMS[ecosystem](src, tmp_path)
    migration = run(src, target, out, home)
    assert _hostile.outside(tmp_path, src, home, out, tmp_path / "user") == [
        tmp_path / "a",
        tmp_path / "a" / "b",
    ]
    assert not [p for p in out.rglob("*") if p.is_symlink()]
    assert (out / "MIGRATION.md").is_file()
    if (ecosystem, target) in UNSUPPORTED:
        assert not migration.ok
    elif target != "nanobot-manifest":  # the package's own files as they are
        written = {part for path in out.rglob("*") for part in path.relative_to(out).parts}
        assert [name for name in written if name_problem(name) is not None] == []


def test_each_renamed_skill_and_prompt_is_in_migration_md_with_its_new_name(tmp_path):
    src, home, out = _layout(tmp_path)
    migration = run(_hostile.pi(src, tmp_path), "nimlet", out, home)
    renamed = [n for n in migration.notes if n.code == "migrate.name_renamed"]
    skills = _hostile.skill_names(tmp_path)
    assert sorted(n.contribution for n in renamed) == sorted(
        [*skills, *(s for s in _hostile.PROMPT_STEMS if name_problem(f"{s}.md"))]
    )
    text = (out / "MIGRATION.md").read_text(encoding="utf-8")
    carried = {c.name: c.how for c in migration.carried if c.kind == "skill"}
    for name in skills:
        folder = carried[name].rsplit("`", 2)[1]
        assert (out / ".agents" / "skills" / folder / "SKILL.md").read_text().endswith("hi\n")
        assert f"`{folder}`" in text
    assert "| skill | `x\\ny` |" in text and "| skill | `\\x00` |" in text  # shown, not acted on
    assert "\x00" not in text
    assert (out / ".agents" / "prompts" / ("p" * 250 + ".md")).is_file()  # harmless: kept


def test_a_package_named_dot_dot_gets_an_encoded_extension_folder(tmp_path):
    src, home, out = _layout(tmp_path)
    migration = run(_hostile.openclaw(src, tmp_path), "nimlet", out, home)
    [folder] = (out / ".nimlet" / "extensions").iterdir()
    assert folder.name.startswith("package-") and (folder / "extension.json").is_file()
    assert any(n.code == "migrate.name_renamed" and "'..'" in n.message for n in migration.notes)


def test_the_cli_exits_0_and_names_each_renamed_contribution(tmp_path):
    src, home, out = _layout(tmp_path)
    _hostile.pi(src, tmp_path)
    env = {**os.environ, "GATEWAY_HOME": str(home), "HOME": str(tmp_path / "user"),
           "PYTHONPATH": str(REPO)}  # fmt: skip
    done = run_here(
        ["migrate", str(src), "--to", "nimlet", "--out", str(out),
         "--gateway-command", " ".join(GATEWAY)],
        env=env, cwd=os.getcwd(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("[migrate.name_renamed]") == 15
    assert "skill '../../../../x' is written as .agents/skills/x-" in done.stderr
    assert _hostile.outside(tmp_path, src, home, out, tmp_path / "user") == [
        tmp_path / "a",
        tmp_path / "a" / "b",
    ]


def test_names_that_are_one_file_on_macos_are_refused_never_written_over(tmp_path):
    src, home, out = _layout(tmp_path)
    skill = "---\nname: {}\ndescription: d\n---\n{}\n"
    tree = {"package.json": {"name": "cases", "version": "1.0.0", "keywords": ["pi-package"],
                             "pi": {"skills": ["./skills"], "prompts": ["./prompts"]}},
            "skills/a/SKILL.md": skill.format("Review", "first"),
            "skills/b/SKILL.md": skill.format("review", "second"),
            "skills/c/SKILL.md": skill.format("Review", "third"),
            "prompts/Standup.md": "first\n", "prompts/standup.md": "second\n"}  # fmt: skip
    _hostile.write_tree(src, tree)
    migration = run(src, "nimlet", out, home)
    refused = sorted((n.message.split("'")[0], n.contribution) for n in migration.notes
                     if n.code == "migrate.name_refused")  # fmt: skip
    assert refused == [("prompt ", "standup"), ("skill ", "Review"), ("skill ", "review")]
    [folder] = (out / ".agents" / "skills").iterdir()
    assert (folder / "SKILL.md").read_text().endswith("first\n")
    assert [p.read_text() for p in (out / ".agents" / "prompts").iterdir()] == ["first\n"]


def test_an_agent_skill_named_like_a_windows_device_is_refused_not_renamed(tmp_path):
    src, home, out = _layout(tmp_path)
    migration = run(_hostile.pi(src, tmp_path), "agent-plugin", out, home)
    assert not (out / "skills").exists()  # the rule makes the folder the name
    refused = [n for n in migration.notes if n.code == "migrate.name_refused"]
    assert [n.contribution for n in refused] == ["con"]
    assert "device name" in refused[0].message


@pytest.mark.parametrize("target", list(TARGETS))
def test_tool_and_command_names_never_become_paths(tmp_path, monkeypatch, target):
    src, home, out = _layout(tmp_path)
    names = _hostile.skill_names(tmp_path)
    seen = Observation("recorded", tools=[{"name": n, "description": "d"} for n in names],
                       commands=[{"name": n, "description": "d"} for n in names])  # fmt: skip
    monkeypatch.setattr("gateway.migrate._migrate.recorded", lambda package, config: seen)
    package = {"name": "tools-only", "version": "1.0.0", "keywords": ["pi-package"], "pi": {}}
    _hostile.write_tree(src, {"package.json": package})
    migrate(str(src), target, out, config=config_for(home), gateway_command=GATEWAY)
    assert _hostile.outside(tmp_path, src, home, out, tmp_path / "user") == [
        tmp_path / "a",
        tmp_path / "a" / "b",
    ]
    assert sorted(p.name for p in out.iterdir()) == sorted(
        {"nimlet": [".nimlet", "MIGRATION.md"], "mcp": ["MIGRATION.md", "mcp.json"],
         "agent-plugin": ["MIGRATION.md", "mcp.json", "plugin.json"],
         "nanobot": ["MIGRATION.md", "mcp.json", "plugin.json"],
         "nanobot-manifest": ["MIGRATION.md", "nanobot.extension.json", "package.json"],
         "gemini-extension": ["MIGRATION.md", "gemini-extension.json"],
         "codex-plugin": [".codex-plugin", ".mcp.json", "MIGRATION.md"]}[target]
    )  # fmt: skip
    text = (out / "MIGRATION.md").read_text(encoding="utf-8")
    assert "\x00" not in text  # a name's NUL or escape sequence is shown, not written


def test_links_in_the_package_are_copied_as_files_and_a_loop_ends(tmp_path):
    src, home, out = _layout(tmp_path)
    _hostile.nanobot(src, tmp_path)
    (src / "hostile_bot" / "loop").symlink_to("..")
    (src / "readme-link.md").symlink_to("hostile_bot/__init__.py")
    migration = run(src, "nanobot-manifest", out, home)
    assert migration.ok, [n.message for n in migration.notes]
    assert not [p for p in out.rglob("*") if p.is_symlink()]
    assert (out / "readme-link.md").read_text().startswith("def register")
    assert any("loop" in n.message and n.code == "migrate.not_carried" for n in migration.notes)


def test_a_symlink_already_in_the_output_is_not_followed_out_of_it(tmp_path):
    src, elsewhere, out = tmp_path / "src", tmp_path / "elsewhere", tmp_path / "out"
    entry = load_adapters().inspect(_hostile.pi(src, tmp_path))
    elsewhere.mkdir()
    out.mkdir()
    (out / ".agents").symlink_to(elsewhere)
    migration = Migration("nimlet", out, Package(entry, src, installed=False),
                          Observation("declared"))  # fmt: skip
    copy_skills(migration, (".agents", "skills"), strict_names=False, how="copied")
    assert list(elsewhere.iterdir()) == [] and migration.carried == []
    assert {n.code for n in migration.notes} == {"migrate.name_refused"}
