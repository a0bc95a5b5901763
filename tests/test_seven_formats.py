"""The example workspace with a package of each of the seven formats, installed and driven
the way a user does — the command line, and another host through ``gateway serve --mcp`` —
where a Claude Code plugin's ``PreToolUse`` hook blocks a Pi tool and an OpenClaw hook
rewrites an Agent Plugin's MCP tool call. (The Python API drives the same workspace in
``examples/demo.py``, run by ``tests/test_examples.py``.)

The command line runs in this process (tests/_cli.py): the home's set-up, and each ``list``
and ``call`` under test, which start the packages' runtimes, sidecars and plugin hosts as
real child processes and end with them. So does ``gateway serve --mcp``
(tests/serve/_here.serve_here: the CLI's options, the product's ``serve_mcp``, each message
framed as the JSON line a process writes on stdout): a ``python -m gateway serve`` process
imported the MCP SDK's server again (~1.4 s of CPU) for what this test proves, the hooks
carried to another host. The served process over real stdio pipes, against the examples'
workspace, is tests/serve/test_mcp.py's ``test_the_example_workspace_as_one_mcp_server``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from adapters.pi import find_node, sidecar_ready
from tests._cli import run_here
from tests.serve._here import serve_here

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("acme-review", "house-style", "nu-changelog", "glossary", "ticket-policy")
IDS = ("acme.review", "house-style", "nu-changelog", "glossary", "ticket-policy")

pytestmark = [pytest.mark.anyio, pytest.mark.slow(2)]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Workspace:
    root: Path
    env: dict[str, str]

    def gateway(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``gateway ARGS`` in this process (tests/_cli.py), without a Python start of its own:
        the set-up verbs and the ``list`` and ``call`` under test."""
        return run_here(args, env=self.env, cwd=Path.cwd())

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        done = self.gateway(
            "call", tool, json.dumps(arguments), "--workspace", str(self.root), "--trust",
            "--json",
        )  # fmt: skip
        return done.returncode, json.loads(done.stdout)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    problem = sidecar_ready() or (None if find_node() else "no Node >= 22.19")
    if problem:
        pytest.skip(f"the Node sidecar is not available: {problem}")
    base = tmp_path_factory.mktemp("seven")
    root = base / "examples"
    shutil.copytree(REPO / "examples", root, ignore=shutil.ignore_patterns("NOTES.md"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.update(GATEWAY_HOME=str(base / "home"), HOME=str(base))
    if "GATEWAY_NODE" in os.environ:
        env["GATEWAY_NODE"] = os.environ["GATEWAY_NODE"]
    ws = Workspace(root, env)
    for folder in PACKAGES:
        done = ws.gateway("install", str(root / "packages" / folder))
        assert done.returncode == 0, done.stderr
    for args in (
        ("permissions", "acme.review", "workspace.read"),
        # The rewriters act on other packages' tools (the examples' README grants the same).
        ("permissions", "acme.review", "hooks.rewrite"),
        ("permissions", "house-style", "hooks.rewrite"),
        ("permissions", "pi:redact", "hooks.rewrite"),
        ("config", "nu-changelog", "project", "Gateway"),
        ("trust", *IDS),
        ("enable", *IDS),
    ):
        done = ws.gateway(*args)
        assert done.returncode == 0, (args, done.stderr)
    yield ws


def test_one_package_of_each_format_offers_its_tools_and_hooks(workspace: Workspace) -> None:
    done = workspace.gateway("list", "--workspace", str(workspace.root), "--trust", "--json")
    listing = json.loads(done.stdout)
    owners = {tool["name"]: tool["owner"] for tool in listing["tools"]}
    hooks = {(hook["event"], hook["owner"]) for hook in listing["hooks"]}
    assert {
        "save_note": "notes",  # nimlet
        "open_ticket": "pi:redact",  # Pi
        "review_code": "acme.review",  # nanobot
        "style_guide": "house-style",  # OpenClaw
        "changelog__entry": "nu-changelog:tools",  # Nu
        "mcp_glossary_define": "glossary",  # Agent Plugins
    }.items() <= owners.items(), owners
    assert ("tool_call", "ticket-policy") in hooks  # Claude Code plugin
    assert "/triage" in {f"/{c['name']}" for c in listing["commands"]}


def test_cli_the_openclaw_hook_rewrites_the_agent_plugins_mcp_call(workspace: Workspace) -> None:
    code, result = workspace.call("mcp_glossary_define", {"term": "  Cache "})
    assert code == 0, result
    assert result["arguments"] == {"term": "cache"}
    assert result["content"].startswith("cache: A store of results")


def test_cli_the_claude_code_hook_blocks_the_pi_tool(workspace: Workspace) -> None:
    """The control — the same tool with another title goes through — is made in the served
    session below (one one-shot ``call`` fewer: each starts the packages' runtimes)."""
    code, result = workspace.call("open_ticket", {"title": "prod database down"})
    assert code == 1 and result["blocked"] is True
    assert "production incidents go through the on-call runbook" in result["content"]


async def test_serve_mcp_carries_both_hooks_to_another_host(workspace: Workspace) -> None:
    args = ["--workspace", str(workspace.root), "--trust"]
    errors = Path(os.devnull)
    async with serve_here(args, env=workspace.env, cwd=Path.cwd(), errlog=errors) as session:
        defined = await session.call_tool("mcp_glossary_define", {"term": " HOOK"})
        blocked = await session.call_tool("open_ticket", {"title": "Prod outage"})
        allowed = await session.call_tool("open_ticket", {"title": "cache bug"})
    assert not defined.is_error
    assert defined.content[0].text.startswith("hook: Code that runs")  # type: ignore[union-attr]
    assert blocked.is_error
    assert "on-call runbook" in blocked.content[0].text  # type: ignore[union-attr]
    # The control of the blocking hook: only production incidents are refused.
    assert not allowed.is_error
    assert allowed.content[0].text.startswith("ticket opened: cache bug")  # type: ignore[union-attr]
