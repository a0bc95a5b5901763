"""``serve --mcp`` offers only names MCP allows (``[A-Za-z0-9_.-]{1,128}``): a tool whose
name breaks the rule is offered under a deterministic name that does, said once
(``serve.tool_name``), and a call of that name reaches the tool."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import mcp_types as types
import pytest

from gateway.serve._mcp_names import MCP_TOOL_NAME, mcp_name
from tests.serve._here import serve_here

pytestmark = pytest.mark.anyio

HOSTILE = ["has space", "esc\x1b[2J", "new\nline", "bidi\u202eevil", "x" * 300]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # serve_here's client and server, as the served process runs


def test_a_name_mcp_allows_is_kept_and_any_other_becomes_one_it_allows():
    assert mcp_name("save_note") == "save_note"
    for name in HOSTILE:
        offered = mcp_name(name)
        assert MCP_TOOL_NAME.match(offered), offered
        assert mcp_name(name) == offered  # the same for the same name
    assert mcp_name("a b") != mcp_name("a\tb")  # cleaned alike, kept apart


def _workspace(root: Path) -> Path:
    for index, name in enumerate(["fine", *HOSTILE]):
        tool = root / ".nimlet" / "tools" / f"t{index}"
        tool.mkdir(parents=True)
        (tool / "tool.json").write_text(
            json.dumps(
                {
                    "name": name,
                    "description": "echo",
                    "command": [sys.executable, "-c", f"print('ran {index}')"],
                    "input_schema": {"type": "object", "properties": {}},
                }
            )
        )
    return root


async def test_every_offered_name_fits_mcp_and_calls_reach_the_renamed_tool(tmp_path: Path):
    # Served in this process (tests/serve/_here): the names are the server's, not the
    # process's; each tool is still its own process.
    workspace = _workspace(tmp_path / "ws")
    env = {**os.environ, "HOME": str(tmp_path / "home"), "GATEWAY_HOME": str(tmp_path / "gw")}
    async with serve_here(
        ["--workspace", str(workspace), "--trust"], env=env, cwd=workspace,
        errlog=tmp_path / "stderr.log",
    ) as connection:  # fmt: skip
        names = [tool.name for tool in (await connection.list_tools()).tools]
        assert all(MCP_TOOL_NAME.match(name) for name in names), names
        assert "fine" in names and len(names) == 1 + len(HOSTILE)
        result = await connection.call_tool(mcp_name("esc\x1b[2J"), {})
    text = [b.text for b in result.content if isinstance(b, types.TextContent)]
    assert len(text) == 1 and "ran 2" in text[0]  # the renamed tool's own process ran
