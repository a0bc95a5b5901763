"""``gateway migrate PKG --to nanobot`` writes what released nanobot (0.3.x) loads: an Agent
Plugin (read here by the independent ``agent_plugins`` reader, and held to the stricter
rules of released nanobot's own loader, nanobot/agent/plugins.py), whose MCP server runs the
package; MIGRATION.md gives released nanobot's real install and enable steps."""

from __future__ import annotations

import json
import os
import re

import agent_plugins
import pytest

from gateway.migrate import Migration
from gateway.migrate._schemas import MCP_SCHEMA_ID, PLUGIN_SCHEMA_ID
from tests._cli import run_here
from tests.migrate._helpers import SOURCES, pass_gates, run, tools_served_here
from tests.serve._helpers import need_sidecar

# Released nanobot's plugin-name rule (nanobot/agent/plugins.py, _PLUGIN_NAME, <= 64).
NANOBOT_PLUGIN_NAME = re.compile(r"^(?!.*(?:--|\.\.))[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$")


def _read_plugin(out):
    plugin = agent_plugins.Plugin(out)
    assert plugin.manifest.issues == () and plugin.mcp.issues == ()
    manifest = json.loads((out / "plugin.json").read_text())
    mcp = json.loads((out / "mcp.json").read_text())
    # What released nanobot requires beyond the spec: the exact schema ids, nothing else
    # in mcp.json, a stdio server with a bare command.
    assert manifest["$schema"] == PLUGIN_SCHEMA_ID and set(mcp) == {"$schema", "mcpServers"}
    assert mcp["$schema"] == MCP_SCHEMA_ID
    assert NANOBOT_PLUGIN_NAME.fullmatch(manifest["name"]) and len(manifest["name"]) <= 64
    for server in mcp["mcpServers"].values():
        assert set(server) <= {"type", "command", "args", "env", "cwd"}
        assert server["type"] == "stdio" and "/" not in server["command"]
    return plugin, manifest, mcp


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Migration:
    """``pi-tickets`` migrated ``--to nanobot --load`` (the throwaway load, ~1 s of CPU),
    once for the two tests that read it: one serves what was written, the other reads what
    the migration says it carried."""
    need_sidecar()
    folder = tmp_path_factory.mktemp("nanobot-target")
    return run(SOURCES["pi"], "nanobot", folder / "out", folder / "home", load=True)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_pi_package_becomes_an_agent_plugin_whose_server_runs_its_tools(
    loaded, tmp_path, anyio_backend
):
    # The server's bare `gateway` is the Agent Plugin's (test_targets starts it as a
    # process); its arguments are served here.
    out = loaded.out
    pass_gates(loaded, out.parent / "home")
    plugin, manifest, mcp = _read_plugin(out)
    assert manifest["name"] == "pi-tickets" and [s.name for s in plugin.skills] == ["triage"]
    assert not (out / "nanobot.extension.json").exists()
    server = mcp["mcpServers"]["pi-tickets"]
    assert server["command"] == "gateway" and server["args"][:2] == ["serve", "--mcp"]
    assert await tools_served_here(server, tmp_path) >= {"open_ticket"}


def test_each_tool_and_command_is_listed_under_the_name_nanobot_gives_it(loaded):
    how = {(c.kind, c.name): c.how for c in loaded.carried}
    assert how["tool", "open_ticket"] == "a nanobot tool `mcp_pi-tickets_open_ticket`"
    assert how["command", "more-tools"].startswith(
        "a nanobot tool `mcp_pi-tickets_prompt_more-tools`"
    )


def test_migration_md_gives_released_nanobots_install_and_enable_steps(tmp_path):
    out = tmp_path / "out"
    run(SOURCES["pi"], "nanobot", out, tmp_path / "home")
    text = (out / "MIGRATION.md").read_text()
    assert f"cp -r {out} ~/.nanobot/workspace/plugins/pi-tickets" in text
    assert "Settings → MCP, the Agent Plugin `pi-tickets` → Enable" in text
    assert (
        "set_agent_plugin_enabled(Path('~/.nanobot/workspace').expanduser(), 'pi-tickets', True)"
        in text
    )
    assert "Agent Plugin" in text and "nanobot extensions install" not in text


def test_a_nu_package_has_a_nanobot_form_served_by_the_gateway(tmp_path):
    out = tmp_path / "out"
    migration = run(SOURCES["nu"], "nanobot", out, tmp_path / "home")
    assert migration.ok, [n.message for n in migration.notes]
    _, manifest, mcp = _read_plugin(out)
    assert manifest["name"] == "nu-changelog"
    args = mcp["mcpServers"]["nu-changelog"]["args"]
    assert args[args.index("serve") :][:4] == ["serve", "--mcp", "--package", "nu-changelog"]


def test_a_package_id_nanobot_would_refuse_is_adjusted_to_its_name_rule(tmp_path):
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    package = {"name": "@Acme/a..b--c" + "x" * 80, "version": "1.0.0",
               "keywords": ["pi-package"], "pi": {}}  # fmt: skip
    (src / "package.json").write_text(json.dumps(package))
    migration = run(src, "nanobot", out, tmp_path / "home")
    _, manifest, _ = _read_plugin(out)
    assert manifest["name"].startswith("acme-a.b-cxxx")
    assert any(n.code == "migrate.name_adjusted" for n in migration.notes)


def test_the_cli_says_it_targets_released_nanobots_agent_plugins(tmp_path):
    done = run_here(
        ["migrate", str(SOURCES["nanobot"]), "--to", "nanobot", "--out", str(tmp_path / "out")],
        env={**os.environ, "GATEWAY_HOME": str(tmp_path / "home")}, cwd=os.getcwd(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "released nanobot's Agent Plugins support (nanobot 0.3.x)" in done.stdout
    assert (tmp_path / "out" / "plugin.json").is_file()
