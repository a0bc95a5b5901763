"""A remote MCP server unreachable when its package starts is a failed start, not a
success to cache: the registration is not kept, and the next load starts the package and
tries to connect again (issue 29, "a cache that can't lie")."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from gateway import open_gateway
from gateway.packages import install, load_adapters, registration_file
from gateway.store import StateStore
from tests.agent_plugins._helpers import write_plugin

pytestmark = pytest.mark.anyio

PACKAGE = "far-away"


def _free_port() -> int:
    with socket.socket() as probe:  # free a moment ago: nothing listens on it
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _installed(workspace: Any, url: str) -> str:
    home = workspace.config.home
    root = write_plugin(
        workspace.root.parent / "src" / PACKAGE,
        servers={"calc": {"type": "streamable-http", "url": url}},
    )
    report = install(home, str(root), kind="local", inspector=load_adapters().inspect)
    package_id = report.package.record.id
    requested = [p.name for p in report.entry.permissions]
    with StateStore.open(home) as store:
        store.grant(package_id, requested, requested)
        store.set_trusted(package_id, True)
        store.set_enabled(package_id, True)
    return package_id


async def test_an_unreachable_remote_server_is_never_cached_and_retried(workspace: Any) -> None:
    package_id = _installed(workspace, f"http://127.0.0.1:{_free_port()}/mcp")
    for _ in range(2):
        async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
            # Started at the load each time: nothing cached could hold it dormant.
            assert [p.name for p in gateway.processes] == [package_id]
            codes = [d.code for d in gateway.diagnostics]
            assert "remote_mcp.unreachable" in codes, codes
        assert not registration_file(workspace.config.home, package_id).exists()
