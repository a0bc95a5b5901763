"""Packages run from launch specs: declared-contribution checks and runtime diagnostics.

The launcher is replaced by one that starts the scripted extension, so these rules are
tested on the host alone, whatever runtime an ecosystem will use.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from adapters.nanobot.adapter import NanobotAdapter
from gateway import open_gateway
from gateway.model import LaunchSpec
from gateway.packages import install, load_adapters
from gateway.sandbox import python_runtime_paths
from gateway.store import StateStore
from tests.conftest import FIXTURES

pytestmark = pytest.mark.anyio

MANIFEST = {
    "id": "acme.review",
    "name": "Acme Review",
    "version": "1.0.0",
    "apiVersion": 1,
    "runtime": "python",
    "entry": "my_extension:register",
    "description": "Adds a review tool and command.",
    "contributions": [
        {"kind": "tool", "name": "review_code", "description": "Review a local change."},
        {"kind": "command", "name": "review", "description": "Start a review from chat."},
        {"kind": "tool", "name": "never_registered", "description": "Declared only."},
    ],
}


@pytest.fixture
def installed(workspace, monkeypatch, tmp_path: Path):
    """An installed, trusted, enabled nanobot package whose 'runtime' is the scripted
    extension registering one declared and one undeclared tool."""
    package = tmp_path / "acme"
    (package / "my_extension").mkdir(parents=True)
    (package / "nanobot.extension.json").write_text(json.dumps(MANIFEST))
    (package / "my_extension/__init__.py").write_text("def register(api):\n    pass\n")
    home = workspace.config.home
    install(home, str(package), kind="local", inspector=load_adapters().inspect)
    with StateStore.open(home) as store:
        store.set_trusted("acme.review", True)
        store.set_enabled("acme.review", True)
    behaviour = {
        "tools": ["review_code", "undeclared_tool"],
        "commands": ["review"],
        "log": "{data}/received.jsonl",
    }
    config = tmp_path / "behaviour.json"
    config.write_text(json.dumps(behaviour))
    command = [sys.executable, str(FIXTURES / "scripted_extension.py"), str(config)]

    def launcher(entry, home):
        return LaunchSpec(
            command=command,
            env={"ACME_TOKEN": "t"},
            response_timeout=10,
            reads=(*python_runtime_paths(), FIXTURES / "scripted_extension.py", config),
        )

    monkeypatch.setattr(
        NanobotAdapter, "plan_launch", lambda self, entry, home: launcher(entry, home)
    )
    return behaviour


async def test_undeclared_tool_is_refused_and_the_declared_one_runs(workspace, installed):
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.registry.tool("undeclared_tool") is None
        tool = gateway.registry.tool("review_code")
        assert tool is not None and tool.owner == "acme.review"
        assert not (await gateway.call_tool("review_code", {})).is_error
        codes = {(d.code, d.contribution) for d in gateway.diagnostics}
    assert ("package.undeclared_contribution", "undeclared_tool") in codes


async def test_declared_tool_never_registered_is_reported(workspace, installed):
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        codes = {(d.code, d.contribution) for d in gateway.diagnostics}
    assert ("package.contribution_missing", "never_registered") in codes


async def test_package_process_gets_the_environment_its_spec_declares(workspace, installed):
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        (process,) = gateway.processes
        environ = Path(f"/proc/{process.pid}/environ").read_bytes().split(b"\0")
    assert b"ACME_TOKEN=t" in environ


async def test_runtime_diagnostics_in_register_are_added_under_the_package(
    workspace, installed, tmp_path
):
    behaviour = dict(installed)
    behaviour["register"] = {
        "type": "register",
        "commands": [{"name": "review"}],
        "tools": [{"name": "review_code", "description": "d", "input_schema": {"type": "object"}}],
        "gateway": {
            "diagnostics": [
                {
                    "code": "runtime.unavailable",
                    "message": "a catalogued problem",
                    "contribution": "x",
                },
                {"code": "no.such.code", "message": "uncatalogued"},
                "not an object",
            ]
        },
    }
    (tmp_path / "behaviour.json").write_text(json.dumps(behaviour))
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        found = [(d.code, d.package) for d in gateway.diagnostics if d.package == "acme.review"]
    assert ("runtime.unavailable", "acme.review") in found
    assert found.count(("protocol.diagnostic_invalid", "acme.review")) == 2


async def test_a_package_failing_a_gate_is_not_started(workspace, installed):
    with StateStore.open(workspace.config.home) as store:
        store.set_enabled("acme.review", False)
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.processes == []
        assert any(d.code == "gate.disabled" for d in gateway.diagnostics)


async def test_a_package_whose_dependency_fails_to_start_is_not_started(
    workspace, installed, monkeypatch, tmp_path
):
    dependent = tmp_path / "dependent"
    (dependent / "my_extension").mkdir(parents=True)
    manifest = {**MANIFEST, "id": "acme.dependent", "contributions": [],
                "dependencies": [{"kind": "extension", "name": "acme.review"}]}  # fmt: skip
    (dependent / "nanobot.extension.json").write_text(json.dumps(manifest))
    (dependent / "my_extension/__init__.py").write_text("def register(api):\n    pass\n")
    home = workspace.config.home
    install(home, str(dependent), kind="local", inspector=load_adapters().inspect)
    with StateStore.open(home) as store:
        store.set_trusted("acme.dependent", True)
        store.set_enabled("acme.dependent", True)
    started: list[str] = []

    def launcher(entry, home):
        started.append(entry.id)
        if entry.id == "acme.review":  # the dependency crashes before register
            return LaunchSpec(command=[sys.executable, "-c", "raise SystemExit(3)"])
        behaviour = tmp_path / "behaviour.json"
        return LaunchSpec(
            command=[sys.executable, str(FIXTURES / "scripted_extension.py"), str(behaviour)],
            reads=(*python_runtime_paths(), FIXTURES / "scripted_extension.py", behaviour),
        )

    monkeypatch.setattr(
        NanobotAdapter, "plan_launch", lambda self, entry, home: launcher(entry, home)
    )
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.processes == []
        blocked = [d for d in gateway.diagnostics if d.code == "gate.blocked"]
    assert [d.package for d in blocked] == ["acme.dependent"]
    assert "acme.review did not start" in blocked[0].message


@pytest.mark.parametrize("replaces", [[], ["acme.review"]])
async def test_a_declared_tool_replaces_another_packages_only_when_it_says_so(
    workspace, installed, tmp_path, replaces
):
    second = tmp_path / "second"
    (second / "my_extension").mkdir(parents=True)
    contribution = {
        "kind": "tool",
        "name": "review_code",
        "description": "Mine.",
        "replaces": replaces,
    }
    manifest = {**MANIFEST, "id": "zeta.review", "contributions": [contribution]}
    (second / "nanobot.extension.json").write_text(json.dumps(manifest))
    (second / "my_extension/__init__.py").write_text("def register(api):\n    pass\n")
    home = workspace.config.home
    install(home, str(second), kind="local", inspector=load_adapters().inspect)
    with StateStore.open(home) as store:
        store.set_trusted("zeta.review", True)
        store.set_enabled("zeta.review", True)
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        owner = gateway.registry.tool("review_code").owner
        conflicts = [d for d in gateway.diagnostics if d.code == "package.contribution_conflict"]
    if replaces:
        assert owner == "zeta.review" and conflicts == []
    else:
        assert owner == "acme.review"
        assert [(d.package, d.contribution) for d in conflicts] == [("zeta.review", "review_code")]
