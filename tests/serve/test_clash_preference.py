"""An order the user sets (``gateway prefer``) decides who owns a clashing name before
install order, identically in ``gateway list``, ``gateway serve --mcp`` and the Python API,
on every run; clearing it gives install order back (docs/architecture.md, "Name clashes")."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from gateway import open_gateway
from gateway.host import apply_package_changes
from gateway.store import StateStore
from tests.gateway.test_cli import gateway, gateway_json, ws
from tests.serve.test_clash_owner import _package, _served_description

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the MCP client's stdio transport


async def _api_owner(workspace: Any) -> str:
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as opened:
        entry = opened.registry.tool("shared")
        assert entry is not None
        return entry.owner


def _owners(workspace: Any) -> list[str]:
    """The owner of ``shared`` as serve (twice), list (twice) and the API (twice) say. Not
    an async test: ``gateway list`` then runs in this process (``tests/_cli.run_here``
    needs a thread without an event loop), each served gateway and API gateway in an event
    loop of its own (``anyio.run``)."""
    owners = [
        anyio.run(_served_description, workspace, backend="asyncio").removesuffix("'s")
        for _ in range(2)
    ]
    for _ in range(2):
        listed = gateway_json(workspace, "list", "--workspace", ws(workspace), "--trust")
        owners += [t["owner"] for t in listed["tools"] if t["name"] == "shared"]
        owners.append(anyio.run(_api_owner, workspace, backend="asyncio"))
    return owners


def test_the_preferred_package_owns_the_name_everywhere_until_the_preference_goes(
    workspace: Any,
) -> None:
    _package(workspace, "alpha")
    _package(workspace, "beta")  # installed later: nimlet's rule, the later one wins
    assert _owners(workspace) == ["beta"] * 6
    assert gateway_json(workspace, "prefer", "alpha") == {
        "preferred": ["alpha"],
        "installed": [True],
        "kinds": ["installed"],
    }
    assert _owners(workspace) == ["alpha"] * 6
    assert gateway_json(workspace, "prefer", "--clear") == {
        "preferred": [],
        "installed": [],
        "kinds": [],
    }
    assert _owners(workspace) == ["beta"] * 6


def test_the_first_preferred_wins_over_the_later_preferred(workspace: Any) -> None:
    for name in ("alpha", "beta", "gamma"):
        _package(workspace, name)
    gateway_json(workspace, "prefer", "alpha", "gamma")
    assert anyio.run(_api_owner, workspace, backend="asyncio") == "alpha"
    gateway_json(workspace, "prefer", "gamma", "alpha")
    listed = gateway_json(workspace, "list", "--workspace", ws(workspace), "--trust")
    assert [t["owner"] for t in listed["tools"] if t["name"] == "shared"] == ["gamma"]


def test_an_unknown_id_is_refused_with_the_name_meant_and_nothing_changes(
    workspace: Any,
) -> None:
    _package(workspace, "alpha")
    _package(workspace, "beta")
    gateway_json(workspace, "prefer", "beta")
    done = gateway(workspace, "prefer", "alpah", "beta")
    assert done.returncode != 0
    assert "alpah" in done.stderr and "did you mean" in done.stderr and "alpha" in done.stderr
    assert gateway_json(workspace, "prefer")["preferred"] == ["beta"]


def test_a_preferred_package_uninstalled_is_a_diagnostic_and_install_order_decides(
    workspace: Any,
) -> None:
    _package(workspace, "alpha")
    _package(workspace, "beta")
    _package(workspace, "gamma")
    gateway_json(workspace, "prefer", "alpha")
    assert gateway(workspace, "uninstall", "alpha").returncode == 0
    assert gateway_json(workspace, "prefer") == {
        "preferred": ["alpha"],
        "installed": [False],
        "kinds": ["not installed"],
    }
    listed = gateway_json(workspace, "list", "--workspace", ws(workspace), "--trust")
    assert [t["owner"] for t in listed["tools"] if t["name"] == "shared"] == ["gamma"]
    codes = [d["code"] for d in listed["diagnostics"] if d.get("package") == "alpha"]
    assert codes == ["package.preferred_not_installed"]


async def test_a_running_gateway_takes_a_new_preference_without_restarting_anything(
    workspace: Any,
) -> None:
    _package(workspace, "alpha")
    _package(workspace, "beta")
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as opened:
        changed: list[str] = []
        opened.registry.on_change = lambda: changed.append("tools")
        with StateStore.open(workspace.config.home) as store:
            store.set_preferred(["alpha"])
        assert not await apply_package_changes(opened)  # no package restarted
        entry = opened.registry.tool("shared")
        assert entry is not None and entry.owner == "alpha" and changed == ["tools"]
        with StateStore.open(workspace.config.home) as store:
            store.set_preferred([])
        await apply_package_changes(opened)
        entry = opened.registry.tool("shared")
        assert entry is not None and entry.owner == "beta"
