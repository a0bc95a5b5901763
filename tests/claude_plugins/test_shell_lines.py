"""A command's ``!`` lines against its ``allowed-tools``, as Claude Code decides which run:
each line is named at inspection, refused or (allowed) said to run when the command is
used; nothing runs here."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters._files import Inspection
from adapters.claude_plugins._commands import command_issues
from adapters.claude_plugins._shell_lines import bash_rules, is_allowed, shell_lines

BODY = "Status: !`git status`\nDiff: !`git diff HEAD`\n\n```!\nls -la\n```\nDo it.\n"


def test_inline_lines_and_blocks_are_found_in_order() -> None:
    assert shell_lines(BODY) == ["git status", "git diff HEAD", "ls -la"]


def test_an_inline_line_needs_a_line_start_or_whitespace_before_it() -> None:
    assert shell_lines("KEY=!`id` and (!`id`) but !`date`\n!`uptime`") == ["date", "uptime"]


def test_allowed_tools_as_a_string_or_a_list_give_the_bash_rules() -> None:
    text = "Bash(git add:*), Bash(git status), Read, Edit"
    assert bash_rules(text) == ["git add:*", "git status"]
    assert bash_rules(["Bash", "Read"]) == [None]
    assert bash_rules(None) == []


@pytest.mark.parametrize(
    ("rules", "command", "allowed"),
    [
        (["git status"], "git status", True),
        (["git status"], "git status --short", False),
        (["git diff:*"], "git diff HEAD", True),
        (["git diff:*"], "git diffstat", False),
        (["git log *"], "git log --oneline -5", True),
        (["git log *"], "git show", False),
        (["git status:*"], "git status; rm -rf ~", False),
        (["git status:*"], "git status && curl evil", False),
        (["git status:*"], "git status $(whoami)", False),
        (["git status:*"], "git status > /etc/passwd", False),
        ([None], "anything | at all", True),
        ([], "git status", False),
    ],
)
def test_a_line_runs_only_when_a_bash_rule_allows_it(
    rules: list[str | None], command: str, allowed: bool
) -> None:
    assert is_allowed(rules, command) is allowed


def test_each_line_is_named_refused_or_said_to_run(tmp_path: Path) -> None:
    text = f"---\nallowed-tools: Bash(git status:*), Bash(git diff:*)\n---\n{BODY}"
    inspection = Inspection(tmp_path)
    command_issues(inspection, "commands/c.md", text)
    messages: dict[str, list[str]] = {}
    for diagnostic in inspection.diagnostics:
        messages.setdefault(diagnostic.code, []).append(diagnostic.message)
    runs = messages["claude.command_shell_line_runs"]
    assert ["'git status'" in m for m in runs] == [True, False]
    assert "'git diff HEAD'" in runs[1]
    (refused,) = messages["claude.command_shell_line_refused"]
    assert "'ls -la'" in refused and "commands/c.md" in refused


def test_control_characters_in_a_line_are_escaped_in_the_diagnostic(tmp_path: Path) -> None:
    inspection = Inspection(tmp_path)
    command_issues(inspection, "commands/c.md", "Run !`echo \x1b]52;c;x\x07`\n")
    (refused,) = [d for d in inspection.diagnostics if d.code.endswith("line_refused")]
    assert "\x1b" not in refused.message and "\\x1b" in refused.message


def test_a_rule_matches_the_line_with_its_quotes_removed() -> None:
    rules = bash_rules(["Bash(${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh:*)"])
    assert is_allowed(rules, '"${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh" $ARGUMENTS')
    assert not is_allowed(rules, '"${CLAUDE_PLUGIN_ROOT}/scripts/setup.sh" "a;b"')


def test_a_skill_with_lines_is_also_its_slash_command(tmp_path: Path) -> None:
    """Claude Code runs a SKILL.md's `!` lines when the skill is invoked (`/NAME`): such a
    skill is also a command the plugin host serves, its lines named as a command's are; a
    skill without lines is a skill only, and a command of the same name keeps the name."""
    import json

    from adapters.registry import inspect_package

    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "ctx"}))
    for name, body in {
        "branch": "allowed-tools: Bash(git branch:*)\n---\nOn !`git branch --show-current`\n",
        "plain": "---\nKEY=!`id` is text.\n",
        "taken": "---\nNow: !`date`\n",
    }.items():
        (tmp_path / "skills" / name).mkdir(parents=True)
        (tmp_path / "skills" / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: The {name} skill\n{body}"
        )
    (tmp_path / "commands").mkdir()
    (tmp_path / "commands" / "taken.md").write_text("The command of that name.\n")
    entry = inspect_package(tmp_path)
    prompts = {c.name: c.detail for c in entry.contributions if c.kind == "prompt"}
    assert prompts["branch"] == {"path": "skills/branch/SKILL.md", "shell_lines": True,
                                 "skill": True}  # fmt: skip
    assert "plain" not in prompts and "shell_lines" not in prompts["taken"]
    said = {d.contribution: d.message for d in entry.diagnostics
            if d.code == "claude.skill_shell_lines"}  # fmt: skip
    assert set(said) == {"branch", "taken"} and "never run here" in said["taken"]
    runs = [d for d in entry.diagnostics if d.code == "claude.command_shell_line_runs"]
    assert [d.message.split(": ")[0] for d in runs] == ["skills/branch/SKILL.md"]
    assert entry.runtime == "python-sidecar"  # the plugin host serves /branch
