"""Installed nimlet packages that pass every gate run like discovered extensions; any other
installed package never starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway import open_gateway
from gateway.sandbox import package_dirs
from tests.gateway.packages._helpers import cli, cli_json, install_from, make_ready, nimlet

NAME = "pkg-ext"


def install_extension(workspace, tmp_path: Path, **gates: bool) -> Path:
    """Install the marker-writing extension package; returns the marker path."""
    # Where its confined process may write: its data folder under GATEWAY_HOME.
    marker = package_dirs(workspace.config.home, NAME)[0] / "started"
    install_from(workspace.config.home, nimlet(tmp_path / "src" / NAME, NAME, marker))
    make_ready(workspace.config.home, NAME, **gates)
    return marker


@pytest.mark.anyio
async def test_trusted_enabled_nimlet_package_runs_like_a_discovered_extension(
    workspace, tmp_path: Path
) -> None:
    marker = install_extension(workspace, tmp_path)
    async with open_gateway(
        workspace.root, trust=False, config=workspace.config, transport=workspace.transport
    ) as gateway:
        (status,) = gateway.packages
        assert status.id == NAME and status.active
        tool = gateway.registry.tool("pkg_echo")
        assert tool is not None and tool.owner == NAME
        assert [p.name for p in gateway.processes] == [NAME]
        result = await gateway.call_tool("pkg_echo", {"x": 1})
        codes = [d.code for d in gateway.diagnostics]
    assert (result.content, result.is_error, result.blocked) == ('echo {"x": 1}', False, False)
    assert marker.read_text() == "started\n"
    assert not any(code.startswith("gate.") for code in codes), codes


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("gates", "code"),
    [({"trust": False}, "gate.untrusted"), ({"enable": False}, "gate.disabled")],
    ids=["untrusted", "disabled"],
)
async def test_untrusted_or_disabled_package_never_starts(
    workspace, tmp_path: Path, gates: dict[str, bool], code: str
) -> None:
    marker = install_extension(workspace, tmp_path, **gates)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        (status,) = gateway.packages
        assert not status.active
        assert gateway.registry.tool("pkg_echo") is None
        assert gateway.processes == []
        assert code in [d.code for d in gateway.diagnostics]
    assert not marker.exists()  # the process never ran


def test_active_package_is_listed_and_called_on_the_cli_with_the_package_as_owner(
    workspace, tmp_path: Path
) -> None:
    marker = install_extension(workspace, tmp_path)
    home, root = workspace.config.home, str(workspace.root)
    listing = cli_json(home, "list", "--workspace", root)
    assert [(t["name"], t["owner"]) for t in listing["tools"]] == [("pkg_echo", NAME)]
    done = cli(home, "call", "pkg_echo", '{"y": 2}', "--workspace", root, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"] == 'echo {"y": 2}'
    assert marker.read_text() == "started\n" * 2  # one process per gateway run


def test_disabled_package_is_not_listed_on_the_cli(workspace, tmp_path: Path) -> None:
    marker = install_extension(workspace, tmp_path, enable=False)
    listing = cli_json(workspace.config.home, "list", "--workspace", str(workspace.root))
    assert listing["tools"] == []
    assert "gate.disabled" in [d["code"] for d in listing["diagnostics"]]
    assert not marker.exists()
