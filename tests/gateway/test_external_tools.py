"""tool.json tools: a fresh process per call, JSON in on stdin and one JSON document out."""

from __future__ import annotations

import dataclasses
import json
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from gateway import open_gateway
from gateway.host import run_tool_json
from gateway.model import DiscoveredTool, load_tool_manifest
from gateway.runtime import child_environment
from tests._backends import both_backends  # noqa: F401  (the core's anyio code: both backends)

pytestmark = pytest.mark.anyio


def make_tool(workspace: Any, name: str, body: str, **manifest: Any) -> DiscoveredTool:
    """A project tool ``name`` whose executable runs ``body`` (json, os, sys imported)."""
    folder = workspace.root / ".nimlet" / "tools" / name
    folder.mkdir(parents=True)
    script = folder / "tool.py"
    script.write_text(f"#!{sys.executable}\nimport json, os, sys\n{textwrap.dedent(body)}")
    script.chmod(0o755)
    data = {"name": name, "description": f"tool {name}", "command": ["./tool.py"],
            "input_schema": {"type": "object"}, **manifest}  # fmt: skip
    (folder / "tool.json").write_text(json.dumps(data))
    loaded, problem = load_tool_manifest(folder / "tool.json")
    assert problem is None, problem
    assert loaded is not None
    return DiscoveredTool(loaded, folder, "project")


async def run(workspace: Any, tool: DiscoveredTool, arguments: dict[str, Any], **kw: Any):
    return await run_tool_json(tool, arguments, workspace.root.resolve(), child_environment(), **kw)


ECHO = 'print(json.dumps({"got": json.load(sys.stdin)}))\n'


async def test_arguments_arrive_as_json_on_stdin(workspace):
    tool = make_tool(workspace, "echo", ECHO)
    arguments = {"text": "héllo", "list": [1, 2.5, None, True], "nested": {"a": {}}}
    outcome = await run(workspace, tool, arguments)
    assert outcome.is_error is False
    assert json.loads(outcome.content) == {"got": arguments}


async def test_empty_arguments_arrive_as_an_empty_object(workspace):
    tool = make_tool(workspace, "echo", ECHO)
    outcome = await run(workspace, tool, {})
    assert json.loads(outcome.content) == {"got": {}}


@pytest.mark.parametrize(
    "stdout",
    ["not json", '{"a": 1}\n{"b": 2}\n', "", '{"a": 1} trailing'],
    ids=["text", "two-documents", "nothing", "trailing-garbage"],
)
async def test_stdout_must_be_one_json_document(workspace, stdout):
    tool = make_tool(workspace, "bad", f"sys.stdout.write({stdout!r})\n")
    outcome = await run(workspace, tool, {})
    assert outcome.is_error is True


@pytest.mark.parametrize("document", ['"a string"', "[1, 2]", "42", "null"])
async def test_any_single_json_document_is_a_result(workspace, document):
    tool = make_tool(workspace, "doc", f"print({document!r})\n")
    outcome = await run(workspace, tool, {})
    assert outcome.is_error is False
    assert json.loads(outcome.content) == json.loads(document)


async def test_nonzero_exit_is_an_error(workspace):
    tool = make_tool(
        workspace, "fails", 'print(json.dumps({"reason": "no such file"}))\nsys.exit(3)\n'
    )
    outcome = await run(workspace, tool, {})
    assert outcome.is_error is True
    assert "no such file" in outcome.content


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


