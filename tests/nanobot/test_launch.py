"""The launch plan for nanobot packages, and the sidecar's start-up discipline."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.nanobot import SIDECAR_COMMAND, config_path
from adapters.registry import BUILTIN, inspect_package
from gateway import packages
from gateway.model import CatalogEntry, LaunchRefusal, LaunchSpec

from ._helpers import Sidecar, write_package


def plan_launch(entry: CatalogEntry, home: Path) -> LaunchSpec | LaunchRefusal | None:
    return packages.plan_launch(BUILTIN, entry, home)


def python_package(tmp_path: Path) -> Path:
    return write_package(
        tmp_path / "p", "acme.launch", "def register(api): pass\n",
        dependencies=[
            {"kind": "environment", "name": "ACME_SET"},
            {"kind": "environment", "name": "ACME_UNSET", "optional": True},
            {"kind": "executable", "name": "sh"},
        ],
    )  # fmt: skip


def test_a_python_package_runs_in_the_python_sidecar(tmp_path, monkeypatch):
    monkeypatch.setenv("ACME_SET", "value")
    monkeypatch.delenv("ACME_UNSET", raising=False)
    monkeypatch.delenv("GATEWAY_NANOBOT_TIMEOUT", raising=False)
    entry = inspect_package(python_package(tmp_path))
    spec = plan_launch(entry, tmp_path / "home")
    assert isinstance(spec, LaunchSpec)
    assert spec.command == [
        *SIDECAR_COMMAND, "--package", entry.root,
        "--data-dir", str(tmp_path / "home" / "data"),
    ]  # fmt: skip
    # Declared, set, yet not passed: the host adds only what the user granted (env:NAME).
    assert spec.env == {}
    assert spec.response_timeout == 30.0


def test_the_configuration_is_passed_as_a_private_file_never_on_the_command_line(tmp_path):
    """`ps` shows every process's command line to every user: the API key in a package's
    configuration must not be in it."""
    entry = inspect_package(python_package(tmp_path))
    config = config_path(tmp_path / "home", entry.id)
    config.parent.mkdir(parents=True)
    config.write_text('{"api_key": "sk-very-secret"}')
    config.chmod(0o644)
    spec = plan_launch(entry, tmp_path / "home")
    assert isinstance(spec, LaunchSpec)
    assert not any("sk-very-secret" in part for part in spec.command)
    assert spec.command[-2:] == ["--config-file", f"{entry.id}={config}"]
    assert stat.S_IMODE(config.stat().st_mode) == 0o600


def test_the_sidecar_reads_its_configuration_from_the_file(tmp_path):
    package = write_package(
        tmp_path / "p", "acme.cfg",
        "def register(api):\n    assert api.config == {'api_key': 'sk-1'}, api.config\n",
    )  # fmt: skip
    with Sidecar(
        package, data_dir=tmp_path / "data", config={"acme.cfg": {"api_key": "sk-1"}}
    ) as car:
        assert car.register()["gateway"]["diagnostics"] == []


def test_a_configuration_file_that_cannot_be_read_is_a_diagnostic(tmp_path):
    package = write_package(tmp_path / "p", "acme.gone", "def register(api): pass\n")
    command = [*SIDECAR_COMMAND, "--package", str(package),
               "--data-dir", str(tmp_path / "data"),
               "--config-file", f"acme.gone={tmp_path / 'missing.json'}"]  # fmt: skip
    init = json.dumps({"type": "initialize", "gateway": {"features": ["register.diagnostics"]}})
    done = subprocess.run(command, input=init + "\n", capture_output=True, text=True, timeout=60)
    register = json.loads(done.stdout.splitlines()[0])
    [diagnostic] = register["gateway"]["diagnostics"]
    assert diagnostic["code"] == "nanobot.config_invalid" and "cannot read" in diagnostic["message"]


@pytest.mark.parametrize(("raw", "timeout"), [("2.5", 2.5), ("none", None), ("x", 30.0),
                                              ("-1", 30.0)])  # fmt: skip
def test_the_response_timeout_comes_from_the_environment(tmp_path, monkeypatch, raw, timeout):
    monkeypatch.setenv("GATEWAY_NANOBOT_TIMEOUT", raw)
    spec = plan_launch(inspect_package(python_package(tmp_path)), tmp_path / "home")
    assert isinstance(spec, LaunchSpec) and spec.response_timeout == timeout


def test_a_runtime_pi_package_is_planned_on_the_pi_sidecar(tmp_path):
    manifest = {"id": "acme.other", "name": "other", "version": "1", "runtime": "pi",
                "entry": "index.js"}  # fmt: skip
    (tmp_path / "index.js").write_text("")
    (tmp_path / "nanobot.extension.json").write_text(json.dumps(manifest))
    spec = plan_launch(inspect_package(tmp_path), tmp_path / "home")
    assert isinstance(spec, LaunchSpec)
    assert any(part.endswith("sidecar.mjs") for part in spec.command)
    assert json.loads(spec.command[-1])["packages"][0]["host"] == "pi"


def test_a_runtime_openclaw_package_is_planned_on_the_sidecars_openclaw_host(tmp_path):
    manifest = {"id": "acme.claw", "name": "claw", "version": "1", "runtime": "openclaw",
                "entry": "index.js",
                "contributions": [{"kind": "tool", "name": "claw_tool", "description": "t"}]}  # fmt: skip
    (tmp_path / "index.js").write_text("")
    (tmp_path / "nanobot.extension.json").write_text(json.dumps(manifest))
    spec = plan_launch(inspect_package(tmp_path), tmp_path / "home")
    assert isinstance(spec, LaunchSpec)
    (package,) = json.loads(spec.command[-1])["packages"]
    assert package["host"] == "openclaw" and package["pluginId"] == "acme.claw"
    assert package["contractsTools"] == ["claw_tool"] and package["conversationAccess"] is False
    assert spec.env["HOME"].startswith(str(tmp_path / "home" / "openclaw"))


def test_a_declarative_package_is_refused_with_the_reason(tmp_path):
    manifest = {"id": "acme.other", "name": "other", "version": "1", "runtime": "declarative"}
    (tmp_path / "nanobot.extension.json").write_text(json.dumps(manifest))
    refusal = plan_launch(inspect_package(tmp_path), tmp_path / "home")
    assert isinstance(refusal, LaunchRefusal)
    assert "metadata only" in refusal.reason and "runtime not available" in refusal.reason


def test_the_sidecar_also_starts_with_python_dash_m():
    done = subprocess.run(
        [sys.executable, "-m", "adapters.nanobot.sidecar", "--help"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0 and "--package ROOT" in done.stdout


def test_register_happens_before_the_host_pydantic_or_asyncio_are_imported(tmp_path):
    """The sidecar reads the core's vocabulary (light modules) but never loads the host."""
    source = """
import json, sys

class Modules:
    name = "modules"
    description = "modules loaded when register ran"
    parameters = {"type": "object", "properties": {}}

    def __init__(self, loaded):
        self.loaded = loaded

    async def execute(self):
        return json.dumps(self.loaded)

def register(api):
    heavy = ("gateway.host._gateway", "gateway.wire.protocol", "adapters.registry", "pydantic", "anyio",
             "asyncio", "jsonschema", "logging")
    light = ("gateway.base.names", "gateway.wire.features")
    api.register_tool(Modules([name for name in heavy if name in sys.modules]
                              + [name for name in light if name not in sys.modules]))
"""
    package = write_package(tmp_path / "p", "test.modules", source, tools=["modules"])
    with Sidecar(package, data_dir=tmp_path / "data") as sidecar:
        sidecar.register()
        loaded = json.loads(sidecar.tool("1", "modules")["content"])
    assert loaded == []


