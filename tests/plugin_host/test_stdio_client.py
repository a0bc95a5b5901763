"""The plugin host's lean stdio MCP client (``_stdio_client`` over ``_stdio_link``) against
a real server process written by hand (``fixtures/scripted_mcp_server.py``), which logs
every message it receives: the handshake, every page of every listing, a call's progress
and cancellation, the server's own requests, and what a hostile or dying server sends."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from adapters.plugin_host._shapes import CONNECTION_CLOSED, InvalidResult, MCPError
from adapters.plugin_host._stdio_client import StdioSession
from adapters.plugin_host._stdio_link import open_link

SERVER = Path(__file__).parent / "fixtures" / "scripted_mcp_server.py"
pytestmark = pytest.mark.anyio


@asynccontextmanager
async def connected(tmp_path: Path, scenario: str = "paged") -> AsyncIterator[StdioSession]:
    log = tmp_path / "received.jsonl"
    args = [str(SERVER), scenario, str(log)]
    async with open_link("scripted", sys.executable, args, {}, str(tmp_path)) as link:
        session = StdioSession(link)
        assert await session.handshake() is None
        yield session


def received(tmp_path: Path) -> list[dict[str, Any]]:
    lines = (tmp_path / "received.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


async def test_the_handshake_and_every_page_of_every_listing(tmp_path: Path) -> None:
    async with connected(tmp_path) as session:
        listing = await session.listing()
    assert session.version == "2025-11-25"
    assert [t.name for t in listing.tools] == ["echo", "slow", "ask", "die", "garbage", "huge"]
    assert [t.read_only for t in listing.tools if t.name == "die"] == [True]
    assert [p.name for p in listing.prompts] == ["greet", "part"]
    assert listing.prompts[0].arguments[0].required is True
    assert [(r.name, r.uri) for r in listing.resources] == [("notes", "notes://all")]
    assert listing.templates == 1 and listing.problems == []
    messages = received(tmp_path)
    initialize, initialized = messages[0], messages[1]
    assert initialize["params"]["protocolVersion"] == "2025-11-25"
    assert initialize["params"]["capabilities"] == {}  # no sampling, elicitation, roots
    assert initialized == {"jsonrpc": "2.0", "method": "notifications/initialized"}
    cursors = [(m["method"], m["params"].get("cursor")) for m in messages[2:]]
    assert cursors == [
        ("tools/list", None), ("tools/list", "p1"), ("tools/list", "p2"),
        ("prompts/list", None), ("prompts/list", "p1"),
        ("resources/list", None), ("resources/templates/list", None),
    ]  # fmt: skip


async def test_a_server_that_pages_forever_is_cut_off_at_1000_pages(tmp_path: Path) -> None:
    async with connected(tmp_path, "endless") as session:
        listing = await session.listing()
    assert len(listing.tools) == 1000 and listing.tools[-1].name == "tp999"
    pages = [m for m in received(tmp_path) if m.get("method") == "tools/list"]
    assert len(pages) == 1000


async def test_an_earlier_revision_the_server_names_is_accepted(tmp_path: Path) -> None:
    async with connected(tmp_path, "old") as session:
        assert session.version == "2025-03-26"


async def test_a_server_refusing_the_classic_handshake_is_said_not_raised(tmp_path: Path):
    args = [str(SERVER), "modern", str(tmp_path / "received.jsonl")]
    async with open_link("scripted", sys.executable, args, {}, None) as link:
        refused = await StdioSession(link).handshake()
    assert refused is not None and "-32022" in refused


async def test_a_call_with_meta_returns_its_content(tmp_path: Path) -> None:
    async with connected(tmp_path) as session:
        result = await session.call_tool("echo", {"a": 1}, None, {"traceparent": "00-x"})
        prompt = await session.get_prompt("greet", {"who": "Ada"}, None)
        resource = await session.read_resource("notes://all", None)
    assert [b.text for b in result.content] == ['{"a": 1}']
    assert result.structured == {"meta": {"traceparent": "00-x"}} and not result.is_error
    assert prompt.messages[0][0] == "user" and prompt.messages[0][1].text == "Hello Ada"
    assert resource.contents[0].text == "all the notes"


async def test_progress_is_delivered_and_a_cancelled_call_tells_the_server(tmp_path: Path):
    seen: list[tuple[float, float | None, str | None]] = []
    got_progress = anyio.Event()

    async def progress(done: float, total: float | None, note: str | None) -> None:
        seen.append((done, total, note))
        got_progress.set()

    async with connected(tmp_path) as session:
        async with anyio.create_task_group() as group:
            group.start_soon(session.call_tool, "slow", {}, progress, None)
            await got_progress.wait()
            group.cancel_scope.cancel()
        # the connection is still usable after a cancelled call
        after = await session.call_tool("echo", {"after": True}, None, None)
    assert seen == [(1.0, 2.0, "halfway")]
    assert after.content[0].text == '{"after": true}'
    messages = received(tmp_path)
    [slow] = [m for m in messages if m.get("params", {}).get("name") == "slow"]
    assert slow["params"]["_meta"]["progressToken"] == slow["id"]
    [cancelled] = [m for m in messages if m.get("method") == "notifications/cancelled"]
    assert cancelled["params"] == {"requestId": slow["id"], "reason": "caller cancelled"}


async def test_the_servers_requests_are_answered_as_the_sdk_client_answers_them(tmp_path: Path):
    async with connected(tmp_path) as session:
        result = await session.call_tool("ask", {}, None, None)
    answers = json.loads(result.content[0].text)
    assert answers == {
        "ask-ping": {},
        "ask-sampling/createMessage": {"code": -32600, "message": "Sampling not supported"},
        "ask-elicitation/create": {"code": -32600, "message": "Elicitation not supported"},
        "ask-roots/list": {"code": -32600, "message": "List roots not supported"},
    }


async def test_a_server_that_dies_mid_call_fails_the_call_as_connection_closed(tmp_path: Path):
    async with connected(tmp_path) as session:
        with pytest.raises(MCPError) as caught:
            await session.call_tool("die", {}, None, None)
        assert caught.value.code == CONNECTION_CLOSED
        assert str(caught.value) == "Connection closed"
        assert session.link.closed.is_set()
        with pytest.raises(MCPError):  # and every later request
            await session.call_tool("echo", {}, None, None)


async def test_lines_that_are_not_json_rpc_are_skipped_and_logged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with connected(tmp_path) as session:
        result = await session.call_tool("garbage", {"still": "answered"}, None, None)
    assert result.content[0].text == '{"still": "answered"}'
    log = capsys.readouterr().err
    assert "not a JSON-RPC message: this is not JSON" in log and "message: [1, 2]" in log


async def test_a_line_over_the_cap_fails_the_calls_in_flight_not_the_server(tmp_path: Path):
    async with connected(tmp_path) as session:
        with pytest.raises(MCPError, match="over the 16 MiB cap"):
            await session.call_tool("huge", {}, None, None)
        after = await session.call_tool("echo", {"n": 2}, None, None)
    assert after.content[0].text == '{"n": 2}'


async def test_a_tool_list_item_of_the_wrong_shape_is_a_problem_the_rest_listed(tmp_path: Path):
    async with connected(tmp_path, "bad-items") as session:
        listing = await session.listing()
    assert [t.name for t in listing.tools] == ["fine"]
    assert listing.problems == [
        "tool #1 (without a name): the tool's name is not a string; not offered",
        "tool #3 ('schema'): the tool's inputSchema is not an object; not offered",
        "tool #4 ('hint'): the tool's annotations.readOnlyHint is not a boolean; not offered",
        "tool #5 (without a name): the tool is not an object; not offered",
    ]


async def test_a_listing_page_of_the_wrong_shape_is_an_invalid_result(tmp_path: Path):
    async with connected(tmp_path, "bad-page") as session:
        with pytest.raises(InvalidResult, match="tools/list result has no list of tools"):
            await session.listing()
