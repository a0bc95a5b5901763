"""Workspace trust through the state store, and what happens when the store is unusable."""

from __future__ import annotations

import pytest

from gateway import open_gateway
from gateway.packages.trust import is_workspace_trusted, set_workspace_trust

pytestmark = pytest.mark.anyio


async def test_persisted_trust_loads_project_extensions(workspace):
    workspace.add_extension("project", tools=["p"])
    set_workspace_trust(workspace.config.home, workspace.root, True)
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.trusted and gateway.registry.tool("p") is not None


async def test_explicit_trust_false_overrides_the_persisted_decision(workspace):
    workspace.add_extension("project", tools=["p"])
    set_workspace_trust(workspace.config.home, workspace.root, True)
    async with open_gateway(
        workspace.root, trust=False, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.registry.tool("p") is None


def test_reading_trust_does_not_create_the_store(workspace):
    assert is_workspace_trusted(workspace.config.home, workspace.root) == (False, None)
    assert not workspace.config.home.exists()


async def test_corrupt_store_is_a_diagnostic_the_workspace_is_untrusted_and_the_file_kept(
    workspace,
):
    workspace.add_extension("project", tools=["p"])
    workspace.config.home.mkdir(parents=True, exist_ok=True)
    state = workspace.config.home / "state.sqlite3"
    state.write_bytes(b"not a database")
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert not gateway.trusted
        assert gateway.registry.tool("p") is None
        errors = [d for d in gateway.diagnostics if d.severity.value == "error"]
        assert {d.code for d in errors} == {"store.unusable"}
        assert any("workspace trust not read" in d.message for d in errors)
        assert any("installed packages not loaded" in d.message for d in errors)
    assert state.read_bytes() == b"not a database"