def test_duplicate_contribution_names_refuse_the_install(tmp_path):
    from gateway.packages import InstallError, install, load_adapters

    package = write_package(tmp_path / "p", "test.dup", "def register(api): pass\n",
                            tools=["same", "same"])  # fmt: skip
    with pytest.raises(InstallError) as refused:
        install(tmp_path / "home", str(package), kind="local", inspector=load_adapters().inspect)
    assert "nanobot.manifest_duplicate" in [d.code for d in refused.value.diagnostics]


def test_a_long_id_writes_into_the_data_folder_the_sandbox_grants(tmp_path):
    """The launch plan, the sidecar and the sandbox name a package's data folder alike; for
    an id over 64 characters they did not, and the sidecar could not write its own."""
    from adapters.nanobot.sidecar._api import safe_folder_name
    from gateway.sandbox import package_dirs

    long_id = "acme." + "x" * 80
    entry = inspect_package(write_package(tmp_path / "p", long_id, "def register(api): pass\n"))
    spec = plan_launch(entry, tmp_path / "home")
    assert isinstance(spec, LaunchSpec)
    data, _ = package_dirs(tmp_path / "home", long_id, create=False)
    assert spec.writes == (data,) and data.is_dir()
    assert data == tmp_path / "home" / "data" / safe_folder_name(long_id)
    assert safe_folder_name("acme.review") == "acme.review"
