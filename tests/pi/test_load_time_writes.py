"""A Pi extension that writes ``/tmp/<name>`` and ``~/.<tool>`` at load (3 of 223 packages
of a public corpus; issue 31) loads in the gateway as in Pi and registers what it
registers: its writes land in its own temp folder (its private ``/tmp``) and its private
home, never in the user's.

The workspace and homes are made outside ``/tmp`` (pytest's folders are there): a ``/tmp``
holding a folder the package may only read is not made private (docs/security.md)."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway import open_gateway
from gateway.base import GatewayConfig
from tests.conftest import Workspace

from ..sandbox.conftest import needs_landlock, needs_runtime_outside_tmp

pytestmark = pytest.mark.anyio


@pytest.fixture
def outside_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Workspace]:
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        pytest.skip("needs a writable folder outside /tmp (/dev/shm)")
    base = Path(tempfile.mkdtemp(prefix="gw-pi-load-", dir=shm))
    root, home = base / "project", base / "home"
    root.mkdir()
    home.mkdir()
    config = GatewayConfig(
        home=home / ".gateway", user_home=home, shutdown_grace=0.3, term_grace=0.5
    )
    try:
        yield Workspace(root, home, config)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def loader(name: str) -> str:
    return (
        'import * as fs from "node:fs";\n'
        'import * as os from "node:os";\n'
        "export default function (pi: any) {\n"
        f'\tfs.mkdirSync("/tmp/{name}", {{ recursive: true }});\n'
        f'\tfs.writeFileSync("/tmp/{name}/state.json", "{{}}");\n'
        '\tconst dir = os.homedir() + "/.loadtool";\n'
        "\tfs.mkdirSync(dir, { recursive: true });\n"
        '\tfs.writeFileSync(dir + "/config.json", "{}");\n'
        '\tpi.registerCommand("loaded", { description: "loaded", handler: async () =>\n'
        '\t\tpi.sendMessage({ customType: "x", content: `loaded ${dir}`, display: true }) });\n'
        "}\n"
    )


@needs_landlock
@needs_runtime_outside_tmp
async def test_an_extension_that_writes_tmp_and_home_at_load_registers(
    outside_tmp: Workspace,
) -> None:
    workspace = outside_tmp
    name = f"gw-load-{uuid.uuid4().hex}"
    folder = workspace.home / ".pi" / "agent" / "extensions"
    folder.mkdir(parents=True)
    (folder / "loader.ts").write_text(loader(name))
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        out = await gateway.run_command("loaded")
        problems = [d.message for d in gateway.diagnostics if d.severity.name == "ERROR"]
    assert out.message is not None and out.message.startswith("loaded "), (out, problems)
    private_home = Path(str(out.message).split(" ", 1)[1]).parent
    assert private_home.is_relative_to(workspace.config.home / "home")
    assert (private_home / ".loadtool" / "config.json").is_file()
    assert not (workspace.home / ".loadtool").exists()
    temp = list((workspace.config.home / "tmp").glob(f"*/{name}/state.json"))
    assert len(temp) == 1, "the write to /tmp did not land in its temp folder"
    assert not Path("/tmp", name).exists()
