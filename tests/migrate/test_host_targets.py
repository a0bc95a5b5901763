"""``--to gemini-extension`` and ``--to codex-plugin``: the output is what each host's reader
(the gateway's strict Gemini CLI and Codex readers) loads without a diagnostic, its one stdio
server is ``gateway serve --mcp`` and serves the package's tools (its arguments served in this
process, ``tools_served_here``: the command is the one test_targets starts as a process),
its skills are copied."""

from __future__ import annotations

import json

import pytest

from adapters.codex import CodexAdapter
from adapters.gemini import GeminiAdapter
from tests.migrate._helpers import SOURCES, pass_gates, run, tools_served_here
from tests.serve._helpers import need_sidecar

pytestmark = pytest.mark.slow  # measured long: scheduled first (tests/conftest.py)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_a_package_becomes_a_gemini_extension_gemini_cli_can_load(tmp_path):
    need_sidecar()
    home, out = tmp_path / "home", tmp_path / "out"
    migration = run(SOURCES["pi"], "gemini-extension", out, home, load=True)
    pass_gates(migration, home)
    entry = GeminiAdapter().inspect(out)
    assert entry.ok and entry.id == "pi-tickets" and entry.diagnostics == []
    assert [c.name for c in entry.contributions if c.kind == "skill"] == ["triage"]
    server = json.loads((out / "gemini-extension.json").read_text())["mcpServers"]["pi-tickets"]
    assert server["args"][-5:-3] == ["--mcp", "--package"]
    assert "open_ticket" in await tools_served_here(server, tmp_path)
    assert any("mcp_pi-tickets_open_ticket" in item.how for item in migration.carried)


@pytest.mark.anyio
async def test_a_package_becomes_a_codex_plugin_codex_can_load(tmp_path):
    need_sidecar()
    home, out = tmp_path / "home", tmp_path / "out"
    migration = run(SOURCES["pi"], "codex-plugin", out, home, load=True)
    pass_gates(migration, home)
    entry = CodexAdapter().inspect(out)
    assert entry.ok and entry.id == "pi-tickets" and entry.diagnostics == []
    assert [c.name for c in entry.contributions if c.kind == "skill"] == ["pi-tickets:triage"]
    server = json.loads((out / ".mcp.json").read_text())["mcpServers"]["pi-tickets"]
    assert "open_ticket" in await tools_served_here(server, tmp_path)
    assert any("mcp__pi-tickets__open_ticket" in item.how for item in migration.carried)
