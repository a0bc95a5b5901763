"""One MCP server of a plugin's failing is not the plugin failing: the others' tools are
offered, ``status`` calls it active, and the start is never served from the registration
cache (the next load starts the failed server again). A plugin none of whose servers
started, offering nothing else, failed to load (``agent_plugins.no_server_started``)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest

from gateway import open_gateway
from gateway.sandbox import package_dirs
from tests.gateway.packages._helpers import install_from, make_ready

from ._helpers import BROKEN, lite_calc, write_plugin

pytestmark = pytest.mark.anyio


def _server(script: str) -> dict[str, Any]:
    return {"type": "stdio", "command": "python3", "args": [f"${{PLUGIN_ROOT}}/{script}"]}


FLAKY = """\
import os, runpy, sys

if not os.path.exists(os.path.join(os.environ["PLUGIN_DATA"], "ready")):
    sys.exit("flaky server: not ready")
sys.argv = [os.path.join(os.environ["PLUGIN_ROOT"], "calc.py")]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
"""A server that starts once its data folder holds ``ready`` (the package's own files stay
as installed: changing them would be new content, untrusted)."""


def _plugin(root: Path, servers: dict[str, str]) -> Path:
    plugin = write_plugin(root, servers={name: _server(s) for name, s in servers.items()})
    lite_calc(plugin)
    shutil.copy(BROKEN, plugin / "broken.py")
    (plugin / "flaky.py").write_text(FLAKY)
    return plugin


async def _open(workspace: Any) -> tuple[dict[str, Any], set[str], set[tuple[str, str]]]:
    """Each package's status, the tools offered, (package, code) of each diagnostic."""
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        statuses = {s.id: s for s in gateway.packages}
        tools = {t.name for t in gateway.tools()}
        codes = {(d.package or "", d.code) for d in gateway.diagnostics}
    return statuses, tools, codes


def _installed(workspace: Any, plugin: Path) -> str:
    """``plugin`` installed, trusted, granted and enabled; its id."""
    home = workspace.config.home
    report = install_from(home, plugin)
    make_ready(home, report.package.id)
    return report.package.id


def test_one_failed_server_of_two_leaves_the_plugin_active_and_uncached(
    workspace: Any, tmp_path: Path
) -> None:
    package_id = _installed(
        workspace, _plugin(tmp_path / "two", {"calc": "calc.py", "later": "flaky.py"})
    )
    statuses, tools, codes = anyio.run(_open, workspace)
    assert statuses["two"].active and statuses["two"].load_failure is None
    assert any(name.endswith("calc_add") for name in tools), tools
    assert not any("later" in name for name in tools)
    assert ("two", "agent_plugins.server_failed") in codes
    assert ("two", "agent_plugins.no_server_started") not in codes

    # The failed server now works: the next load starts it (nothing served from a cache).
    data = package_dirs(workspace.config.home, package_id)[0]
    (data / "ready").write_text("")
    statuses, tools, codes = anyio.run(_open, workspace)
    assert any(name.endswith("later_add") for name in tools), (tools, codes)
    assert ("two", "agent_plugins.server_failed") not in codes
    assert statuses["two"].active


def test_a_plugin_whose_only_server_failed_failed_to_load(workspace: Any, tmp_path: Path) -> None:
    _installed(workspace, _plugin(tmp_path / "lone", {"only": "broken.py"}))
    statuses, _, codes = anyio.run(_open, workspace)
    assert ("lone", "agent_plugins.no_server_started") in codes
    assert ("lone", "agent_plugins.server_failed") not in codes  # said once, with its reason
    assert not statuses["lone"].active
    failure = statuses["lone"].load_failure or ""
    assert failure.startswith("no MCP server of the plugin started (1 of 1 failed); 'only'")


def test_when_every_server_failed_each_failure_is_said_once(workspace: Any, tmp_path: Path) -> None:
    """The plugin's failed start names its first server and why; the others' own
    ``server_failed`` say theirs."""
    _installed(workspace, _plugin(tmp_path / "all", {"one": "broken.py", "two": "broken.py"}))

    async def said() -> list[tuple[str, str | None]]:
        async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
            return [(d.code, d.contribution) for d in gateway.diagnostics if d.package == "all"]

    assert sorted(anyio.run(said), key=str) == [
        ("agent_plugins.no_server_started", None),  # names 'one' and why
        ("agent_plugins.server_failed", "two"),
    ]


def test_a_server_whose_command_is_on_no_path_is_said_once(workspace: Any, tmp_path: Path) -> None:
    """The gateway says the command is missing (with how to install it); the plugin host's
    own failure to start that server would say it again, and does not."""
    plugin = _plugin(tmp_path / "gone", {"calc": "calc.py"})
    write_plugin(
        plugin,
        servers={
            "calc": _server("calc.py"),
            "absent": {"type": "stdio", "command": "no-such-command-on-any-path"},
        },
    )
    _installed(workspace, plugin)
    statuses, tools, codes = anyio.run(_open, workspace)
    assert ("gone", "agent_plugins.command_not_found") in codes
    assert ("gone", "agent_plugins.server_failed") not in codes
    assert statuses["gone"].active and any(name.endswith("calc_add") for name in tools)
