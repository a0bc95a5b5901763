"""Loading conformance: OpenClaw's export resolution (a function, a definition with
register, nested defaults of a CJS bundle, the `module` key, legacy `activate`), synchronous
register (a Promise makes the plugin inactive; a throw rolls back; late calls are dropped),
TypeScript and CJS entries, and SDK imports resolved to the pinned openclaw (a missing
subpath makes the plugin metadata only; the removed root barrel still loads)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from gateway import open_gateway

from .conftest import FIXTURES, codes, config_for, install_ready, messages

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """The suite's backend (asyncio, tests/_backends.py), for the whole module: the gateway
    below is opened once, in one event loop, for every test."""
    return "asyncio"


@pytest.fixture(scope="module")
async def gateway(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Any]:
    """The loading fixtures installed and the gateway opened on them, once for the module:
    each test only reads what the load registered and reported, or calls a tool whose
    only effect is its answer."""
    root = tmp_path_factory.mktemp("loading")
    user = root / "home"
    config = config_for(user / ".gateway", user)
    (root / "project").mkdir()
    install_ready(config.home, FIXTURES / "loading")
    async with open_gateway(root / "project", trust=True, config=config) as gateway:
        yield gateway


def tools(gateway: Any) -> set[str]:
    return {t.name for t in gateway.tools()}


@pytest.mark.parametrize(
    "tool",
    ["fn_default", "definition", "nested_default", "module_key", "activate", "ts_source"],
)
async def test_export_shapes_resolve_to_register(gateway: Any, tool: str) -> None:
    assert tool in tools(gateway)
    assert (await gateway.call_tool(tool, {})).content == f"{tool} ran"


async def test_activate_is_a_legacy_alias_reported_as_such(gateway: Any) -> None:
    assert any("exports activate" in m for m in messages(gateway, "openclaw.legacy_api"))


async def test_a_module_without_register_is_a_load_failure(gateway: Any) -> None:
    failed = messages(gateway, "openclaw.load_failed")
    assert any("loading/no-register" in m and "missing register/activate" in m for m in failed)


async def test_an_async_register_leaves_the_plugin_inactive(gateway: Any) -> None:
    assert "async_register" not in tools(gateway)
    (message,) = messages(gateway, "openclaw.register_async")
    assert "loading/async-register" in message and "must be synchronous" in message


async def test_a_throwing_register_rolls_back_what_it_registered(gateway: Any) -> None:
    assert "throwing_register" not in tools(gateway)
    assert any("register broke" in m for m in messages(gateway, "openclaw.load_failed"))


async def test_calls_after_register_returns_are_dropped(gateway: Any) -> None:
    assert "late_ok" in tools(gateway) and "late_tool" not in tools(gateway)
    (message,) = messages(gateway, "openclaw.late_registration")
    assert "loading/late" in message and "api.registerTool" in message


async def test_a_missing_sdk_subpath_makes_the_plugin_metadata_only(gateway: Any) -> None:
    assert "sdk_missing" not in tools(gateway)
    (message,) = messages(gateway, "openclaw.sdk_unavailable")
    assert "requires host SDK subpath openclaw/plugin-sdk/not-a-subpath" in message


async def test_the_removed_root_barrel_resolves_to_the_pinned_sdk(gateway: Any) -> None:
    result = await gateway.call_tool("root_barrel", {})
    assert result.details == {"contextEngine": "undefined"}  # left undefined on purpose


async def test_an_id_mismatch_is_a_warning_not_a_refusal(gateway: Any) -> None:
    assert "id_mismatch" in tools(gateway)
    (message,) = messages(gateway, "openclaw.id_mismatch")
    assert '"someone-else"' in message


async def test_one_plugin_per_entry_and_nothing_else_is_affected(gateway: Any) -> None:
    # 13 entries, 4 of which fail in their own way; the other nine run side by side.
    assert len(tools(gateway)) == 9
    assert codes(gateway).count("openclaw.load_failed") == 2
