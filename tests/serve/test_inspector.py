"""``gateway serve --mcp`` with a client no one here wrote: the MCP Inspector's CLI mode
(TypeScript MCP SDK), from a packed npm fixture, listing and calling tools of a Pi, a
nanobot and a nimlet package in one server."""

from __future__ import annotations

import json
import subprocess
import tarfile
from pathlib import Path

import pytest

from gateway.runtime import find_node
from tests.serve._helpers import GATEWAY, IDS, REPO, Served, need_sidecar, served_home

pytestmark = pytest.mark.slow(2)  # measured long: scheduled first (tests/conftest.py)

TARBALL = REPO / "tests" / "fixtures" / "mcp-client" / "mcp-inspector-cli-1.0.3.tgz"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Served:
    need_sidecar()
    return served_home(tmp_path_factory.mktemp("inspector"))


@pytest.fixture(scope="module")
def inspector(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("inspector-cli")
    with tarfile.open(TARBALL) as archive:
        archive.extractall(folder, filter="data")
    return folder / "package" / "build"


def inspect(served: Served, inspector: Path, *method: str) -> dict:
    node = find_node()
    assert node is not None
    server = [*GATEWAY, "serve", "--mcp", "--workspace", str(served.workspace)]
    for package in IDS.values():
        server += ["--package", package]
    env = served.env()
    done = subprocess.run(
        [node, "cli.js", "--cli", *(f"-e{k}={v}" for k, v in env.items()), *server, *method],
        cwd=inspector, env=env, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_inspector_lists_the_tools_of_all_three_packages(served, inspector):
    listed = inspect(served, inspector, "--method", "tools/list")
    tools = {tool["name"]: tool for tool in listed["tools"]}
    assert {"open_ticket", "review_code", "save_note"} <= set(tools)
    assert tools["review_code"]["inputSchema"]["required"] == ["path"]


@pytest.mark.parametrize(
    ("tool", "argument", "expected"),
    [
        ("save_note", "text=hello", "saved: hello"),
        ("review_code", "path=a.py", "Review requested for a.py [seen by desk]"),
        ("open_ticket", "title=bug", "(reviewer: acme.review)"),
    ],
)
def test_the_inspector_calls_a_tool_of_each_ecosystem(served, inspector, tool, argument, expected):
    result = inspect(
        served, inspector, "--method", "tools/call", "--tool-name", tool, "--tool-arg", argument
    )
    assert result.get("isError") in (None, False)
    assert expected in result["content"][0]["text"]


def test_the_inspector_reads_prompts_and_skills(served, inspector):
    prompts = inspect(served, inspector, "--method", "prompts/list")
    resources = inspect(served, inspector, "--method", "resources/list")
    assert {"standup", "more-tools", "ask"} <= {p["name"] for p in prompts["prompts"]}
    assert "skill://triage/SKILL.md" in {r["uri"] for r in resources["resources"]}
