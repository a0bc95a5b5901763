"""What `gateway list` shows of an OpenClaw plugin: the skills its manifest names (as the
package's skills, as `gateway inspect` lists them), and only the hooks it subscribed — the
session_start the host uses to call tool factories again is its own, not the plugin's."""

from __future__ import annotations

from typing import Any

import pytest

from gateway import open_gateway

from .conftest import FIXTURES, install_ready

pytestmark = pytest.mark.anyio


@pytest.fixture
def ready(workspace: Any) -> Any:
    install_ready(workspace.config.home, FIXTURES / "factory-skills")
    return workspace


def opened(ready: Any) -> Any:
    return open_gateway(ready.root, trust=True, config=ready.config)


async def test_the_skills_a_plugin_manifest_names_are_listed_as_the_packages(ready: Any) -> None:
    async with opened(ready) as gateway:
        (skill,) = [s for s in gateway.discovery.skills if s.name == "recall"]
        assert skill.scope == "package"
        assert skill.description == "Recall what the user said earlier."
        assert skill.path.name == "SKILL.md" and skill.path.parent.name == "recall"


async def test_a_plugin_calling_no_api_on_lists_no_hook(ready: Any) -> None:
    async with opened(ready) as gateway:
        assert "session_echo" in {t.name for t in gateway.tools()}
        assert [h.event for h in gateway.registry.hooks() if h.owner == "factory-skills"] == []


async def test_a_tool_factory_still_sees_the_session_without_a_session_start_hook(
    ready: Any,
) -> None:
    async with opened(ready) as gateway:
        out = (await gateway.call_tool("session_echo", {})).content
        assert out == f"session {gateway.session.id}"
        await gateway.new_session()
        out = (await gateway.call_tool("session_echo", {})).content
        assert out == f"session {gateway.session.id}"
