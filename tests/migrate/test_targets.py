"""``gateway migrate`` to ``mcp``, ``agent-plugin``, ``nanobot`` and ``nanobot-manifest``:
each output is read by what reads it for real (the MCP SDK's client through the written
``mcpServers`` entry, an independent Agent Plugins reader from PyPI, the gateway's strict
nanobot reader and its nanobot path).

The two forms of command a target writes — this gateway by path (``python -m gateway``
here) and the bare ``gateway`` an Agent Plugin names — are each started as a process by the
MCP SDK's client (``tools_of``: the nanobot package's ``mcp`` snippet, Pi's Agent Plugin);
the other entries written with them have their arguments served in this process
(``tools_served_here``), the packages behind them real processes either way."""

from __future__ import annotations

import json
import os

import agent_plugins
import pytest

from gateway import open_gateway
from gateway.migrate import MigrationError
from gateway.migrate._schemas import schema_problems
from gateway.packages import install, load_adapters
from tests._cli import run_here
from tests.migrate._helpers import (
    SOURCES,
    config_for,
    pass_gates,
    run,
    this_gateway_first,
    tools_of,
    tools_served_here,
)
from tests.serve._helpers import GATEWAY, need_sidecar

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # the MCP client's stdio transport


async def test_the_mcp_snippet_starts_a_server_with_the_packages_tools(tmp_path):
    need_sidecar()
    home, out = tmp_path / "home", tmp_path / "out"
    migration = run(SOURCES["nanobot"], "mcp", out, home)
    pass_gates(migration, home)
    snippet = json.loads((out / "mcp.json").read_text())
    assert list(snippet) == ["mcpServers"] and list(snippet["mcpServers"]) == ["acme.review"]
    server = snippet["mcpServers"]["acme.review"]
    assert server["args"][-5:] == ["--mcp", "--package", "acme.review", "--home", str(home)]
    # This gateway by path, as every entry but an Agent Plugin's names it: started here.
    assert [server["command"], *server["args"]][: len(GATEWAY)] == GATEWAY
    assert await tools_of(server, tmp_path) == {"review_code"}


async def test_a_nu_package_migrates_to_an_mcp_server_with_its_per_call_tools(tmp_path):
    need_sidecar()
    home, out = tmp_path / "home", tmp_path / "out"
    migration = run(SOURCES["nu"], "mcp", out, home)
    pass_gates(migration, home)
    server = json.loads((out / "mcp.json").read_text())["mcpServers"]["nu-changelog"]
    assert await tools_served_here(server, tmp_path) == {"changelog__entry", "changelog__release"}


def test_a_nu_package_has_no_nanobot_manifest_form_and_says_which_targets_it_has(tmp_path):
    migration = run(SOURCES["nu"], "nanobot-manifest", tmp_path / "out", tmp_path / "home")
    assert not migration.ok and not (tmp_path / "out" / "nanobot.extension.json").exists()
    [refusal] = [n for n in migration.notes if n.code == "migrate.target_unsupported"]
    assert "try --to nanobot, nimlet, mcp or agent-plugin" in refusal.message


async def test_an_agent_plugin_is_read_by_an_independent_reader_and_its_server_runs(tmp_path):
    need_sidecar()
    home, out = tmp_path / "home", tmp_path / "out"
    migration = run(SOURCES["pi"], "agent-plugin", out, home, load=True)
    pass_gates(migration, home)
    manifest = json.loads((out / "plugin.json").read_text())
    mcp = json.loads((out / "mcp.json").read_text())
    assert schema_problems("plugin", manifest) == [] and schema_problems("mcp", mcp) == []
    plugin = agent_plugins.Plugin(out)
    assert plugin.manifest.name == "pi-tickets" and plugin.manifest.issues == ()
    assert [skill.name for skill in plugin.skills] == ["triage"]
    assert list(plugin.mcp.servers) == ["pi-tickets"] and plugin.mcp.issues == ()
    server = mcp["mcpServers"]["pi-tickets"]
    # A bare program name (the spec's rule), run as written: `gateway serve --mcp ...`.
    assert server["command"] == "gateway" and server["args"][:2] == ["serve", "--mcp"]
    assert await tools_of(server, tmp_path, this_gateway_first(tmp_path)) >= {"open_ticket"}


