"""Installed packages start on first use: the registration cache, dormant entries and
their activation (gateway/host/_registrations.py, _activation.py)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from gateway import open_gateway
from gateway.packages import install, load_adapters
from gateway.sandbox import package_dirs
from gateway.store import StateStore
from tests.conftest import FIXTURES, Workspace

pytestmark = pytest.mark.anyio


def nimlet_package(
    workspace: Workspace,
    name: str,
    version: str = "1",
    manifest_extra: dict[str, Any] | None = None,
    **behaviour: Any,
) -> tuple[str, Path]:
    """Install, trust and enable a nimlet package running the scripted extension; returns
    its id and the log of every message its process received (one line per message)."""
    source = workspace.root.parent / "sources" / name
    source.mkdir(parents=True, exist_ok=True)
    # Where its confined process may write: its data folder under GATEWAY_HOME.
    log = package_dirs(workspace.config.home, name)[0] / "received.jsonl"
    config = workspace.root.parent / f"{name}-config.json"
    config.write_text(json.dumps({"log": str(log), **behaviour}))
    manifest = {
        "name": name,
        "command": [sys.executable, str(FIXTURES / "scripted_extension.py"), str(config)],
        **(manifest_extra or {}),
    }
    (source / "extension.json").write_text(json.dumps(manifest))
    (source / "VERSION").write_text(version)
    home = workspace.config.home
    report = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    package_id = report.package.record.id
    with StateStore.open(home) as store:
        store.set_trusted(package_id, True)
        store.set_enabled(package_id, True)
    return package_id, log


def starts(log: Path) -> int:
    """How many times the process was started (each start gets one initialize)."""
    if not log.exists():
        return 0
    return sum(json.loads(line)["type"] == "initialize" for line in log.read_text().splitlines())


async def warm(workspace: Workspace) -> None:
    """A first open: nothing is cached yet, so everything starts (and is cached)."""
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ):
        pass


async def test_a_package_starts_at_once_the_first_time_and_is_cached(workspace):
    _, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert [p.name for p in gateway.processes] == ["alpha"]
    assert starts(log) == 1
    assert list((workspace.config.home / "cache" / "registrations").glob("*.json"))


async def test_a_cached_package_is_listed_without_starting(workspace):
    _, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"], commands=["alpha_cmd"])
    await warm(workspace)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.processes == []
        tool = gateway.registry.tool("alpha_tool")
        assert tool is not None and tool.owner == "alpha"
        assert gateway.registry.command("alpha_cmd") is not None
    assert starts(log) == 1


async def test_the_first_call_starts_a_dormant_package_and_gets_the_live_result(workspace):
    _, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    await warm(workspace)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("alpha_tool", {"do": "echo"})
        assert not result.is_error
        assert json.loads(result.content) == {"tool": "alpha_tool", "arguments": {"do": "echo"}}
        assert [p.name for p in gateway.processes] == ["alpha"]
        again = await gateway.call_tool("alpha_tool", {"do": "echo"})
        assert not again.is_error
    assert starts(log) == 2  # the warm-up, then once for both calls


async def test_concurrent_first_calls_start_the_package_once(workspace):
    _, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    await warm(workspace)
    results = []
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:

        async def call() -> None:
            results.append(await gateway.call_tool("alpha_tool", {"do": "echo"}))

        async with anyio.create_task_group() as group:
            for _ in range(5):
                group.start_soon(call)
    assert [r.is_error for r in results] == [False] * 5
    assert starts(log) == 2


async def test_a_command_of_a_dormant_package_starts_it(workspace):
    _, log = nimlet_package(workspace, "alpha", tools=[], commands=["alpha_cmd"])
    await warm(workspace)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        outcome = await gateway.run_command("alpha_cmd", "now")
    assert outcome.message == "ran alpha_cmd now"
    assert starts(log) == 2


async def test_an_event_a_dormant_package_hooks_starts_it_and_its_answer_counts(workspace):
    hooks = {"tool_call": {"allow": False, "reason": "alpha says no"}}
    nimlet_package(workspace, "alpha", tools=[], events=["tool_call"], hooks=hooks)
    _, other_log = nimlet_package(workspace, "beta", tools=["beta_tool"])
    await warm(workspace)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.processes == []
        result = await gateway.call_tool("beta_tool", {"do": "echo"})
    assert result.blocked and result.content == "alpha says no"
    assert starts(other_log) == 1  # blocked before the tool ran: beta never needed to start


async def test_packages_nobody_uses_never_start(workspace):
    _, used = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    _, idle = nimlet_package(workspace, "beta", tools=["beta_tool"])
    await warm(workspace)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await gateway.call_tool("alpha_tool", {"do": "echo"})
    assert (starts(used), starts(idle)) == (2, 1)


async def test_changed_content_is_a_cache_miss_and_the_package_starts(workspace):
    _, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    await warm(workspace)
    nimlet_package(workspace, "alpha", version="2", tools=["alpha_tool", "new_tool"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert [p.name for p in gateway.processes] == ["alpha"]
        assert gateway.registry.tool("new_tool") is not None
    assert starts(log) == 2


async def test_changed_settings_are_a_cache_miss(workspace):
    package_id, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    await warm(workspace)
    settings = workspace.config.home / "config" / f"{package_id}.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"level": 2}')
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert [p.name for p in gateway.processes] == ["alpha"]
    assert starts(log) == 2


async def test_an_unreadable_cache_is_a_miss_not_an_error(workspace):
    _, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    await warm(workspace)
    for path in (workspace.config.home / "cache" / "registrations").glob("*.json"):
        path.write_text("{not json")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert [p.name for p in gateway.processes] == ["alpha"]
        assert not [d for d in gateway.diagnostics if d.severity.value == "error"]
    assert starts(log) == 2


async def test_lazy_start_off_starts_every_package(workspace):
    _, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    await warm(workspace)
    config = dataclasses.replace(workspace.config, lazy_start=False)
    async with open_gateway(
        workspace.root, trust=True, config=config, transport=workspace.transport
    ) as gateway:
        assert [p.name for p in gateway.processes] == ["alpha"]
    assert starts(log) == 2


async def test_a_dormant_package_that_fails_to_start_fails_the_call_and_says_why(workspace):
    package_id, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    await warm(workspace)
    config_path = workspace.root.parent / "alpha-config.json"
    config_path.write_text(json.dumps({"log": str(log), "before_register": "crash"}))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        first = await gateway.call_tool("alpha_tool", {"do": "echo"})
        second = await gateway.call_tool("alpha_tool", {"do": "echo"})
        failures = [d for d in gateway.diagnostics if d.code == "extension.start_failed"]
    assert first.is_error and "did not start" in first.content
    assert second.is_error
    assert len(failures) == 1  # one attempt per load, not one per call
    assert package_id == "alpha"


async def test_a_tool_gone_from_the_live_registration_is_an_error_result(workspace):
    _, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    await warm(workspace)
    config_path = workspace.root.parent / "alpha-config.json"
    config_path.write_text(json.dumps({"log": str(log), "tools": ["renamed"]}))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("alpha_tool", {"do": "echo"})
        assert gateway.registry.tool("renamed") is not None
    assert result.is_error and "no longer provides tool alpha_tool" in result.content


async def test_the_live_registration_replaces_the_cached_one_and_is_cached(workspace):
    _, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    await warm(workspace)
    config_path = workspace.root.parent / "alpha-config.json"
    config_path.write_text(json.dumps({"log": str(log), "tools": ["alpha_tool", "extra"]}))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.registry.tool("extra") is None  # the cache does not know it yet
        await gateway.call_tool("alpha_tool", {"do": "echo"})
        assert gateway.registry.tool("extra") is not None
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.processes == [] and gateway.registry.tool("extra") is not None


def _cached(workspace: Workspace) -> list[Path]:
    return list((workspace.config.home / "cache" / "registrations").glob("*.json"))


async def test_disable_and_enable_drop_the_cached_registration(workspace, monkeypatch):
    from gateway.cli import main

    package_id, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    await warm(workspace)
    assert _cached(workspace)
    monkeypatch.setenv("GATEWAY_HOME", str(workspace.config.home))
    for verb in ("disable", "enable"):
        assert main([verb, package_id]) == 0
        assert not _cached(workspace)
        await warm(workspace)  # enabled again: started for real, and cached again
    assert starts(log) == 2


async def test_a_grant_changed_is_a_cache_miss(workspace):
    package_id, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    await warm(workspace)
    with StateStore.open(workspace.config.home) as store:
        store.grant(package_id, ["workspace.write"], requested=["workspace.write"])
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert [p.name for p in gateway.processes] == ["alpha"]
    assert starts(log) == 2


async def test_a_reinstall_of_the_same_content_drops_the_cached_registration(workspace):
    nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    await warm(workspace)
    assert _cached(workspace)
    nimlet_package(workspace, "alpha", tools=["alpha_tool"])  # the same source again
    assert not _cached(workspace)


async def test_a_start_that_failed_is_not_served_from_the_cache(workspace):
    _, log = nimlet_package(workspace, "alpha", tools=["alpha_tool"])
    await warm(workspace)
    config_path = workspace.root.parent / "alpha-config.json"
    config_path.write_text(json.dumps({"log": str(log), "before_register": "crash"}))
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        assert (await gateway.call_tool("alpha_tool", {"do": "echo"})).is_error
    assert not _cached(workspace)  # the next load starts it at once, and sees it fail
    config_path.write_text(json.dumps({"log": str(log), "tools": ["alpha_tool"]}))
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        assert [p.name for p in gateway.processes] == ["alpha"]


async def test_a_program_replaced_in_place_is_another_start(workspace):
    source = workspace.root.parent / "sources" / "beta"
    source.mkdir(parents=True)
    program = workspace.root.parent / "bin" / "python-beta"
    program.parent.mkdir()
    program.symlink_to(sys.executable)
    log = package_dirs(workspace.config.home, "beta")[0] / "received.jsonl"
    config = workspace.root.parent / "beta-config.json"
    config.write_text(json.dumps({"log": str(log), "tools": ["beta_tool"]}))
    command = [str(program), str(FIXTURES / "scripted_extension.py"), str(config)]
    (source / "extension.json").write_text(json.dumps({"name": "beta", "command": command}))
    home = workspace.config.home
    report = install(home, str(source), kind="local", inspector=load_adapters().inspect)
    with StateStore.open(home) as store:
        store.set_trusted(report.package.record.id, True)
        store.set_enabled(report.package.record.id, True)
    await warm(workspace)
    await warm(workspace)
    assert starts(log) == 1  # held dormant the second time
    program.unlink()  # the same path now leads to another file: an upgrade in place
    shutil.copy(sys.executable, program)
    await warm(workspace)
    assert starts(log) == 2


async def test_start_for_starts_together_what_a_run_will_use_and_nothing_else(workspace):
    _, hooked = nimlet_package(workspace, "alpha", tools=[], events=["turn_end"])
    _, owner = nimlet_package(workspace, "beta", tools=["beta_tool"])
    _, idle = nimlet_package(workspace, "gamma", tools=["gamma_tool"], events=["input"])
    await warm(workspace)
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        await gateway.start_for(["session_start", "turn_end"], ["beta_tool"])
        assert sorted(p.name for p in gateway.processes) == ["alpha", "beta"]
        await gateway.call_tool("beta_tool", {"do": "echo"})
    assert (starts(hooked), starts(owner), starts(idle)) == (2, 2, 1)
