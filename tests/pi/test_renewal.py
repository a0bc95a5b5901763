"""A new session makes a Pi package's extensions again, as pi's /new does, when a session_end
tore them down (docs/pi.md, "A new session"): the warm session's next command, or any host
that starts a session after ending one on the same process."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from adapters.pi import plan_pi
from gateway import Gateway, open_gateway
from gateway.model import LaunchSpec
from gateway.packages import load_adapters
from gateway.wire import (
    EventRequest,
    InitializeMessage,
    ToolRequest,
)
from tests._process_host import StandaloneHost

from .conftest import FIXTURES, install_ready, module_workspace, sidecar_process

pytestmark = pytest.mark.anyio

STALE = "This extension ctx is stale after session replacement or reload."


def _install(home: Path) -> None:
    for name in ("renewal", "renewal-kept", "renewal-shift"):
        install_ready(home, FIXTURES / name)


@pytest.fixture
def ready(workspace: Any) -> Any:
    _install(workspace.config.home)
    return workspace


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class TwoSessions:
    """What the three packages showed over two sessions on the same processes."""

    first: dict[str, Any]
    second: dict[str, Any]
    kept: dict[str, Any]
    failed: list[str]


@pytest.fixture(scope="module")
async def two_sessions(tmp_path_factory: pytest.TempPathFactory) -> TwoSessions:
    """The three packages through two sessions once for the three tests that read what it
    showed (each read a gateway of its own running the same steps: its three sidecars
    started again for the same run): the renewal probe after each session, then the kept
    package's probe, as the warm session runs two commands and a third."""
    root, config = module_workspace(tmp_path_factory, "renewal")
    _install(config.home)
    async with open_gateway(root, trust=True, config=config) as gateway:
        first, second = await _two_sessions(gateway)
        kept = await _probe(gateway, "kept_probe")
        failed = [d.message for d in gateway.diagnostics if d.code == "pi.handler_failed"]
    return TwoSessions(first, second, kept, failed)


async def _probe(gateway: Gateway, tool: str) -> dict[str, Any]:
    result = await gateway.call_tool(tool, {})
    assert not result.is_error, result.content
    return dict(json.loads(result.content))


async def _two_sessions(gateway: Gateway) -> list[dict[str, Any]]:
    """As the warm session runs two commands: a session each, on the same processes."""
    seen = []
    for _ in range(2):
        gateway.use_session()
        await gateway.start_session()
        seen.append(await _probe(gateway, "renewal_probe"))
        await gateway.end_session()
    return seen


async def test_a_torn_down_package_runs_its_factory_again_at_the_next_session(
    two_sessions: TwoSessions,
) -> None:
    first, second = two_sessions.first, two_sessions.second
    assert two_sessions.failed == []
    assert first["generation"] == 1 and first["open"] and first["starts"] == ["1:startup"]
    # The second session is served by a new instance, set up by its factory: as pi's /new,
    # whose reason it gets; the module is the one pi's loader imported first.
    assert second["generation"] == 2 and second["open"]
    assert second["starts"] == ["1:startup", "2:new"]
    assert second["shutdowns"] == 1
    assert second["moduleRuns"] == second["factoryRuns"] == 2


async def test_the_previous_instances_ctx_and_pi_are_stale_as_in_pi(
    two_sessions: TwoSessions,
) -> None:
    used = dict(entry.split(": ", 1) for entry in two_sessions.second["stale"])
    assert list(used) == ["ctx.cwd", "pi.getActiveTools"]
    assert all(message.startswith(STALE) for message in used.values())


async def test_a_package_no_session_end_reached_keeps_its_instance(
    two_sessions: TwoSessions,
) -> None:
    assert two_sessions.kept == {"factoryRuns": 1, "starts": ["startup", "new"]}


async def test_a_renewed_instance_with_other_tools_is_registered_again(ready: Any) -> None:
    async with open_gateway(ready.root, trust=True, config=ready.config) as gateway:
        await gateway.start_session()
        assert (await gateway.call_tool("shift_one", {})).content == "shift_one"
        await gateway.end_session()
        gateway.use_session()
        await gateway.start_session()
        # It does not listen to session_start: the next request that reaches it makes it again.
        gone = await gateway.call_tool("shift_one", {})
        assert gone.is_error and gone.content == "Tool shift_one not found"
        names = {tool.name for tool in gateway.tools()}
        assert "shift_two" in names and "shift_one" not in names
        assert (await gateway.call_tool("shift_two", {})).content == "shift_two"
        changed = [d for d in gateway.diagnostics if d.code == "pi.renewal_events_changed"]
    assert [(d.package, d.contribution) for d in changed] == [("pi-renewal-shift", "turn_start")]


async def test_a_host_that_addresses_no_package_gets_the_same_renewal(tmp_path: Path) -> None:
    """A plain nimlet host (no `register.owners`): its events reach every package of the
    process, and a session_end makes each of them again before its next request."""
    root = FIXTURES / "renewal"
    entry = load_adapters().inspect(root)
    spec = plan_pi(entry.id, root, list(entry.entries))
    assert isinstance(spec, LaunchSpec)
    process = sidecar_process(entry.id, spec, root, tmp_path / "renewal.log", StandaloneHost())
    async with anyio.create_task_group() as tasks:
        await process.start(tasks, InitializeMessage(workspace=str(tmp_path), session_id="s"))
        for event in ("session_start", "session_end", "session_start"):
            await process.request(lambda id, e=event: EventRequest(id=id, event=e, payload={}))
        reply = await process.request(
            lambda id: ToolRequest(id=id, name="renewal_probe", arguments={})
        )
        await process.aclose()
        tasks.cancel_scope.cancel()
    seen = json.loads(reply.content if isinstance(reply.content, str) else "")
    assert seen["generation"] == 2 and seen["starts"] == ["1:startup", "2:new"]
