"""``gateway serve --mcp --tool-search`` with the MCP Python SDK's own client: a Pi package,
a nanobot package and a nimlet extension behind one server, found on demand. Served in this
process (``tests/serve/_here.serve_here``, as tests/serve/test_mcp.py's protocol tests)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest

from tests._cli import run_here
from tests.serve._helpers import IDS, Served, need_sidecar, served_home
from tests.serve.test_mcp import all_packages, client, texts

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Served:
    need_sidecar()
    return served_home(tmp_path_factory.mktemp("search"))


def names(listing: Any) -> list[str]:
    return [tool.name for tool in listing.tools]


def found(result: Any) -> list[str]:
    return [tool["name"] for tool in result.structured_content["tools"]]


async def test_the_list_is_the_meta_tools_and_initialize_says_how_to_search(served) -> None:
    async with client(served, *all_packages(), "--tool-search") as connection:
        listing = await connection.list_tools()
        instructions = connection.initialize_result.instructions
    assert names(listing) == ["search_tools", "call_tool"]
    search = listing.tools[0]
    assert search.input_schema["required"] == ["query"]
    assert search.annotations.read_only_hint is True
    assert "Tool search is on" in instructions and "search_tools" in instructions


async def test_a_search_returns_name_description_and_schema_and_joins_the_list(served) -> None:
    told = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            told.set()

    async with client(
        served, *all_packages(), "--tool-search", message_handler=on_message
    ) as connection:
        result = await connection.call_tool("search_tools", {"query": "save a note", "limit": 3})
        with anyio.fail_after(10):
            await told.wait()
        after = names(await connection.list_tools())
    assert result.structured_content["tools"][0] == {
        "name": "save_note",
        "description": "Save a note about the current work.",
        "inputSchema": {
            "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"],
        },
    }  # fmt: skip
    assert json.loads(texts(result)[0]) == result.structured_content
    assert after[:2] == ["search_tools", "call_tool"] and set(after[2:]) == set(found(result))


async def test_call_tool_runs_the_tool_through_every_ecosystems_hooks(served) -> None:
    async with client(served, *all_packages(), "--tool-search") as connection:
        called = await connection.call_tool(
            "call_tool", {"name": "save_note", "arguments": {"text": "key sk-live1234567"}}
        )
        direct = await connection.call_tool("review_code", {"path": "src/app.py"})
    # The Pi package's tool_call hook redacted the nimlet tool's argument, as on a direct call.
    assert texts(called) == ["saved: key [redacted]"]
    # A tool not in the list is still called by its name.
    assert texts(direct) == ["Review requested for src/app.py [seen by desk]"]


async def test_pins_from_the_command_line_and_from_the_packages_config(served) -> None:
    # `gateway config` sets the package's pin: the command line in this process (tests/_cli.py),
    # in a worker thread, as the CLI runs its own event loop.
    def config(*args: str) -> subprocess.CompletedProcess[str]:
        line = ("config", IDS["nanobot"], "$gateway.pin", *args)
        return run_here(line, env=served.env(), cwd=Path.cwd())

    pinned = await anyio.to_thread.run_sync(config, "true")
    assert pinned.returncode == 0, pinned.stderr
    try:
        async with client(
            served, *all_packages(), "--tool-search", "--pin", "open_ticket"
        ) as connection:
            listed = names(await connection.list_tools())
    finally:
        unset = await anyio.to_thread.run_sync(config, "--unset")
        assert unset.returncode == 0, unset.stderr
    # The meta-tools first, then the pinned tools by name.
    assert listed == ["search_tools", "call_tool", "open_ticket", "review_code"]


async def test_auto_turns_search_on_above_the_threshold_only(served) -> None:
    async with client(served, *all_packages(), "--tool-search-above", "2") as connection:
        above = names(await connection.list_tools())
    async with client(served, *all_packages()) as connection:
        below = names(await connection.list_tools())
    assert above == ["search_tools", "call_tool"]
    assert "save_note" in below and "search_tools" not in below


async def test_off_makes_the_meta_tools_unknown(served) -> None:
    async with client(served, *all_packages(), "--tool-search", "off") as connection:
        with pytest.raises(Exception, match="Unknown tool: search_tools"):
            await connection.call_tool("search_tools", {"query": "note"})


CLASHING = """#!@PYTHON@
import json, sys
def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()
send({"type": "register", "commands": [], "events": [], "tools": [
    {"name": "search_tools", "description": "Search the package's own index of tickets.",
     "input_schema": {"type": "object"}},
    {"name": "close_ticket", "description": "Close a ticket.", "input_schema": {"type": "object"}}]})
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "shutdown":
        break
    if message.get("type") == "tool":
        send({"type": "response", "id": message["id"], "content": "own " + message["name"]})
"""


async def test_a_real_tool_keeps_its_name_and_the_meta_tool_moves(tmp_path) -> None:
    import sys

    from tests.adapters._helpers import write_tree
    from tests.serve._helpers import install_ready

    folder = tmp_path / "clash"
    script = CLASHING.replace("@PYTHON@", sys.executable)
    write_tree(folder, {"extension.json": {"name": "clash", "command": ["./ext.py"]},
                        "ext.py": script})  # fmt: skip
    (folder / "ext.py").chmod(0o755)
    served = Served(tmp_path / "home", tmp_path / "workspace", tmp_path / "log")
    served.workspace.mkdir()
    install_ready(served.home, folder)
    async with client(served, "--package", "clash", "--tool-search") as connection:
        listed = names(await connection.list_tools())
        own = await connection.call_tool("search_tools", {})
        meta = await connection.call_tool("gateway_search_tools", {"query": "close a ticket"})
    assert listed == ["gateway_search_tools", "call_tool"]
    assert texts(own) == ["own search_tools"]
    assert found(meta)[0] == "close_ticket"
