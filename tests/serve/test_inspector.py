"""``gateway serve --mcp`` with a client no one here wrote: the MCP Inspector's CLI mode
(TypeScript MCP SDK), from a packed npm fixture, listing and calling tools of a Pi, a
nanobot and a nimlet package in one server — over stdio (the Inspector starts the server)
and over streamable HTTP (one served gateway for the module: the Inspector's CLI mode runs
one method per start, and a stdio server per method cost a gateway and its sidecars
each).

The CLI mode's own program is run: ``build/index.js``, which ``cli.js --cli`` starts with
``node`` and the same arguments (its ``-e`` variables put in the environment). The wrapper
only parses and forwards them; skipping it is one Node start (commander, spawn-rx and
rxjs loaded) fewer per method."""

from __future__ import annotations

import json
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.runtime import find_node
from tests._cli_runner import cli_json
from tests.serve._helpers import GATEWAY, IDS, REPO, Served, need_sidecar, served_home, terminate
from tests.serve.test_http import _start

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


@pytest.fixture(scope="module")
def over_http(served: Served, tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[str]]:
    """The Inspector's arguments for one ``gateway serve --mcp --http`` of the module's home
    (its URL, streamable HTTP, a token)."""
    token = cli_json(served.home, "token", "create", "inspector")["token"]
    log = tmp_path_factory.mktemp("inspector-http") / "stderr.log"
    process, url = _start(served.env(), served.workspace, log)
    yield [url, "--transport", "http", "--header", f"Authorization: Bearer {token}"]
    terminate(process)


def inspect(served: Served, inspector: Path, *method: str, server: list[str] | None = None) -> dict:
    """The Inspector's answer to ``method``: from ``server`` (a URL and its options), or a
    ``gateway serve --mcp`` over stdio it starts."""
    node = find_node()
    assert node is not None
    if server is None:  # it starts the server with its own environment: served.env()
        server = [*GATEWAY, "serve", "--mcp", "--workspace", str(served.workspace)]
        for package in IDS.values():
            server += ["--package", package]
    done = subprocess.run(
        [node, "index.js", *server, *method],
        cwd=inspector, env=served.env(), capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_inspector_lists_the_tools_of_all_three_packages(served, inspector, transport, request):
    server = request.getfixturevalue("over_http") if transport == "http" else None
    listed = inspect(served, inspector, "--method", "tools/list", server=server)
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
def test_the_inspector_calls_a_tool_of_each_ecosystem(
    served, inspector, over_http, tool, argument, expected
):
    result = inspect(
        served, inspector, "--method", "tools/call", "--tool-name", tool, "--tool-arg", argument,
        server=over_http,
    )  # fmt: skip
    assert result.get("isError") in (None, False)
    assert expected in result["content"][0]["text"]


def test_the_inspector_reads_prompts_and_skills(served, inspector, over_http):
    prompts = inspect(served, inspector, "--method", "prompts/list", server=over_http)
    resources = inspect(served, inspector, "--method", "resources/list", server=over_http)
    assert {"standup", "more-tools", "ask"} <= {p["name"] for p in prompts["prompts"]}
    assert "skill://triage/SKILL.md" in {r["uri"] for r in resources["resources"]}
