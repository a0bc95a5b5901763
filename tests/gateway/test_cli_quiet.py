"""After ``call`` and ``command``: the called package's warnings, one line for the rest;
``-q`` the result and errors only, ``-v`` everything."""

from __future__ import annotations

import pytest

from gateway.base import Diagnostic, Severity
from gateway.cli._output import print_run_diagnostics
from gateway.cli._workspace import _called
from tests.gateway.test_cli import gateway, ws


@pytest.fixture
def crowded(workspace):
    """``ext`` (tool act, command note) beside two extensions that fail to start."""
    workspace.add_extension("ext", language="python", commands=["note"])
    for name in ("broken1", "broken2"):
        workspace.add_extension(name, language="python", tools=[name], before_register="crash")
    return workspace


def run(workspace, *args: str):
    return gateway(workspace, *args, "--workspace", ws(workspace), "--trust")


@pytest.mark.parametrize("verb", [("call", "act", "{}"), ("command", "note")])
def test_other_packages_warnings_are_one_line(crowded, verb) -> None:
    done = run(crowded, *verb)
    assert done.returncode == 0, done.stderr
    assert "broken1" not in done.stderr and "broken2" not in done.stderr
    assert done.stderr.splitlines() == [
        "2 other packages have warnings: -v shows them (or gateway list, gateway status)"
    ]


def test_other_packages_errors_are_said_as_errors_and_named(capsys) -> None:
    """Ten packages with warnings, three of them an MCP server that did not start: the line
    said "10 other packages have warnings", the errors hidden among them."""
    said = [Diagnostic("package.model_instructions", Severity.WARNING, "flagged", package=f"pi{i}")
            for i in range(7)]  # fmt: skip
    said += [Diagnostic("home.unusable", Severity.ERROR, "failed",
                        package=name) for name in ("notes-ext", "demo-plugin", "notes")]  # fmt: skip
    print_run_diagnostics(said, ("glossary",), quiet=False, verbose=False)
    assert capsys.readouterr().err.splitlines() == [
        "10 other packages have warnings or errors (errors: demo-plugin, notes, notes-ext): -v "
        "shows them (or gateway list, gateway status)"
    ]


def test_verbose_shows_every_package_warning(crowded) -> None:
    done = run(crowded, "call", "act", "{}", "-v")
    assert "broken1" in done.stderr and "broken2" in done.stderr
    assert "other packages" not in done.stderr


def test_quiet_shows_only_the_result(crowded) -> None:
    done = run(crowded, "call", "act", "{}", "-q")
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("[ok] ")
    assert len(done.stdout.splitlines()) == 1


def test_quiet_and_verbose_together_are_bad_usage(crowded) -> None:
    assert run(crowded, "call", "act", "{}", "-q", "-v").returncode == 2


@pytest.fixture
def noisy(workspace):
    """``ext`` beside two extensions whose tool names collide with it (warnings at start)."""
    workspace.add_extension("ext", language="python", tools=["act"])
    for name in ("copy1", "copy2"):
        workspace.add_extension(name, language="python", tools=["act"])
    return workspace


def test_the_shell_sums_up_start_up_warnings_in_one_line(noisy) -> None:
    done = gateway(noisy, "shell", "--workspace", ws(noisy), "--trust", stdin="/quit\n")
    assert done.returncode == 0, done.stderr
    summary = [line for line in done.stdout.splitlines() if "warnings from" in line]
    assert len(summary) == 1 and "/diagnostics shows each" in summary[0]
    assert "(warning)" not in done.stdout


def test_the_shell_lists_them_on_request_and_with_verbose(noisy) -> None:
    asked = gateway(noisy, "shell", "--workspace", ws(noisy), "--trust", stdin="/diagnostics\n")
    loud = gateway(noisy, "shell", "--workspace", ws(noisy), "--trust", "-v", stdin="/quit\n")
    for done in (asked, loud):
        assert "(warning)" in done.stdout, done.stdout
    assert "warnings from" not in loud.stdout


@pytest.fixture
def renamed(workspace):
    """A tool named as a host renames an MCP server's (``mcp_<plugin>_<tool>``), beside two
    extensions that fail to start (warnings of other packages)."""
    workspace.add_extension("notes", language="python", tools=["mcp_notes_lookup"])
    for name in ("broken1", "broken2"):
        workspace.add_extension(name, language="python", tools=[name], before_register="crash")
    return workspace


def test_an_unknown_tool_says_what_was_probably_meant(renamed) -> None:
    done = run(renamed, "call", "lookup", "{}")
    assert done.returncode == 1
    first, *rest = done.stderr.splitlines()
    assert "unknown tool 'lookup' (did you mean mcp_notes_lookup?)" in first
    assert rest == [
        "2 other packages have warnings: -v shows them (or gateway list, gateway status)"
    ]


def test_an_unknown_tool_with_quiet_is_one_line(renamed) -> None:
    done = run(renamed, "call", "mcp_notes_lookp", "{}", "-q")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "gateway: error: unknown tool 'mcp_notes_lookp' (did you mean mcp_notes_lookup?) "
        "(see `gateway list`)"
    ]


def test_an_unknown_command_says_what_was_probably_meant(crowded) -> None:
    done = run(crowded, "command", "/nte", "-q")
    assert done.stderr.splitlines() == [
        "gateway: error: unknown command /nte (did you mean /note?) (see `gateway list`)"
    ]


@pytest.mark.parametrize(
    ("copies", "said"), [(1, "1 warning from 1 package"), (2, "2 warnings from 2 packages")]
)
def test_the_shells_summary_counts_in_words_that_agree(workspace, copies, said) -> None:
    """One package beside ``copies`` whose tool name collides with it: a warning each."""
    workspace.add_extension("ext", language="python", tools=["act"])
    for number in range(1, copies + 1):
        workspace.add_extension(f"copy{number}", language="python", tools=["act"])
    done = gateway(workspace, "shell", "--workspace", ws(workspace), "--trust", stdin="/quit\n")
    assert done.returncode == 0, done.stderr
    summary = [line for line in done.stdout.splitlines() if " at start: " in line]
    assert summary == [
        f"  ({said} at start: /diagnostics shows each, gateway status too; -v prints each here)"
    ], done.stdout
    assert "(s)" not in done.stdout


def test_a_per_call_tools_package_warnings_are_the_called_packages(capsys) -> None:
    """A Nu package's per-call tool is owned by ``ID:tools``; what ``ID`` warns of is the
    called package's, said in full (it was "1 other package has warnings")."""
    said = [Diagnostic("sandbox.no_network_grant", Severity.WARNING, "no grant", package="nu-x")]
    print_run_diagnostics(said, _called("nu-x:tools"), quiet=False, verbose=False)
    assert capsys.readouterr().err.splitlines() == [
        "warning: nu-x: no grant [sandbox.no_network_grant]"
    ]