async def test_timeout_kills_the_whole_process_group(workspace, tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    tool = make_tool(
        workspace,
        "slow",
        """\
        import subprocess, time
        args = json.load(sys.stdin)
        child = subprocess.Popen(["sleep", "60"])
        with open(args["pidfile"], "w") as handle:
            handle.write(f"{os.getpid()} {child.pid}")
        time.sleep(60)
        """,
        timeout_seconds=1,
    )
    outcome = await run(workspace, tool, {"pidfile": str(pidfile)})
    assert (outcome.content, outcome.is_error) == ("TIMEOUT after 1s", True)
    pids = [int(pid) for pid in pidfile.read_text().split()]
    deadline = time.monotonic() + 30  # caps a hang
    while not all(_gone(pid) for pid in pids) and time.monotonic() < deadline:
        await anyio.sleep(0.02)
    assert [_gone(pid) for pid in pids] == [True, True]


async def test_finished_tool_is_not_held_open_by_a_background_grandchild(workspace, tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    tool = make_tool(
        workspace,
        "daemon",
        """\
        import subprocess
        args = json.load(sys.stdin)
        child = subprocess.Popen(["sleep", "60"])  # inherits stdout
        open(args["pidfile"], "w").write(str(child.pid))
        print(json.dumps({"started": True}))
        """,
        timeout_seconds=1,
    )
    outcome = await run(workspace, tool, {"pidfile": str(pidfile)})
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 30  # caps a hang
    while not _gone(pid) and time.monotonic() < deadline:
        await anyio.sleep(0.02)
    assert _gone(pid)
    assert (json.loads(outcome.content), outcome.is_error) == ({"started": True}, False)


async def test_output_over_the_cap_is_an_error(workspace):
    tool = make_tool(workspace, "big", 'print(json.dumps({"data": "x" * 5000}))\n')
    capped = await run(workspace, tool, {}, output_cap=1000)
    assert capped.is_error is True
    assert "x" * 1000 not in capped.content
    roomy = await run(workspace, tool, {}, output_cap=10_000)
    assert roomy.is_error is False


async def test_output_cap_from_config_applies_through_gateway(workspace):
    make_tool(workspace, "big", 'print(json.dumps({"data": "x" * 5000}))\n')
    config = dataclasses.replace(workspace.config, tool_output_cap=1000)
    async with open_gateway(
        workspace.root, trust=True, config=config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("big")
    assert result.is_error is True
    assert "tool.failed" in [d.code for d in result.diagnostics]


async def test_tool_runs_in_the_workspace(workspace):
    tool = make_tool(
        workspace,
        "where",
        'open("made-here.txt", "w").write("x")\nprint(json.dumps({"cwd": os.getcwd()}))\n',
    )
    outcome = await run(workspace, tool, {})
    assert json.loads(outcome.content) == {"cwd": str(workspace.root.resolve())}
    assert (workspace.root / "made-here.txt").exists()
    assert not (tool.folder / "made-here.txt").exists()


ENV_DUMP = "print(json.dumps(dict(os.environ)))\n"


async def test_tool_sees_only_allow_listed_environment(workspace, monkeypatch):
    monkeypatch.setenv("GATEWAY_TEST_SECRET", "hunter2")
    monkeypatch.setenv("HOME", str(workspace.home))
    make_tool(workspace, "env", ENV_DUMP)
    config = dataclasses.replace(workspace.config, passthrough_env=())
    async with open_gateway(
        workspace.root, trust=True, config=config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("env")
    seen = json.loads(result.content)
    assert "GATEWAY_TEST_SECRET" not in seen
    assert "hunter2" not in result.content
    # HOME is the tool's private home (under the gateway's), never the user's own.
    assert seen["HOME"] != str(workspace.home)
    assert Path(seen["HOME"]).parent == workspace.config.home / "home"
    assert "PATH" in seen


async def test_passthrough_variable_is_visible_to_the_tool(workspace, monkeypatch):
    monkeypatch.setenv("GATEWAY_TEST_TOKEN", "t0ken")
    monkeypatch.setenv("GATEWAY_TEST_SECRET", "hunter2")
    make_tool(workspace, "env", ENV_DUMP)
    config = dataclasses.replace(workspace.config, passthrough_env=("GATEWAY_TEST_TOKEN",))
    async with open_gateway(
        workspace.root, trust=True, config=config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("env")
    seen = json.loads(result.content)
    assert seen["GATEWAY_TEST_TOKEN"] == "t0ken"
    assert "GATEWAY_TEST_SECRET" not in seen


async def test_tool_json_tool_is_called_through_the_gateway_with_hooks(workspace):
    make_tool(
        workspace,
        "echo",
        ECHO,
        input_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
        capabilities=["read"],
    )
    workspace.add_extension(
        "guard", tools=[], events=["tool_call"], hooks={"tool_call": {"arguments": {"n": 2}}}
    )
    workspace.grant("guard", "hooks.rewrite")  # it changes another extension's tool
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        schema = next(t for t in gateway.tool_schemas() if t["name"] == "echo")
        result = await gateway.call_tool("echo", {"n": 1})
    assert schema["capabilities"] == ["read"]
    assert json.loads(result.content) == {"got": {"n": 2}}
    assert [m["payload"]["tool"] for m in workspace.received("guard") if m["type"] == "event"] == [
        "echo"
    ]


async def test_invalid_arguments_never_reach_the_tool(workspace, tmp_path):
    marker = tmp_path / "ran"
    make_tool(
        workspace,
        "strict",
        f"open({str(marker)!r}, 'w').close()\nprint('{{}}')\n",
        input_schema={
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
    )
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("strict", {"n": "one"})
    assert result.is_error is True
    assert "invalid arguments" in result.content
    assert not marker.exists()
