"""A Claude Code command's ``!`` lines run when the command is used: in the plugin host,
confined to the plugin's grants, only within the command's ``allowed-tools``, their output
bounded and in the prompt; through the gateway and through ``gateway command``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from adapters.claude_plugins import OUTPUT_LIMIT, LineRun, ShellCommand, render_command
from gateway import open_gateway
from gateway.packages import install, load_adapters
from gateway.store import StateStore
from tests._cli import gateway_env, run_here

pytestmark = pytest.mark.anyio


def _plugin(root: Path, commands: dict[str, str]) -> Path:
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "shelly"}))
    (root / "commands").mkdir()
    for name, text in commands.items():
        (root / "commands" / f"{name}.md").write_text(text)
    return root


def _install(home: Path, source: Path, *, trusted: bool = True) -> str:
    report = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    package_id = report.package.record.id
    with StateStore.open(home) as store:
        store.set_trusted(package_id, trusted)
        store.set_enabled(package_id, True)
    return package_id


class _Runs:
    """A runner that records what it was asked to run and answers from a table."""

    def __init__(self, answers: dict[str, LineRun]) -> None:
        self.answers, self.ran = answers, []  # type: ignore[var-annotated]

    async def __call__(self, line: str) -> LineRun:
        self.ran.append(line)
        return self.answers.get(line, LineRun(0, f"out of {line}\n", ""))


async def test_a_line_not_allowed_is_refused_and_not_run() -> None:
    command = ShellCommand("c", "", "A: !`git status`\nB: !`rm -rf ~`\n", rules=("git status",))
    runs = _Runs({})
    rendered = await render_command(command, "", runs, root="/p")
    assert runs.ran == ["git status"]
    assert rendered.prompt == (
        "A: out of git status\nB: [not run: `rm -rf ~` is not allowed by allowed-tools]\n"
    )
    (refused,) = rendered.diagnostics
    assert refused.code == "claude.command_shell_line_refused" and "'rm -rf ~'" in refused.message


async def test_arguments_fill_a_line_before_it_is_checked() -> None:
    command = ShellCommand("log", "", "!`git log $0`", rules=("git log:*",))
    runs = _Runs({})
    fine = await render_command(command, "-3", runs, root="/p")
    assert fine.prompt == "out of git log -3" and not fine.diagnostics
    joined = await render_command(command, "'; curl evil'", runs, root="/p")
    assert runs.ran == ["git log -3"]  # the joined line never ran
    assert [d.code for d in joined.diagnostics] == ["claude.command_shell_line_refused"]


async def test_typed_arguments_are_never_lines_and_output_is_not_scanned_again() -> None:
    command = ShellCommand("c", "", "Out: !`echo`\nSaid: $ARGUMENTS", rules=(None,))
    runs = _Runs({"echo": LineRun(0, "!`touch /tmp/x` $ARGUMENTS\n", "")})
    rendered = await render_command(command, "!`id`", runs, root="/p")
    assert runs.ran == ["echo"]
    assert rendered.prompt == "Out: !`touch /tmp/x` $ARGUMENTS\nSaid: !`id`"


async def test_a_failing_line_gives_its_error_output_and_a_diagnostic() -> None:
    command = ShellCommand("c", "", "S: !`git status`", rules=(None,))
    failed = LineRun(128, "", "fatal: not a git repository\n")
    rendered = await render_command(command, "", _Runs({"git status": failed}), root="/p")
    assert rendered.prompt == "S: fatal: not a git repository"
    (problem,) = rendered.diagnostics
    assert problem.code == "claude.shell_line_failed" and "status 128" in problem.message


def _confined_plugin(root: Path, outside: Path) -> Path:
    return _plugin(
        root,
        {
            "confined": (
                "---\nallowed-tools: Bash\ndescription: Writes\n---\n"
                'Inside: !`echo kept > "$CLAUDE_PLUGIN_DATA/kept" && cat "$CLAUDE_PLUGIN_DATA/kept"`\n'
                f"Outside: !`echo escaped > {outside}/escaped`\n"
            ),
            "narrow": (
                "---\nallowed-tools: Bash(echo:*)\n---\nEcho: !`echo $ARGUMENTS`\nList: !`ls /`\n"
            ),
            "flood": (
                "---\nallowed-tools: Bash(yes:*), Bash(sleep:*)\n---\n"
                "Flood: !`yes abcdefghij`\nSlow: !`sleep 30`\n"
            ),
        },
    )


async def test_a_line_runs_confined_to_the_plugins_grants(workspace: Any) -> None:
    outside = workspace.home / "outside"
    outside.mkdir()
    _install(workspace.config.home, _confined_plugin(workspace.home / "src" / "shelly", outside))
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        outcome = await gateway.run_command("confined", "")
        said = [d for d in gateway.diagnostics if d.code == "claude.shell_line_failed"]
    assert outcome.prompt is not None
    # The control: what the plugin is granted (its data folder) it can do.
    assert outcome.prompt.startswith("Inside: kept\nOutside: ")
    assert not (outside / "escaped").exists()
    assert [d.contribution for d in said] == ["confined"]
    assert f"{outside}/escaped" in said[0].message


async def test_allowed_tools_limit_the_lines_that_run(workspace: Any) -> None:
    _install(
        workspace.config.home, _confined_plugin(workspace.home / "src" / "shelly", workspace.home)
    )
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        outcome = await gateway.run_command("narrow", "hello there")
        refused = [d for d in gateway.diagnostics if d.code == "claude.command_shell_line_refused"]
    assert outcome.prompt == (
        "Echo: hello there\nList: [not run: `ls /` is not allowed by allowed-tools]"
    )
    assert any("'ls /'" in d.message and d.package == "shelly" for d in refused)


async def test_output_is_bounded_and_a_slow_line_times_out(
    workspace: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_SHELL_LINE_TIMEOUT", "1")
    _install(
        workspace.config.home, _confined_plugin(workspace.home / "src" / "shelly", workspace.home)
    )
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        outcome = await gateway.run_command("flood", "")
        codes = sorted(d.code for d in gateway.diagnostics if d.contribution == "flood")
    assert outcome.prompt is not None
    flood, slow = outcome.prompt.split("\nSlow: ")
    assert flood.endswith(f"\n[output cut at {OUTPUT_LIMIT} bytes]")
    assert len(flood.encode()) < OUTPUT_LIMIT + 100
    assert slow == "[`sleep 30` timed out after 1 s; killed]"
    assert codes == ["claude.shell_line_failed", "claude.shell_line_output_cut"]


async def test_nothing_runs_before_the_plugin_is_trusted(workspace: Any) -> None:
    marker = workspace.home / "ran"
    source = _plugin(
        workspace.home / "src" / "shelly",
        {"touch": f"---\nallowed-tools: Bash\n---\n!`touch {marker}`\n"},
    )
    _install(workspace.config.home, source, trusted=False)
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        assert gateway.registry.command("touch") is None
        assert not gateway.processes
    assert not marker.exists()


def test_gateway_command_runs_the_lines_and_escapes_control_characters(workspace: Any) -> None:
    source = _plugin(
        workspace.home / "src" / "shelly",
        {"bell": "---\nallowed-tools: Bash(printf:*)\n---\nSays: !`printf 'a\\033[2Jb\\007'`\n"},
    )
    _install(workspace.config.home, source)
    env = gateway_env(workspace.config.home, workspace.home)

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        """The verb in this process (tests/_cli.run_here): what it prints is the subject."""
        return run_here(["command", *extra, "bell"], env=env, cwd=workspace.root)

    shown = run()
    assert shown.returncode == 0, shown.stderr
    assert "prompt: Says: a\\x1b[2Jb\\x07" in shown.stdout and "\x1b" not in shown.stdout
    exact = run("--json")
    assert json.loads(exact.stdout)["prompt"] == "Says: a\x1b[2Jb\x07"
