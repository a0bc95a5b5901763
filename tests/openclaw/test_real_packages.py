"""Real OpenClaw packages from npm, packed into tests/fixtures/npm (no network at test
time), installed through the CLI and the Python API, gated, and run in the sidecar:
@ollama/openclaw-web-search, @mem0/openclaw-mem0 (against a local stand-in for the Mem0
API), jasper-context-compactor and @openclaw/nostr."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import pytest

from gateway import open_gateway
from gateway.packages import config_path, write_package_config
from gateway.packages.secrets import secrets_path
from gateway.store import StateStore

from .conftest import NPM_FIXTURES, cli, cli_json, config_for, install_ready, messages

pytestmark = [pytest.mark.anyio, pytest.mark.slow(2)]

OLLAMA = "ollama-openclaw-web-search-0.2.2.tgz"
MEM0 = "mem0-openclaw-mem0-1.0.16.tgz"
JASPER = "jasper-context-compactor-0.4.1.tgz"
NOSTR = "openclaw-nostr-2026.9.5.tgz"
MEM0_ID = "@mem0/openclaw-mem0"
MEM0_TOOLS = {
    "memory_search", "memory_add", "memory_get", "memory_list",
    "memory_update", "memory_delete", "memory_event_list", "memory_event_status",
}  # fmt: skip


def unsupported(gateway: Any, package: str) -> list[str]:
    return [
        d.message
        for d in gateway.diagnostics
        if d.code == "openclaw.unsupported_api" and d.package == package
    ]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "user" / ".gateway"


@pytest.fixture(scope="module")
def mem0_installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """@mem0/openclaw-mem0 installed once for its two tests: unpacking its 3,700 files and
    the checks of its sources are most of what a test of it costs."""
    home = tmp_path_factory.mktemp("mem0") / "user" / ".gateway"
    install_ready(home, NPM_FIXTURES / MEM0, kind="npm", grant=("conversation_access",))
    return home


@pytest.fixture
def mem0_home(mem0_installed: Path) -> Path:
    """The module's mem0 home as install left it, whatever a test before did: no
    configuration, no secrets, only conversation_access granted, nothing it wrote."""
    home = mem0_installed
    config_path(home, MEM0_ID).unlink(missing_ok=True)
    secrets_path(home, MEM0_ID).unlink(missing_ok=True)
    with StateStore.open(home) as store:
        store.revoke(MEM0_ID, store.granted(MEM0_ID) - {"conversation_access"})
        assert store.granted(MEM0_ID) == {"conversation_access"}
    shutil.rmtree(home / "openclaw", ignore_errors=True)
    return home


class FakeMem0(BaseHTTPRequestHandler):
    """A stand-in for the Mem0 platform API: answers searches with one memory, records all."""

    seen: list[tuple[str, str, Any]] = []

    def _answer(self) -> None:
        size = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(size) or b"null") if size else None
        self.seen.append((self.command, self.path, body))
        if "search" in self.path:
            reply: Any = {"results": [{"id": "m1", "memory": "likes green tea", "score": 0.9}]}
        else:
            reply = {"status": "ok", "results": []}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_DELETE = _answer

    def log_message(self, *_: Any) -> None:
        return None


@pytest.fixture
def mem0_api() -> Iterator[tuple[str, list[tuple[str, str, Any]]]]:
    FakeMem0.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeMem0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}", FakeMem0.seen
    server.shutdown()
    server.server_close()


def test_the_cli_installs_gates_configures_and_runs_them(home: Path) -> None:
    workspace = home.parent / "ws"
    workspace.mkdir(parents=True)
    for tarball in (OLLAMA, JASPER):
        installed = cli_json(home, "install", str(NPM_FIXTURES / tarball), "--kind", "npm")
        package = installed["id"]
        assert "conversation_access" in installed["requested_permissions"]
        for verb in ("trust", "enable"):
            assert cli(home, verb, package).returncode == 0
    assert (
        cli(home, "permissions", "jasper-context-compactor", "conversation_access").returncode == 0
    )
    status = {p["id"]: p for p in cli_json(home, "status")["packages"]}
    # conversation_access is optional: not granting it never keeps a package inactive.
    assert status["@ollama/openclaw-web-search"]["active"]
    assert cli(home, "config", "jasper-context-compactor", "maxTokens", "10").returncode == 0
    shown = cli_json(home, "config", "jasper-context-compactor")
    assert shown["config"] == {"maxTokens": 10}
    listed = cli_json(home, "list", "--workspace", str(workspace))
    # No contracts.tools and no declared OpenClaw: refused, as OpenClaw >= 2026.5.2 refuses them.
    assert not {"ollama_web_search", "ollama_web_fetch"} & {t["name"] for t in listed["tools"]}
    assert {"compact-now", "context-stats"} <= {c["name"] for c in listed["commands"]}
    stats = cli(home, "command", "context-stats", "--workspace", str(workspace))
    assert stats.returncode == 0 and "Context Stats" in stats.stdout and "8,000" not in stats.stdout
    refused = cli(home, "config", "jasper-context-compactor", "maxTokens", '"many"')
    assert refused.returncode == 1 and "maxTokens" in refused.stderr


async def test_ollama_web_search_tools_are_refused_for_want_of_contracts_tools(
    home: Path,
) -> None:
    install_ready(home, NPM_FIXTURES / OLLAMA, kind="npm")
    async with open_gateway(home.parent, trust=True, config=config_for(home, home.parent)) as gw:
        # Its manifest declares no contracts.tools and the package no OpenClaw version: loaded
        # as the pinned 2026.9.6, which refuses both tools (OpenClaw >= 2026.5.2 does).
        assert not {"ollama_web_search", "ollama_web_fetch"} & {t.name for t in gw.tools()}
        refused = messages(gw, "openclaw.tool_undeclared")
        assert len(refused) == 2
        assert any("tool ollama_web_search" in m and '"contracts": {"tools"' in m for m in refused)
        assert gw.processes and gw.processes[0].pid  # the plugin itself runs


async def test_mem0_without_an_api_key_registers_only_cli_and_service(mem0_home: Path) -> None:
    home = mem0_home
    async with open_gateway(home.parent, trust=True, config=config_for(home, home.parent)) as gw:
        assert not [t for t in gw.tools() if t.owner == MEM0_ID]
        assert not [h for h in gw.registry.hooks() if h.owner == MEM0_ID]
        named = unsupported(gw, MEM0_ID)
        assert any("registerCli(mem0)" in m for m in named)
        assert any("registerService(openclaw-mem0)" in m for m in named)
        assert not any("registerMemoryCapability" in m for m in named)


async def test_mem0_with_an_api_key_runs_its_tools_and_hooks(
    mem0_home: Path, mem0_api: Any
) -> None:
    base_url, seen = mem0_api
    home = mem0_home
    assert cli(home, "config", MEM0_ID, "apiKey", "m0-test-key").returncode == 0
    # It talks to its server: its sandbox opens the network only once the user says so.
    assert cli(home, "permissions", MEM0_ID, "network").returncode == 0
    write_package_config(home, MEM0_ID, {"apiKey": "m0-test-key", "baseUrl": base_url,
                                          "userId": "ada"})  # fmt: skip
    async with open_gateway(home.parent, trust=True, config=config_for(home, home.parent)) as gw:
        assert {t.name for t in gw.tools() if t.owner == MEM0_ID} == MEM0_TOOLS
        hooks = {(h.event, h.owner) for h in gw.registry.hooks()}
        assert {("before_agent_start", MEM0_ID), ("turn_end", MEM0_ID)} <= hooks  # the
        # canonical events of before_prompt_build and agent_end
        named = unsupported(gw, MEM0_ID)
        for api in ("registerMemoryCapability(memory)", "registerCli(mem0)",
                    "registerService(openclaw-mem0)"):  # fmt: skip
            assert any(api in m for m in named)
        found = await gw.call_tool("memory_search", {"query": "tea"})
        assert not found.is_error and "likes green tea" in found.content
        recalled = await gw.before_agent_start("what should I drink?", "You help.")
        assert recalled.prompt is not None and "likes green tea" in recalled.prompt
        said = "I switched from green tea to strong black coffee this week; please remember it."
        gw.session.append({"type": "user", "content": said})  # mem0 skips under 50 chars
        gw.session.append({"type": "assistant", "content": "Noted: coffee it is."})
        await gw.start_turn()
        await gw.end_turn()
        # mem0 sends what agent_end captured without awaiting it: let it arrive before the
        # gateway closes (a loaded machine is slow to; the bound only caps a hang).
        with anyio.fail_after(60):
            while not _memories_added(seen):
                await anyio.sleep(0.05)
        environ = Path(f"/proc/{gw.processes[0].pid}/environ").read_bytes().split(b"\0")
    assert b"MEM0_TELEMETRY=false" in environ and b"DO_NOT_TRACK=1" in environ
    searches = [body for method, path, body in seen if "search" in path]
    assert searches and searches[0]["filters"] == {"user_id": "ada"}
    added = _memories_added(seen)
    assert added and "coffee" in json.dumps(added[-1])  # agent_end captured the turn
    # Its reads of ~/.openclaw stay in the private HOME under GATEWAY_HOME.
    assert (home / "openclaw").is_dir()


async def test_jasper_commands_run_and_its_removed_hook_is_ignored_as_in_2026_9(
    home: Path,
) -> None:
    install_ready(home, NPM_FIXTURES / JASPER, kind="npm", grant=("conversation_access",))
    write_package_config(home, "jasper-context-compactor", {"maxTokens": 10, "keepRecentTokens": 5})
    async with open_gateway(home.parent, trust=True, config=config_for(home, home.parent)) as gw:
        # It declares no OpenClaw: loaded as 2026.9.6, which has no before_agent_start hook.
        (removed,) = messages(gw, "openclaw.legacy_hook_removed")
        assert '"before_agent_start" was removed in OpenClaw 2026.8' in removed
        assert 'use "before_prompt_build"' in removed
        for text in ("first question about the weather in Lisbon", "it is sunny and warm",
                     "and tomorrow?", "rain is expected in the afternoon"):  # fmt: skip
            gw.session.append({"type": "user" if "?" in text or "first" in text else "assistant",
                               "content": text})  # fmt: skip
        stats = (await gw.run_command("context-stats")).message
        assert "**Messages:** 4 total" in stats and "Over limit" in stats
        cleared = (await gw.run_command("compact-now")).message
        assert "cache cleared" in cleared
        out = await gw.before_agent_start("next question", "SYS")
        assert out.prompt in (None, "next question")  # nothing prepended: the hook never ran
        assert any("registerGatewayMethod(context-compactor.stats)" in m
                   for m in unsupported(gw, "jasper-context-compactor"))  # fmt: skip


async def test_nostr_is_a_channel_plugin_reported_metadata_only(home: Path) -> None:
    install_ready(home, NPM_FIXTURES / NOSTR, kind="npm")
    inspected = cli_json(home, "inspect", "@openclaw/nostr")
    assert ("channel", "nostr") in {(c["kind"], c["name"]) for c in inspected["contributions"]}
    assert inspected["metadata"]["channel"]["id"] == "nostr"
    async with open_gateway(home.parent, trust=True, config=config_for(home, home.parent)) as gw:
        owned = [t for t in gw.tools() if t.owner == "@openclaw/nostr"]
        assert owned == [] and not [
            c for c in gw.registry.commands() if c.owner == "@openclaw/nostr"
        ]
        named = unsupported(gw, "@openclaw/nostr")
        assert any("registerChannel(nostr)" in m for m in named)
        assert any("registerHttpRoute(/api/channels/nostr)" in m for m in named)
        assert not [d for d in gw.diagnostics if d.severity.value == "error"]


def _memories_added(seen: list[tuple[str, str, Any]]) -> list[Any]:
    return [body for method, path, body in seen
            if method == "POST" and "search" not in path and "memories" in path]  # fmt: skip
