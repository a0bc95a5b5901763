"""Two Pi packages registering one tool (Pi's rule: the first in load order wins): after
the user prefers the later one (``gateway prefer``), it owns the tool on every run — both
starting, held dormant from the registration cache, started at first use — while every
duplicate command stays kept as ``/name:N`` in load order (docs/architecture.md, "Name
clashes"). A discovered extension (``pi:NAME``) is preferred by its id the same way."""

from __future__ import annotations

import json

import pytest

from gateway import open_gateway
from gateway.store import StateStore
from tests._cli_inprocess import run_gateway

from .conftest import install_ready
from .test_clash_order import SOURCE, _package

pytestmark = pytest.mark.anyio


async def _seen(workspace, use: bool = False) -> tuple[object, ...]:
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        if use:
            assert (await gateway.call_tool("same", {})).content == "alpha"
        return (
            gateway.registry.tool("same").owner,
            [(c.name, c.owner) for c in gateway.registry.commands()],
        )


async def test_the_preferred_pi_package_owns_the_tool_on_every_run(workspace):
    home, src = workspace.config.home, workspace.root.parent
    install_ready(home, _package(src, "zeta"))  # installed first: Pi's rule gives it the tool
    install_ready(home, _package(src, "alpha"))
    with StateStore.open(home) as store:
        store.set_preferred(["alpha"])
    first = await _seen(workspace)
    cached = await _seen(workspace)
    used = await _seen(workspace, use=True)
    assert first == cached == used
    assert first == ("alpha", [("dup:1", "zeta"), ("dup:2", "alpha")])
    with StateStore.open(home) as store:
        store.set_preferred([])
    assert (await _seen(workspace))[0] == "zeta"


def _discovered(workspace, name: str) -> None:
    folder = workspace.root / ".pi" / "extensions" / name
    folder.mkdir(parents=True)
    (folder / "index.js").write_text(SOURCE.replace("@NAME@", name))


async def test_a_preferred_discovered_extension_wins_the_clash(workspace):
    _discovered(workspace, "alpha")  # discovered first: Pi's rule gives it the tool
    _discovered(workspace, "zeta")
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        assert gateway.registry.tool("same").owner == "pi:alpha"  # the control
    home = workspace.config.home
    user = home.parent / "user"
    user.mkdir(exist_ok=True)
    done = run_gateway(home, "prefer", "pi:zeta", "--json", user=user)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["kinds"] == ["discovered"]
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        assert gateway.registry.tool("same").owner == "pi:zeta"
        assert (await gateway.call_tool("same", {})).content == "zeta"
        assert not [d for d in gateway.diagnostics if d.code == "package.preferred_not_installed"]
