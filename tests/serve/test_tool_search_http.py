"""Tool search over ``gateway serve --mcp --http``: what a token may not use is never named,
described or counted in a search — another package's tools for a scoped token, a tool an
adopted policy denies for every token."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from gateway.sandbox import package_dirs
from gateway.store import PolicyRecords, StateStore
from tests.serve._helpers import MCP_TIMEOUT, create_token, install_ready, terminate
from tests.serve.test_http import _env, _package, _start

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Server:
    url: str
    tokens: dict[str, str]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("search-http")
    env, home = _env(base), base / "home"
    (base / "workspace").mkdir()
    for name in ("alpha", "beta"):
        calls = package_dirs(home, name)[0] / "calls.txt"
        install_ready(home, _package(base / name, name, calls))
    # An adopted rule denies every call of beta_ask.
    rule = {"id": "no-ask", "priority": 1, "when": {"target": "beta_ask"},
            "then": {"decision": "deny"}}  # fmt: skip
    with StateStore.open(home) as store:
        PolicyRecords(store).accept("beta", {"default_action": "allow", "rules": [rule]})
    tokens = {}
    for name, scope in (("a", ["alpha"]), ("all", [])):
        args = []
        for package in scope:
            args += ["--package", package]
        tokens[name] = create_token(env, name, *args)
    process, url = _start(env, base / "workspace", base / "stderr.log", "--tool-search")
    yield Server(url, tokens)
    terminate(process)


@asynccontextmanager
async def client(server: Server, token: str, **options: Any) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=MCP_TIMEOUT) as http,
        streamable_http_client(server.url, http_client=http) as (read, write),
        ClientSession(read, write, **options) as session,
    ):
        await session.initialize()
        yield session


def found(result: Any) -> list[str]:
    return [tool["name"] for tool in result.structured_content["tools"]]


async def test_a_scoped_token_never_finds_another_packages_tools(server: Server) -> None:
    async with client(server, server.tokens["a"]) as session:
        echo = await session.call_tool("search_tools", {"query": "echo", "limit": 20})
        beta = await session.call_tool("search_tools", {"query": "beta echo ask", "limit": 20})
        listed = [tool.name for tool in (await session.list_tools()).tools]
    assert found(echo) == ["alpha_echo"]
    assert set(found(beta)) <= {"alpha_echo", "alpha_ask"}
    assert not any("beta" in text.text for text in beta.content)
    assert listed == ["search_tools", "call_tool", "alpha_ask", "alpha_echo"]


async def test_a_scoped_token_cannot_call_another_packages_tool_through_call_tool(
    server: Server,
) -> None:
    async with client(server, server.tokens["a"]) as session:
        with pytest.raises(Exception, match="Unknown tool: beta_echo"):
            await session.call_tool("call_tool", {"name": "beta_echo", "arguments": {}})
        mine = await session.call_tool("call_tool", {"name": "alpha_echo", "arguments": {"n": 2}})
    assert [block.text for block in mine.content] == ['alpha {"n": 2}']


async def test_a_tool_a_policy_denies_is_never_found(server: Server) -> None:
    async with client(server, server.tokens["all"]) as session:
        asked = await session.call_tool("search_tools", {"query": "ask", "limit": 20})
        everything = await session.call_tool(
            "search_tools", {"query": "alpha beta echo ask", "limit": 20}
        )
    assert found(asked) == ["alpha_ask"]
    assert sorted(found(everything)) == ["alpha_ask", "alpha_echo", "beta_echo"]


async def test_a_search_tells_its_own_http_session_that_its_list_changed(server: Server) -> None:
    told = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            told.set()

    async with client(server, server.tokens["a"], message_handler=on_message) as session:
        before = [tool.name for tool in (await session.list_tools()).tools]
        await session.call_tool("search_tools", {"query": "alpha echo", "limit": 1})
        with anyio.fail_after(10):
            await told.wait()
        after = [tool.name for tool in (await session.list_tools()).tools]
    assert before == ["search_tools", "call_tool"]
    assert after == ["search_tools", "call_tool", "alpha_echo"]
