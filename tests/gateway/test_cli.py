"""The `gateway` command line with its home in a temporary folder: each command line run as
``python -m gateway`` would run it, in this process (tests/_cli.py; a subprocess from inside
an async test); the extensions it starts are real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests._cli import gateway_env, run_gateway

pytestmark = pytest.mark.slow(2)  # measured long: scheduled first (tests/conftest.py)

TURN_EVENTS = ["session_start", "turn_start", "tool_call", "tool_result", "turn_end", "session_end"]


def _env(workspace: Any) -> dict[str, str]:
    return gateway_env(workspace.home / ".gateway", workspace.home)


def gateway(
    workspace: Any, *args: str, stdin: str | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return run_gateway(args, env=_env(workspace), stdin=stdin, cwd=cwd or workspace.home)


def gateway_process(workspace: Any, *args: str) -> subprocess.CompletedProcess[str]:
    """``gateway``, but as the real ``python -m gateway`` process: for what only the process
    shows (its exit without the interpreter's teardown, ``_leave``)."""
    return subprocess.run(
        [sys.executable, "-m", "gateway", *args],
        capture_output=True,
        text=True,
        env=_env(workspace),
        cwd=workspace.home,
        timeout=60,
    )


def gateway_json(workspace: Any, *args: str, code: int = 0) -> dict[str, Any]:
    done = gateway(workspace, *args, "--json")
    assert done.returncode == code, done.stderr
    return json.loads(done.stdout)


def ws(workspace: Any) -> str:
    return str(workspace.root)


# --------------------------------------------------------------------------- list


def test_list_json_has_the_contract_keys(workspace):
    workspace.add_extension("ext", language="python", commands=["note"], events=["turn_start"])
    (workspace.root / ".nimlet/extensions/broken").mkdir()
    (workspace.root / ".nimlet/extensions/broken/extension.json").write_text('{"command": ["x"]}')
    listing = gateway_json(workspace, "list", "--workspace", ws(workspace), "--trust")
    assert {"tools", "commands", "hooks", "diagnostics"} <= set(listing)
    assert listing["tools"] == [
        {
            "name": "act",
            "description": "tool act",
            "input_schema": {"type": "object"},
            "capabilities": ["write", "shell", "network"],
            "owner": "ext",
        }
    ]
    assert [(c["name"], c["owner"]) for c in listing["commands"]] == [("note", "ext")]
    assert [(h["event"], h["owner"]) for h in listing["hooks"]] == [("turn_start", "ext")]
    assert [d["code"] for d in listing["diagnostics"]] == ["manifest.invalid"]
    assert listing["diagnostics"][0]["message"].endswith(": missing name")


def test_list_plan_hides_write_tools_and_keeps_read_only_ones(workspace):
    workspace.add_extension("reader", language="python", tools=["look"], capabilities=["read"])
    workspace.add_extension(
        "asker", language="python", tools=["ask"], capabilities=["read", "user"]
    )
    workspace.add_extension(
        "writer", language="python", tools=["change"], capabilities=["read", "write"]
    )
    workspace.add_extension("default", language="python", tools=["anything"])
    act = gateway_json(workspace, "list", "--workspace", ws(workspace), "--trust")
    plan = gateway_json(workspace, "list", "--workspace", ws(workspace), "--trust", "--plan")
    assert sorted(t["name"] for t in act["tools"]) == ["anything", "ask", "change", "look"]
    assert sorted(t["name"] for t in plan["tools"]) == ["ask", "look"]


def test_human_list_output_has_table_headings(workspace):
    workspace.add_extension("ext", language="python", commands=["note"], events=["turn_end"])
    done = gateway(workspace, "list", "--workspace", ws(workspace), "--trust")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    for heading in ("Tools (1)", "Commands (1)", "Hooks (1)", "Diagnostics (0)"):
        assert heading in lines
    header = lines[lines.index("Tools (1)") + 1].split()
    assert header == ["NAME", "OWNER", "CAPABILITIES", "DESCRIPTION"]
    assert lines[lines.index("Tools (1)") + 2].split()[:2] == ["act", "ext"]
    assert not done.stdout.lstrip().startswith("{")


# --------------------------------------------------------------------------- call


def test_call_json_prints_content_is_error_and_diagnostics(workspace):
    workspace.add_extension("ext", language="python")
    result = gateway_json(
        workspace, "call", "act", '{"x": 1}', "--workspace", ws(workspace), "--trust"
    )
    assert json.loads(result["content"]) == {"tool": "act", "arguments": {"x": 1}}
    assert result["is_error"] is False
    assert result["diagnostics"] == []


def test_call_with_an_error_result_exits_1_and_still_prints_the_whole_result(workspace):
    workspace.add_extension("ext", language="python")
    args = ("call", "act", '{"do": "error", "content": "disk full"}')
    result = gateway_json(workspace, *args, "--workspace", ws(workspace), "--trust", code=1)
    assert (result["content"], result["is_error"]) == ("disk full", True)
    assert {"session_id", "diagnostics", "statuses"} <= set(result)


def test_call_with_an_error_result_exits_1_in_human_output_too(workspace):
    workspace.add_extension("ext", language="python")
    args = ("call", "act", '{"do": "error", "content": "disk full"}')
    done = gateway(workspace, *args, "--workspace", ws(workspace), "--trust")
    assert (done.returncode, done.stdout.splitlines()[-1]) == (1, "[error] disk full")


def test_blocked_call_exits_1_with_the_joined_reasons(workspace):
    for name, reason in (("guard1", "r1"), ("guard2", "r2")):
        workspace.add_extension(
            name,
            language="python",
            tools=[],
            events=["tool_call"],
            hooks={"tool_call": {"allow": False, "reason": reason}},
        )
    workspace.add_extension("ext", language="python")
    result = gateway_json(
        workspace, "call", "act", "{}", "--workspace", ws(workspace), "--trust", code=1
    )
    assert (result["content"], result["is_error"]) == ("r1; r2", True)
    assert not [m for m in workspace.received("ext") if m["type"] == "tool"]


def test_call_of_an_unknown_tool_exits_1(workspace):
    workspace.add_extension("ext", language="python")
    done = gateway(workspace, "call", "nope", "{}", "--workspace", ws(workspace), "--trust")
    assert done.returncode == 1
    assert "nope" in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("args", "one_line"),
    [
        pytest.param(["call", "act", "{not json"], True, id="invalid-json"),
        pytest.param(["call", "act", "[1, 2]"], True, id="array-args"),
        pytest.param(["call"], False, id="missing-tool-name"),
        pytest.param(["list", "--workspace", "{missing}"], True, id="missing-workspace"),
        pytest.param(["trust", "{missing}"], True, id="trust-missing-folder"),
    ],
)
def test_bad_usage_exits_2(workspace, args, one_line):
    workspace.add_extension("ext", language="python", root="~/.nimlet/extensions")
    missing = str(workspace.root / "no-such-folder")
    done = gateway(workspace, *[arg.replace("{missing}", missing) for arg in args])
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert workspace.received("ext") == []  # refused before anything started
    if one_line:  # (argparse prints its usage line first)
        assert done.stderr.startswith("gateway: error: ")
        assert len(done.stderr.splitlines()) == 1


