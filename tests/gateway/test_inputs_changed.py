"""A gateway kept open across runs knows when what its load read has changed
(``Gateway.inputs_changed``, gateway/host/_freshness.py): the state store's decisions,
settings, what discovery finds, the programs packages name on PATH — and not what a run
writes itself."""

from __future__ import annotations

import dataclasses
import json
import sys

import pytest

from gateway import open_gateway
from gateway.store import StateStore

from .test_lazy_start import nimlet_package

pytestmark = pytest.mark.anyio


def _watching(workspace):
    return dataclasses.replace(workspace.config, watch_inputs=True)


async def test_nothing_changed_is_not_a_change(workspace):
    nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    async with open_gateway(workspace.root, trust=True, config=_watching(workspace)) as gateway:
        await gateway.call_tool("alpha_tool", {"do": "echo"})
        assert not await gateway.inputs_changed()


async def test_a_gate_changed_by_another_command_is_a_change(workspace):
    package_id, _ = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    async with open_gateway(workspace.root, trust=True, config=_watching(workspace)) as gateway:
        with StateStore.open(workspace.config.home) as store:
            store.set_enabled(package_id, False)
        assert await gateway.inputs_changed()
        await gateway.reload()
        assert not await gateway.inputs_changed()
        assert gateway.registry.tool("alpha_tool") is None


async def test_each_change_by_another_command_is_seen_by_the_next_comparison(workspace):
    # The store's digest is kept open across comparisons (StateDigestReader): what it
    # remembered after the first change and the reload must not hide the second.
    package_id, _ = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    async with open_gateway(workspace.root, trust=True, config=_watching(workspace)) as gateway:
        for enabled in (False, True, False):
            assert not await gateway.inputs_changed()
            with StateStore.open(workspace.config.home) as store:
                store.set_enabled(package_id, enabled)
            assert await gateway.inputs_changed()
            assert await gateway.inputs_changed()  # until it loads again
            await gateway.reload()
            assert (gateway.registry.tool("alpha_tool") is None) is not enabled


async def test_settings_written_by_gateway_config_are_a_change(workspace):
    package_id, _ = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    settings = workspace.config.home / "config" / f"{package_id}.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    async with open_gateway(workspace.root, trust=True, config=_watching(workspace)) as gateway:
        settings.write_text(json.dumps({"level": 1}))
        if sys.platform.startswith("linux"):
            # The settings watcher applies them (a restart) before anything compares what
            # the load read, however the two are scheduled: the package restarted once, and
            # nothing is left for a kept-open session to load again.
            assert not await gateway.inputs_changed()
            restarted = [d for d in gateway.diagnostics if d.code == "package.settings_restarted"]
            assert len(restarted) == 1, restarted
            settings.write_text(json.dumps({"level": 2}))
            assert not await gateway.inputs_changed()
            again = [d for d in gateway.diagnostics if d.code == "package.settings_restarted"]
            assert "restart 2 since" in again[-1].message, again
        else:
            assert await gateway.inputs_changed()  # no watcher: a change for the next load


async def test_an_extension_added_or_edited_in_the_workspace_is_a_change(workspace):
    config = _watching(workspace)
    transport = workspace.transport
    async with open_gateway(
        workspace.root, trust=True, config=config, transport=transport
    ) as gateway:
        workspace.add_extension("late", tools=["late_tool"])
        assert await gateway.inputs_changed()
        await gateway.reload()
        assert gateway.registry.tool("late_tool") is not None
        assert not await gateway.inputs_changed()
        script = next((workspace.root / ".nimlet" / "extensions" / "late").glob("*.json"))
        script.write_text(script.read_text() + " ")
        assert await gateway.inputs_changed()


async def test_without_watch_inputs_nothing_is_remembered(workspace):
    package_id, _ = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        with StateStore.open(workspace.config.home) as store:
            store.set_enabled(package_id, False)
        assert not await gateway.inputs_changed()
