"""The document's "Also test" list for the gates, with a python-runtime package: nothing of
it runs before install, grants, trust and enable; dependencies are checked; the declared
environment is checked for presence and reaches the sidecar only once granted (env:NAME); Pi / OpenClaw / declarative runtimes say why they don't run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway import open_gateway
from gateway.packages import evaluate_packages, install, load_adapters
from gateway.packages.secrets import set_secret
from gateway.sandbox import package_dirs
from gateway.store import StateStore

from ._helpers import codes, install_ready, write_package

pytestmark = pytest.mark.anyio

MARKED = """
import os, pathlib

pathlib.Path(@MARKER@).write_text("imported")

class Env:
    name = "env_value"
    description = "reads a declared environment variable"
    parameters = {"type": "object", "properties": {"name": {"type": "string"}}}

    async def execute(self, name):
        return os.environ.get(name, "<unset>")

def register(api):
    api.register_tool(Env())
"""


def marked_package(tmp_path: Path, home: Path, **manifest: object) -> tuple[Path, Path]:
    # Where its confined process may write: its data folder under GATEWAY_HOME.
    marker = package_dirs(home, "test.marked")[0] / "imported"
    package = write_package(
        tmp_path / "src" / "marked", "test.marked",
        MARKED.replace("@MARKER@", repr(str(marker))), tools=["env_value"], **manifest,
    )  # fmt: skip
    return package, marker


async def test_nothing_runs_until_every_gate_is_passed(workspace, tmp_path):
    home = workspace.config.home
    package, marker = marked_package(
        tmp_path, workspace.config.home, permissions=["workspace.read"]
    )
    install(home, str(package), kind="local", inspector=load_adapters().inspect)
    inspected = load_adapters().inspect(package)  # metadata only
    assert [(p.name, p.reason) for p in inspected.permissions] == [
        ("workspace.read", "the tests need workspace.read")
    ]
    assert not marker.exists()
    steps = [
        ("installed", "gate.untrusted"),
        ("enabled", "gate.untrusted"),
        ("granted", "gate.untrusted"),
    ]
    with StateStore.open(home) as store:
        store.set_enabled("test.marked", True)
    for step, code in steps:
        if step == "granted":
            with StateStore.open(home) as store:
                store.grant("test.marked", ["workspace.read"], ["workspace.read"])
        async with open_gateway(
            workspace.root, config=workspace.config, transport=workspace.transport
        ) as gateway:
            assert gateway.tools() == []
            assert code in codes(gateway.diagnostics), step
        assert not marker.exists(), f"package code ran after: {step}"
    with StateStore.open(home) as store:
        store.set_trusted("test.marked", True)
        store.revoke("test.marked", ["workspace.read"])
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.tools() == []
        assert "gate.permission_missing" in codes(gateway.diagnostics)
    assert not marker.exists()
    with StateStore.open(home) as store:
        store.grant("test.marked", ["workspace.read"], ["workspace.read"])
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert [t.name for t in gateway.tools()] == ["env_value"]
    assert marker.read_text() == "imported"


async def test_a_missing_hard_dependency_leaves_the_package_inactive(
    workspace, tmp_path, monkeypatch
):
    monkeypatch.delenv("ACME_REVIEW_TOKEN", raising=False)
    package, marker = marked_package(
        tmp_path,
        workspace.config.home,
        dependencies=[
            {"kind": "environment", "name": "ACME_REVIEW_TOKEN"},
            {"kind": "environment", "name": "ACME_OPTIONAL", "optional": True},
            {"kind": "executable", "name": "definitely-not-on-path-xyz", "optional": True},
        ],
    )
    install_ready(workspace.config.home, package)
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.tools() == []
        [missing] = [d for d in gateway.diagnostics if d.code == "gate.dependency_missing"]
        assert "ACME_REVIEW_TOKEN" in missing.message
    assert not marker.exists()
    monkeypatch.setenv("ACME_REVIEW_TOKEN", "s3cret")
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert [t.name for t in gateway.tools()] == ["env_value"]


async def test_a_declared_variable_reaches_the_sidecar_only_once_the_user_passes_it(
    workspace, tmp_path, monkeypatch
):
    """Declaring OPENAI_API_KEY is no consent to receive the gateway's own key: the sidecar
    sees the variable only after `gateway permissions ID env:NAME`."""
    home = workspace.config.home
    monkeypatch.setenv("ACME_REVIEW_TOKEN", "s3cret")
    monkeypatch.setenv("NOT_DECLARED", "hidden")
    package, _ = marked_package(
        tmp_path, home, dependencies=[{"kind": "environment", "name": "ACME_REVIEW_TOKEN"}]
    )
    install_ready(home, package)
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        value = await gateway.call_tool("env_value", {"name": "ACME_REVIEW_TOKEN"})
        assert value.content == "<unset>"
    with StateStore.open(home) as store:
        store.grant("test.marked", ["env:ACME_REVIEW_TOKEN"], ["env:ACME_REVIEW_TOKEN"])
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        value = await gateway.call_tool("env_value", {"name": "ACME_REVIEW_TOKEN"})
        assert value.content == "s3cret"
        # A grant passes the one variable it names, nothing else.
        hidden = await gateway.call_tool("env_value", {"name": "NOT_DECLARED"})
        assert hidden.content == "<unset>"


async def test_a_stored_secret_reaches_the_sidecar_without_the_users_environment(
    workspace, tmp_path, monkeypatch
):
    home = workspace.config.home
    monkeypatch.delenv("ACME_REVIEW_TOKEN", raising=False)
    package, _ = marked_package(
        tmp_path, home, dependencies=[{"kind": "environment", "name": "ACME_REVIEW_TOKEN"}]
    )
    install_ready(home, package)
    set_secret(home, "test.marked", "ACME_REVIEW_TOKEN", "st0red")
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        value = await gateway.call_tool("env_value", {"name": "ACME_REVIEW_TOKEN"})
        assert value.content == "st0red"


def test_the_environment_gate_reports_presence_never_the_value(workspace, tmp_path, monkeypatch):
    home = workspace.config.home
    monkeypatch.setenv("ACME_REVIEW_TOKEN", "s3cret-value")
    package, _ = marked_package(
        tmp_path, home, dependencies=[{"kind": "environment", "name": "ACME_REVIEW_TOKEN"}]
    )
    install_ready(home, package)
    (status,) = evaluate_packages(home, load_adapters())
    data = status.to_dict()
    assert data["gates"]["dependencies"]
    assert data["environment"] == {"ACME_REVIEW_TOKEN": {"set": True, "granted": False}}
    assert "s3cret-value" not in json.dumps(data)
    with StateStore.open(home) as store:
        store.grant("test.marked", ["env:ACME_REVIEW_TOKEN"], ["env:ACME_REVIEW_TOKEN"])
    (status,) = evaluate_packages(home, load_adapters())
    assert status.environment == {"ACME_REVIEW_TOKEN": {"set": True, "granted": True}}
    assert "s3cret-value" not in json.dumps(status.to_dict())


async def test_a_missing_python_distribution_leaves_the_package_inactive(workspace, tmp_path):
    package, marker = marked_package(
        tmp_path, workspace.config.home,
        dependencies=[{"kind": "python", "name": "acme-not-installed-core", "specifier": ">=1,<2"}],
    )  # fmt: skip
    install_ready(workspace.config.home, package)
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.tools() == []
        assert "gate.dependency_missing" in codes(gateway.diagnostics)
    assert not marker.exists()


# runtime: openclaw runs in the Node sidecar's OpenClaw host (tests/openclaw/test_launch.py).
@pytest.mark.parametrize(("runtime", "reason"), [("declarative", "metadata only")])
async def test_runtimes_the_python_sidecar_does_not_run_say_why(
    workspace, tmp_path, runtime, reason
):
    root = tmp_path / "src" / runtime
    root.mkdir(parents=True)
    manifest = {"id": f"test.{runtime}", "name": runtime, "version": "1.0.0",
                "runtime": runtime,
                "contributions": [{"kind": "skill", "name": "notes"}]}  # fmt: skip
    if runtime != "declarative":
        manifest["entries"] = ["index.js"]
        (root / "index.js").write_text("export default function () {}\n")
    (root / "nanobot.extension.json").write_text(json.dumps(manifest))
    install_ready(workspace.config.home, root)
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        [unavailable] = [d for d in gateway.diagnostics if d.code == "runtime.unavailable"]
    assert unavailable.package == f"test.{runtime}" and reason in unavailable.message


async def test_a_runtime_pi_package_runs_its_entries_in_the_pi_sidecar(workspace, tmp_path):
    root = tmp_path / "src" / "pi-wrapped"
    root.mkdir(parents=True)
    (root / "index.js").write_text(
        "export default function (pi) {\n"
        "  pi.registerCommand('hello', { description: 'greets',\n"
        "    handler: async (args, ctx) => { ctx.ui.notify('hello ' + args, 'info') } })\n"
        "}\n"
    )
    manifest = {"id": "test.piwrapped", "name": "pi wrapped", "version": "1.0.0", "runtime": "pi",
                "entries": ["index.js"],
                "contributions": [{"kind": "command", "name": "hello", "description": "greets"}]}  # fmt: skip
    (root / "nanobot.extension.json").write_text(json.dumps(manifest))
    install_ready(workspace.config.home, root)
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert not [d for d in gateway.diagnostics if d.code == "runtime.unavailable"]
        command = gateway.registry.command("hello")
        assert command is not None and command.owner == "test.piwrapped"
        await gateway.run_command("hello", "world")
        messages = [n.message for _, n in gateway.session.notifications]
    assert "hello world" in messages


def test_a_reinstall_keeps_the_variables_the_user_passed(workspace, tmp_path):
    home = workspace.config.home
    package, _ = marked_package(
        tmp_path, home, dependencies=[{"kind": "environment", "name": "ACME_REVIEW_TOKEN"}]
    )
    install_ready(home, package)
    with StateStore.open(home) as store:
        store.grant("test.marked", ["env:ACME_REVIEW_TOKEN"], ["env:ACME_REVIEW_TOKEN"])
    (package / "extra.txt").write_text("new content\n")
    install(home, str(package), kind="local", inspector=load_adapters().inspect)
    with StateStore.open(home) as store:
        assert "env:ACME_REVIEW_TOKEN" in store.granted("test.marked")