def test_call_runs_one_whole_turn_in_order(workspace, language):
    workspace.add_extension("ext", language=language, events=TURN_EVENTS)
    gateway_json(workspace, "call", "act", '{"x": 1}', "--workspace", ws(workspace), "--trust")
    received = [(m["type"], m.get("event") or m.get("name")) for m in workspace.received("ext")]
    assert received == [
        ("initialize", None),
        ("event", "session_start"),
        ("event", "turn_start"),
        ("event", "tool_call"),
        ("tool", "act"),
        ("event", "tool_result"),
        ("event", "turn_end"),
        ("event", "session_end"),
        ("shutdown", None),
    ]


# --------------------------------------------------------------------------- command


def test_command_json_prints_message_and_prompt(workspace):
    workspace.add_extension("ext", language="python", commands=["note"])
    run = ("--workspace", ws(workspace), "--trust")
    plain = gateway_json(workspace, "command", "note", "remember", "the", "bug", *run)
    assert (plain["message"], plain["prompt"]) == ("ran note remember the bug", None)
    assert plain["diagnostics"] == []
    prompted = gateway_json(workspace, "command", "note", "prompt:go on", *run)
    assert (prompted["message"], prompted["prompt"]) == ("ran note prompt:go on", "go on")


def test_command_names_are_case_insensitive(workspace):
    workspace.add_extension("ext", language="python", commands=["act"])
    result = gateway_json(
        workspace, "command", "/ACT", "x", "--workspace", ws(workspace), "--trust"
    )
    assert result["message"] == "ran act x"
    sent = [m for m in workspace.received("ext") if m["type"] == "command"]
    assert [(m["name"], m["arguments"]) for m in sent] == [("act", "x")]


