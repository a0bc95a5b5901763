"""Who owns a name two installed packages register is the same through ``gateway serve
--mcp`` as in ``gateway list`` and the Python API, on the first start (both processes
registering live, in whatever order they start) and on the next (held dormant, from the
registration cache): the later in install order, nimlet's rule (docs/architecture.md,
"Name clashes"). The server is served in this process (``tests/serve/_here.serve_here``)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from gateway import open_gateway
from tests.gateway.test_cli import gateway_json, ws
from tests.gateway.test_lazy_start import nimlet_package
from tests.serve._here import serve_here

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the MCP client's stdio transport


def _package(workspace: Any, name: str) -> None:
    tool = {"name": "shared", "description": f"{name}'s", "input_schema": {"type": "object"}}
    nimlet_package(workspace, name, register={"type": "register", "commands": [], "tools": [tool]})


async def _served_description(workspace: Any) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.update(GATEWAY_HOME=str(workspace.config.home), HOME=str(workspace.home))
    async with serve_here(
        ["--workspace", ws(workspace), "--trust"], env=env, cwd=workspace.home,
        errlog=workspace.home / "serve.log",
    ) as connection:  # fmt: skip
        tools = {t.name: t for t in (await connection.list_tools()).tools}
        called = await connection.call_tool("shared", {"do": "echo"})
    assert not called.is_error
    return str(tools["shared"].description)


async def test_serve_list_and_the_api_name_the_same_owner_on_every_start(workspace: Any) -> None:
    _package(workspace, "alpha")
    _package(workspace, "beta")  # installed later: nimlet's rule, the later one wins
    served = [await _served_description(workspace) for _ in range(2)]
    listed = gateway_json(workspace, "list", "--workspace", ws(workspace), "--trust")
    [tool] = [t for t in listed["tools"] if t["name"] == "shared"]
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        entry = gateway.registry.tool("shared")
        assert entry is not None and entry.owner == "beta"
    assert served == ["beta's", "beta's"]
    assert (tool["owner"], tool["description"]) == ("beta", "beta's")
