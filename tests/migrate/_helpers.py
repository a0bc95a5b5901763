"""A gateway home to migrate from, the steps a user takes after a migration (the gates
MIGRATION.md lists), done as the user would with the store, and the tools a written
``mcpServers`` entry serves: its command started as a process (``tools_of``), or its
arguments served in this process (``tools_served_here``)."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from gateway import GatewayConfig
from gateway.migrate import Migration, migrate
from gateway.store import StateStore
from tests.serve._helpers import GATEWAY, NANOBOT, NIMLET, PI, REPO
from tests.serve._here import serve_here

NU = REPO / "examples" / "packages" / "nu-changelog"
SOURCES = {"pi": PI, "nanobot": NANOBOT, "nimlet": NIMLET, "nu": NU}


def config_for(home: Path) -> GatewayConfig:
    return GatewayConfig(home=home, user_home=home.parent / "user")


def run(source: Path | str, target: str, out: Path, home: Path, **options) -> Migration:
    return migrate(str(source), target, out, config=config_for(home), gateway_command=GATEWAY,
                   **options)  # fmt: skip


def pass_gates(migration: Migration, home: Path) -> None:
    """What MIGRATION.md's "Before it runs" asks of the user: grant, trust, enable."""
    wanted = [p.name for p in migration.package.entry.permissions]
    with StateStore.open(home) as store:
        store.grant(migration.package.id, wanted, wanted)
        store.set_trusted(migration.package.id, True)
        store.set_enabled(migration.package.id, True)


def into_workspace(out: Path, workspace: Path) -> None:
    """``cp -r OUT/. WORKSPACE/`` (MIGRATION.md's recipe for the nimlet target)."""
    shutil.copytree(out, workspace, dirs_exist_ok=True)


async def tools_of(server: dict, cwd: Path, path: str | None = None) -> set[str]:
    """The tools of a written ``mcpServers`` entry, its command started as the MCP client
    starts it (a process; the MCP SDK's ``stdio_client``)."""
    params = StdioServerParameters(
        command=server["command"], args=server["args"], cwd=str(cwd),
        env={"PATH": path or os.environ["PATH"], "HOME": os.environ.get("HOME", "/")},
    )  # fmt: skip
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return {tool.name for tool in (await session.list_tools()).tools}


async def tools_served_here(server: dict, cwd: Path) -> set[str]:
    """The tools of a written ``mcpServers`` entry whose command is this gateway's ``serve
    --mcp`` (``python -m gateway`` or the bare ``gateway``, the two forms a target writes,
    each started as a process by ``tools_of`` in test_targets): its arguments served in this
    process (``tests/serve/_here``: the CLI's parser and options, the product's
    ``serve_mcp``), with the environment the client gives the process."""
    argv = [server["command"], *server["args"]]
    at = argv.index("serve")
    assert argv[:at] in (GATEWAY, ["gateway"]) and argv[at + 1] == "--mcp", argv
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/")}
    async with serve_here(argv[at + 2 :], env=env, cwd=cwd) as session:
        return {tool.name for tool in (await session.list_tools()).tools}


def this_gateway_first(folder: Path) -> str:
    """A PATH on which `gateway` is this checkout's (a script running this Python's ``-m
    gateway``), whatever `gateway` the machine's PATH has (another venv's, an installed
    one) or lacks: the plugin's bare command then runs the gateway under test."""
    bin_dir = folder / "this-gateway"
    bin_dir.mkdir()
    script = bin_dir / "gateway"
    script.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m gateway "$@"\n')
    script.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
