"""Real npm packages, packed into tests/fixtures/npm (self-contained: no network at test
time), installed through the gateway's npm source, gated, and run in the sidecar."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from adapters.pi import plan_pi
from gateway import Gateway, open_gateway
from gateway.model import LaunchSpec, ToolOutcome
from gateway.wire import (
    InitializeMessage,
)
from gateway.wire.features import RUNTIME_FEATURES, announcement
from tests._process_host import StandaloneHost

from .conftest import NPM_FIXTURES, install_ready, sidecar_process

pytestmark = [pytest.mark.anyio, pytest.mark.slow(2)]

REAL = [
    "pi-aliases-1.0.7.tgz",
    "aliou-pi-processes-0.12.0.tgz",
    "pi-mermaid-0.3.0.tgz",
    "pi-prompt-template-model-0.12.2.tgz",
]
AGENTUITY = "agentuity-pi-2.0.21.tgz"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Installed once for the module (installs are the slow part), for the module's
    gateway: the four packages and @agentuity/pi, whose sidecar test loads its installed
    folder by file path. No test writes to it."""
    base = tmp_path_factory.mktemp("real")
    home = base / "home" / ".gateway"
    for name in REAL:
        install_ready(home, NPM_FIXTURES / name, kind="npm")
    package_id = install_ready(home, NPM_FIXTURES / AGENTUITY, kind="npm")
    assert package_id == "@agentuity/pi"
    return {"home": home, "base": base}


def _config(installed: dict[str, Path]) -> Any:
    from gateway import GatewayConfig

    return GatewayConfig(
        home=installed["home"], user_home=installed["base"], shutdown_grace=0.3, term_grace=0.5
    )


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def gateway(
    installed: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Gateway]:
    """One gateway for the tests that read what loading registered and reported, run the
    aliases' commands, the processes tool and the background blocker, and run a session's
    handlers: the four packages' first start (each compiled then: ~7 s of CPU) and their
    sidecars are shared. Its workspace has pi-processes' project-local settings file, which
    turns the blocker on (off by default). Each test reads only what its own calls added
    (the requested actions after its commands); a session's handlers failing anywhere in
    the module fails the session test."""
    root = tmp_path_factory.mktemp("ws")
    settings = root / ".pi" / "extensions" / "processes.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"interception": {"blockBackgroundCommands": True}}))
    config = _config(installed)
    async with open_gateway(root, trust=True, config=config) as opened:
        yield opened


async def test_all_real_packages_load_with_their_contributions(gateway: Gateway) -> None:
    owners = {t.name: t.owner for t in gateway.tools()}
    assert owners["process"] == "@aliou/pi-processes"
    commands = {c.name: c.owner for c in gateway.registry.commands()}
    assert commands["clear"] == commands["exit"] == "pi-aliases"
    assert {"ps", "ps:kill", "ps:logs"} <= set(commands)
    assert commands["pi-mermaid"] == "pi-mermaid"
    assert {"chain-prompts", "prompt-tool"} <= set(commands)
    errors = [d for d in gateway.diagnostics if d.severity.value == "error"]
    assert errors == []
    by_package: dict[str, set[str]] = {}
    for d in gateway.diagnostics:
        if d.code in ("pi.unsupported_api", "pi.event_unmapped"):
            by_package.setdefault(d.package or "", set()).add(d.message.split(": ", 1)[1])
    # What they cannot do headless is reported, naming the API or event.
    assert any("registerMessageRenderer" in m for m in by_package["pi-mermaid"])
    assert any('"model_select"' in m for m in by_package["pi-prompt-template-model"])
    # input / before_agent_start run now (events.extended): subscribed, not unmapped.
    assert "pi-mermaid" in {h.owner for h in gateway.registry.hooks("input")}
    assert "pi-prompt-template-model" in {
        h.owner for h in gateway.registry.hooks("before_agent_start")
    }
    assert not any(
        '"input"' in m or '"before_agent_start"' in m
        for messages in by_package.values()
        for m in messages
    )
    assert any("registerMessageRenderer" in m for m in by_package["@aliou/pi-processes"])


async def test_pi_aliases_commands_map_to_host_actions(gateway: Gateway) -> None:
    before = len(gateway.requested_actions)
    clear = await gateway.run_command("clear")
    assert clear.message == "[pi] new session requested"
    leave = await gateway.run_command("exit")
    assert leave.message == "[pi] shutdown requested"
    # host.actions: the embedding agent sees what was asked for.
    assert gateway.requested_actions[before:] == [
        ("pi-aliases", "new_session"),
        ("pi-aliases", "shutdown"),
    ]


