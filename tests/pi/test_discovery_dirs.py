"""Pi's discovery directories: ``<ws>/.pi/extensions`` (trusted workspaces only) and
``~/.pi/agent/extensions``, run in ONE shared sidecar through the
``extension_gateway.discoverers`` entry point."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gateway import open_gateway

pytestmark = pytest.mark.anyio


def extension(name: str) -> str:
    """A Pi extension whose command answers with its name and its process id."""
    return (
        "export default function (pi: any) {\n"
        f'\tpi.registerCommand("{name}", {{ description: "{name}", handler: async () =>\n'
        f'\t\tpi.sendMessage({{ customType: "x", content: `{name} ${{process.pid}}`, '
        "display: true }) });\n"
        "}\n"
    )


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def project_dir(ws: Any) -> Path:
    return ws.root / ".pi" / "extensions"


def user_dir(ws: Any) -> Path:
    return ws.config.user_home / ".pi" / "agent" / "extensions"


@pytest.fixture(autouse=True)
def _no_agent_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)


async def run(gateway: Any, name: str) -> str:
    out = await gateway.run_command(name)
    assert out.message is not None and out.message.startswith(f"{name} "), out
    return str(out.message).split()[-1]


async def test_project_extension_runs_only_when_trusted(workspace: Any) -> None:
    write(project_dir(workspace) / "proj.ts", extension("proj"))
    async with open_gateway(
        workspace.root, trust=False, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert "proj" not in {c.name for c in gateway.registry.commands()}
        assert not gateway.processes
        untrusted = [d for d in gateway.diagnostics if d.code == "pi.project_extensions_untrusted"]
        assert untrusted and ".pi/extensions" in untrusted[0].message
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await run(gateway, "proj")


async def test_user_extension_always_runs(workspace: Any) -> None:
    write(user_dir(workspace) / "mine.ts", extension("mine"))
    async with open_gateway(
        workspace.root, trust=False, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await run(gateway, "mine")


async def test_subdirectories_index_and_manifest(workspace: Any) -> None:
    write(user_dir(workspace) / "indexed" / "index.ts", extension("indexed"))
    listed = user_dir(workspace) / "listed"
    write(listed / "src" / "main.ts", extension("listed"))
    write(listed / "ignored.ts", extension("ignored"))
    write(
        listed / "package.json",
        json.dumps({"name": "listed", "pi": {"extensions": ["src/main.ts"]}}),
    )
    write(user_dir(workspace) / "empty" / "README.md", "no entry here")
    async with open_gateway(
        workspace.root, trust=False, config=workspace.config, transport=workspace.transport
    ) as gateway:
        await run(gateway, "indexed")
        await run(gateway, "listed")
        assert "ignored" not in {c.name for c in gateway.registry.commands()}


async def test_each_discovered_extension_runs_in_its_own_process_under_its_own_id(
    workspace: Any,
) -> None:
    write(project_dir(workspace) / "one.ts", extension("one"))
    write(user_dir(workspace) / "two.js", extension("two").replace(": any", ""))
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert sorted(p.name for p in gateway.processes) == ["pi:one.ts", "pi:two.js"]
        assert all(p.plan.members == () for p in gateway.processes)
        assert await run(gateway, "one") != await run(gateway, "two")  # two processes
        owners = {c.name: c.owner for c in gateway.registry.commands() if c.name in ("one", "two")}
        assert owners == {"one": "pi:one.ts", "two": "pi:two.js"}


async def test_nothing_discovered_starts_no_sidecar(workspace: Any) -> None:
    user_dir(workspace).mkdir(parents=True)
    (project_dir(workspace)).mkdir(parents=True)
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert not gateway.processes
        assert not [d for d in gateway.diagnostics if d.code == "runtime.unavailable"]