def test_unknown_command_exits_1(workspace):
    workspace.add_extension("ext", language="python", commands=["note"])
    done = gateway(workspace, "command", "nope", "--workspace", ws(workspace), "--trust")
    assert done.returncode == 1
    assert "nope" in done.stderr


# --------------------------------------------------------------------------- trust


def test_trust_persists_and_untrust_stops_project_extensions(workspace):
    workspace.add_extension("project", language="python")
    root = str(workspace.root.resolve())

    def tools() -> list[str]:
        listing = gateway_json(workspace, "list", "--workspace", ws(workspace))
        return [t["name"] for t in listing["tools"]]

    assert tools() == []
    trusted = gateway_json(workspace, "trust", ws(workspace))
    assert trusted == {"changed": "workspace", "workspace": root, "trusted": True}
    assert tools() == ["act"]
    untrusted = gateway(workspace, "untrust", ws(workspace))
    assert untrusted.returncode == 0, untrusted.stderr
    assert "workspace" in untrusted.stdout and root in untrusted.stdout
    assert "no longer trusted" in untrusted.stdout
    listing = gateway_json(workspace, "list", "--workspace", ws(workspace))
    assert listing["tools"] == []
    assert "workspace.untrusted" in [d["code"] for d in listing["diagnostics"]]


# --------------------------------------------------------------------------- shell


def test_shell_driven_through_stdin(workspace):
    workspace.add_extension("ext", language="python", commands=["note"])
    question = {"do": "ask", "prompt": "Which environment?", "options": ["staging", "production"]}
    script = "\n".join(
        [
            "/help",
            '/call act {"x": 1}',
            "/note remember this",
            "/call act " + json.dumps(question),
            "1",
            "/quit",
            "/note never reached",
        ]
    )
    done = gateway(workspace, "shell", "--workspace", ws(workspace), "--trust", stdin=script + "\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "/call TOOL [JSON]" in out
    assert '[ok] {"tool": "act", "arguments": {"x": 1}}' in out
    assert "ran note remember this" in out
    assert "Which environment?" in out and "1. staging" in out and "2. production" in out
    assert '[ok] {"answer": "staging", "cancelled": false}' in out
    assert "never reached" not in out
    commands = [m["arguments"] for m in workspace.received("ext") if m["type"] == "command"]
    assert commands == ["remember this"]


def test_shell_tools_and_commands_are_one_line_each(workspace):
    """`/tools` and `/commands` show a description's first line (`…` when more follows), as
    `gateway list` does, in columns as wide as the longest name; `/status` with nothing set
    says so instead of printing nothing."""
    long_name = "a_tool_with_a_name_longer_than_the_old_column"
    register = {
        "type": "register",
        "tools": [
            {"name": long_name, "description": "First line.\n\nSecond paragraph.",
             "input_schema": {"type": "object"}},
            {"name": "act", "description": "Act.", "input_schema": {"type": "object"}},
        ],
        "commands": [{"name": "note", "description": "Note it.\nExamples: …"}],
        "events": [],
    }  # fmt: skip
    workspace.add_extension("ext", language="python", register=register)
    done = gateway(workspace, "shell", "--workspace", ws(workspace), "--trust",
                   stdin="/tools\n/commands\n/status\n/quit\n")  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [line.removeprefix("> ") for line in done.stdout.splitlines()]  # the prompt
    (first,) = [line for line in lines if long_name in line]
    (act,) = [line for line in lines if line.lstrip().startswith("act ")]
    assert first.endswith("First line. …") and "Second paragraph" not in done.stdout
    assert first.index("First") == act.index("Act."), (first, act)
    assert any(line.strip() == "/note  Note it. …" for line in lines), lines
    assert "Examples" not in done.stdout
    assert "(no status or widget set by an extension)" in done.stdout
