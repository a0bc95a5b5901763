"""The loopback OAuth MCP server (``fixtures/oauth_mcp_server.py``, built on the MCP SDK) one
module shares: ``server`` is it as if freshly started."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ._server import OAuthServer


@pytest.fixture(scope="module")
def running() -> Iterator[OAuthServer]:
    """One server for the module (each start imports the MCP SDK, Starlette and uvicorn),
    streamable HTTP at ``url`` and SSE at ``sse().url``."""
    started = OAuthServer("both")
    yield started
    started.close()


@pytest.fixture
def server(running: OAuthServer) -> OAuthServer:
    """The module's server as if freshly started: no client, token or test setting left by
    the test before (``/test/reset``)."""
    running.post("/test/reset")
    return running