async def test_pi_processes_tool_and_bash_background_hook(gateway: Gateway) -> None:
    ran: list[dict[str, Any]] = []

    async def bash(arguments: dict[str, Any]) -> ToolOutcome:
        ran.append(arguments)
        return ToolOutcome("ran", False)

    # The blocker is off by default; the workspace's settings file turns it on (`gateway`).
    gateway.use_session()
    await gateway.start_session()
    result = await gateway.call_tool("process", {"action": "list"})
    assert not result.is_error
    assert result.content == "No matching background processes."
    gateway.register_builtin_tool(
        "bash", "shell", {"type": "object", "properties": {"command": {"type": "string"}}}, bash
    )
    blocked = await gateway.call_tool("bash", {"command": "npm run dev &"})
    assert blocked.blocked and blocked.is_error
    assert "process" in blocked.content.lower()
    ok = await gateway.call_tool("bash", {"command": "echo hi"})
    assert ok.content == "ran" and not ok.blocked
    assert ran == [{"command": "echo hi"}]
    await gateway.end_session()


async def test_agentuity_provider_only_package_loads_by_file_path(
    installed: dict[str, Path], tmp_path: Path
) -> None:
    """@agentuity/pi has no `pi` key (the adapter does not claim it), so it is loaded by file
    path: it registers its two commands and, with no API key, no provider."""
    from gateway.store import StateStore

    with StateStore.open(installed["home"]) as store:
        root = Path(store.get_package("@agentuity/pi").record.path)
    main = json.loads((root / "package.json").read_text())["main"]
    spec = plan_pi("@agentuity/pi", root, [main])
    assert isinstance(spec, LaunchSpec)
    host = StandaloneHost()
    process = sidecar_process("@agentuity/pi", spec, root, tmp_path / "agentuity.log", host)
    import anyio

    async with anyio.create_task_group() as tasks:
        register = await process.start(
            tasks,
            InitializeMessage(
                workspace=str(tmp_path), session_id="s", gateway=announcement(RUNTIME_FEATURES)
            ),
        )
        assert {c.name for c in register.commands} == {"organization", "region"}
        assert not register.tools
        assert "not set" in (tmp_path / "agentuity.log").read_text()
        await process.aclose()
        tasks.cancel_scope.cancel()


async def test_provider_only_package_installs_through_the_gateway_and_runs_its_commands(
    gateway: Gateway,
) -> None:
    # @agentuity/pi has no `pi` key: it is claimed by its peer dependency on
    # pi-coding-agent and loaded by its `main`, as pi does (installed: the `installed`
    # fixture, which asserts the id the install gave it).
    owners = {c.name: c.owner for c in gateway.registry.commands()}
    assert owners.get("organization") == owners.get("region") == "@agentuity/pi"
    assert not [d for d in gateway.diagnostics if d.severity.value == "error"]


async def test_real_packages_run_one_sidecar_each_and_their_session_handlers_run_clean(
    gateway: Gateway,
) -> None:
    """Each package in its own sidecar, keeping its owner and its own hooks; a session with
    two turns runs every handler without a failure."""
    await gateway.start_session()  # starts the sidecars that were dormant
    hooked_owners = {h.owner for h in gateway.registry.hooks("session_start")}
    assert {p.name for p in gateway.processes} >= hooked_owners
    assert all(p.plan.members == () for p in gateway.processes)
    for _ in range(2):
        await gateway.start_turn()
        await gateway.end_turn()
    await gateway.end_session()
    failed = [d.message for d in gateway.diagnostics if d.code == "pi.handler_failed"]
    assert failed == []
    hooked = {h.owner for h in gateway.registry.hooks("session_start")}
    assert {"@aliou/pi-processes", "pi-prompt-template-model"} <= hooked


async def test_pi_processes_serves_a_second_session_on_the_same_process(gateway: Gateway) -> None:
    """As the warm session runs two commands: its core extension tears down at
    session_shutdown and sets up only in its factory, so the second session needs its
    extensions made again, as pi's /new does (its dock asked a torn-down core for its
    config: "processes core extension did not reply to config request")."""
    for _ in range(2):
        gateway.use_session()
        await gateway.start_session()
        result = await gateway.call_tool("process", {"action": "list"})
        assert result.content == "No matching background processes."
        await gateway.end_session()
    failed = [d.message for d in gateway.diagnostics if d.code == "pi.handler_failed"]
    assert failed == []