async def test_a_nanobot_manifest_from_a_pi_package_runs_through_the_nanobot_path(tmp_path):
    need_sidecar()
    out = tmp_path / "out"
    migration = run(SOURCES["pi"], "nanobot-manifest", out, tmp_path / "home", load=True)
    assert migration.ok, [d.message for d in migration.notes]
    entry = load_adapters().inspect(out)
    assert entry.ecosystem == "nanobot" and entry.ok
    assert entry.metadata["nanobot_runtime"] == "pi" and entry.enforce_declared
    declared = {(c.kind, c.name) for c in entry.contributions}
    assert {("tool", "open_ticket"), ("command", "more-tools"), ("hook", "tool_call")} <= declared
    # Installed and run by the gateway as a nanobot package (runtime pi).
    home = tmp_path / "run-home"
    report = install(home, str(out), kind="local", inspector=load_adapters().inspect)
    assert report.package.record.ecosystem == "nanobot"

    class _M:
        package = migration.package

    _M.package = type(migration.package)(report.entry, report.package.record.path, True)
    pass_gates(_M, home)  # type: ignore[arg-type]
    workspace = tmp_path / "ws"
    workspace.mkdir()
    async with open_gateway(workspace, config=config_for(home)) as gateway:
        owners = {t["owner"] for t in gateway.tool_schemas()}
        result = await gateway.call_tool("open_ticket", {"title": "nb"})
    assert owners == {"pi-tickets"}
    assert result.content.startswith("ticket opened: nb")


def test_a_nimlet_extension_has_no_nanobot_manifest_form(tmp_path):
    out = tmp_path / "out"
    migration = run(SOURCES["nimlet"], "nanobot-manifest", out, tmp_path / "home")
    assert not migration.ok
    assert [d.code for d in migration.notes] == ["migrate.target_unsupported"]
    assert "`migrate.target_unsupported`" in (out / "MIGRATION.md").read_text()
    assert not (out / "nanobot.extension.json").exists()


def test_without_load_nothing_runs_and_with_it_only_in_the_sandbox(tmp_path):
    need_sidecar()
    marker = tmp_path / "ran.txt"
    package = tmp_path / "loud"
    package.mkdir()
    (package / "package.json").write_text(json.dumps(
        {"name": "loud", "version": "1.0.0", "keywords": ["pi-package"],
         "pi": {"extensions": ["./index.ts"]}}
    ))  # fmt: skip
    (package / "index.ts").write_text(
        'import { writeFileSync } from "node:fs";\n'
        'import { Type } from "typebox";\n'
        "export default function (pi: any) {\n"
        f"  try {{ writeFileSync({json.dumps(str(marker))}, 'loaded'); }} catch {{}}\n"
        '  pi.registerTool({ name: "shout", label: "Shout", description: "Shout",\n'
        "    parameters: Type.Object({}), async execute() { return { content: [] }; } });\n"
        "}\n"
    )
    static = run(package, "nanobot-manifest", tmp_path / "static", tmp_path / "home")
    assert not marker.exists()
    assert "migrate.contributions_unknown" in {d.code for d in static.notes}
    loaded = run(package, "nanobot-manifest", tmp_path / "loaded", tmp_path / "home", load=True)
    # It ran (its tool was seen), but its write outside the throwaway folder was refused.
    assert [t["name"] for t in loaded.observation.tools] == ["shout"]
    assert loaded.observation.known == "observed"
    assert not marker.exists()


def test_the_output_folder_must_be_empty_unless_forced(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(MigrationError) as refused:
        run(SOURCES["nanobot"], "mcp", out, tmp_path / "home")
    assert refused.value.diagnostic.code == "migrate.out_not_empty"
    assert (out / "keep.txt").read_text() == "mine"
    run(SOURCES["nanobot"], "mcp", out, tmp_path / "home", force=True)
    assert sorted(p.name for p in out.iterdir()) == ["MIGRATION.md", "mcp.json"]


def test_a_source_that_is_no_package_is_refused(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(MigrationError) as refused:
        run(empty, "nimlet", tmp_path / "out", tmp_path / "home")
    assert refused.value.diagnostic.code == "migrate.source_unusable"


def test_the_cli_writes_json_and_exits_0(tmp_path):
    done = run_here(
        ["migrate", str(SOURCES["nanobot"]), "--to", "mcp", "--out", str(tmp_path / "out"),
         "--json"],
        env={**os.environ, "GATEWAY_HOME": str(tmp_path / "home")}, cwd=os.getcwd(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["target"] == "mcp" and report["package"] == "acme.review"
    assert {item["code"] for item in report["not_carried"]} == {"migrate.gates_pending",
                                                                "migrate.installed"}  # fmt: skip


async def test_an_openclaw_plugin_as_an_mcp_server(tmp_path):
    from tests.serve._helpers import REPO

    need_sidecar()
    home, out = tmp_path / "home", tmp_path / "out"
    # The project's example: its one tool is in its manifest's contracts.tools (a plugin
    # without one, as @ollama/openclaw-web-search, has its tools refused, as in OpenClaw).
    plugin = REPO / "examples/packages/house-style"
    migration = run(plugin, "mcp", out, home, load=True)
    assert [t["name"] for t in migration.observation.tools] == ["style_guide"]
    pass_gates(migration, home)
    (server,) = json.loads((out / "mcp.json").read_text())["mcpServers"].values()
    assert await tools_served_here(server, tmp_path) == {"style_guide"}
