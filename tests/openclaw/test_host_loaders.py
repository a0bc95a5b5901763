"""The OpenClaw version a plugin declares decides how its entry loads, as that OpenClaw's
loader loads it: jiti's transform (< 2026.5), native require with a jiti fallback
(2026.5-2026.7), native require alone (2026.8 and later, or nothing declared). A plugin that
fails under its own host's loader is reported with that error as the plugin's failure.
Real sidecars; the esbuild ESM shim (`__require("process")` at top level) is the one
`@laurentenhoor/devclaw` ships, which only jiti's transform loads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.openclaw._inspect import inspect_plugin
from adapters.openclaw._lines import loader_for
from gateway import open_gateway
from tests._opened_alone import opened_alone

from .conftest import NPM_FIXTURES, config_for, install_ready, messages

DEVCLAW = "laurentenhoor-devclaw-1.6.10.tgz"

# What esbuild emits for a bundled CJS dependency that requires a builtin, in ESM output.
SHIM_ENTRY = """\
var __require = ((x) => typeof require !== "undefined" ? require : typeof Proxy !== "undefined"
  ? new Proxy(x, { get: (a, b) => (typeof require !== "undefined" ? require : a)[b] }) : x)(
  function (x) {
    if (typeof require !== "undefined") return require.apply(this, arguments);
    throw Error('Dynamic require of "' + x + '" is not supported');
  });
const platform = __require("process").platform;
export default {
  id: "shim",
  register(api) {
    api.registerTool({
      name: "shim_platform", description: "the platform", parameters: { type: "object" },
      async execute() { return { content: [{ type: "text", text: platform }] }; },
    });
  },
};
"""


def _plugin(root: Path, peer: str | None, entry: str = SHIM_ENTRY) -> Path:
    root.mkdir(parents=True)
    package: dict[str, Any] = {
        "name": "shim",
        "version": "1.0.0",
        "type": "module",
        "openclaw": {"extensions": ["./index.js"]},
    }
    if peer is not None:
        package["peerDependencies"] = {"openclaw": peer}
    (root / "package.json").write_text(json.dumps(package))
    manifest = {"id": "shim", "configSchema": {"type": "object"}}
    manifest["contracts"] = {"tools": ["shim_platform"]}
    (root / "openclaw.plugin.json").write_text(json.dumps(manifest))
    (root / "index.js").write_text(entry)
    return root


@pytest.mark.parametrize(
    ("declared", "loader"),
    [
        ({"openclaw_peer": "^2026.3.2"}, "jiti"),
        ({"openclaw_peer": ">=2026.4.0"}, "jiti"),
        ({"openclaw_peer": "^2026.5.2"}, "native-jiti"),
        ({"plugin_api": ">=2026.7.35"}, "native-jiti"),
        ({"openclaw_peer": ">=2026.8.0"}, "native"),
        ({"openclaw_peer": "^2026.3.2", "plugin_api": ">=2026.9.0"}, "native"),
        ({}, "native"),
    ],
)
def test_the_declared_floor_picks_the_loader_of_that_openclaw(
    declared: dict[str, str], loader: str
) -> None:
    assert loader_for(declared) == loader


def test_an_older_loader_is_named_at_inspect(tmp_path: Path) -> None:
    entry = inspect_plugin(_plugin(tmp_path / "p", "^2026.3.2"))
    assert entry.metadata["loader"] == "jiti"
    (said,) = [d.message for d in entry.diagnostics if d.code == "openclaw.host_loader"]
    assert "'^2026.3.2'" in said and "jiti's transform" in said


async def _load(tmp_path: Path, peer: str | None) -> tuple[set[str], Any]:
    home = tmp_path / "user" / ".gateway"
    install_ready(home, _plugin(tmp_path / "src", peer))
    async with open_gateway(home.parent, trust=True, config=config_for(home, home.parent)) as gw:
        return {t.name for t in gw.tools()}, gw


@pytest.mark.anyio
async def test_a_plugin_for_2026_3_loads_through_jitis_transform(tmp_path: Path) -> None:
    tools, gw = await _load(tmp_path, "^2026.3.0")
    assert "shim_platform" in tools
    assert messages(gw, "openclaw.loaded_by_transform") == []
    assert messages(gw, "openclaw.entry_failed_in_host") == []


@pytest.mark.anyio
async def test_a_plugin_for_2026_5_falls_back_to_jiti_and_says_so(tmp_path: Path) -> None:
    tools, gw = await _load(tmp_path, ">=2026.5.0 <2026.8.0")
    assert "shim_platform" in tools
    (said,) = messages(gw, "openclaw.loaded_by_transform")
    assert 'Dynamic require of "process" is not supported' in said
    assert "OpenClaw 2026.9 refuses it" in said


@pytest.mark.anyio
@pytest.mark.parametrize("peer", ["^2026.9.0", None])
async def test_a_plugin_for_2026_9_fails_as_2026_9_fails_it(tmp_path: Path, peer: str) -> None:
    tools, gw = await _load(tmp_path, peer)
    assert "shim_platform" not in tools
    (said,) = messages(gw, "openclaw.entry_failed_in_host")
    assert 'Dynamic require of "process" is not supported' in said
    assert "OpenClaw 2026.9's loader" in said
    assert messages(gw, "openclaw.load_failed") == []
    # what status, doctor and list --packages then say: failed to load, not active
    (status,) = [s for s in gw.packages if s.id == "shim"]
    assert not status.active and "Dynamic require" in (status.load_failure or "")


@pytest.mark.anyio
async def test_top_level_await_fails_under_2026_9s_require(tmp_path: Path) -> None:
    home = tmp_path / "user" / ".gateway"
    entry = "await Promise.resolve();\nexport default { id: 'shim', register() {} };\n"
    install_ready(home, _plugin(tmp_path / "src", "^2026.9.0", entry))
    async with open_gateway(home.parent, trust=True, config=config_for(home, home.parent)) as gw:
        (said,) = messages(gw, "openclaw.entry_failed_in_host")
        assert "ERR_REQUIRE_ASYNC_MODULE" in said


def test_devclaw_loads_as_the_openclaw_it_declares_loads_it(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> None:
    """`@laurentenhoor/devclaw` declares openclaw ^2026.3.2 and imports the root SDK barrel;
    OpenClaw 2026.7.35 loads it through jiti (23 tools, refused there for want of
    contracts.tools), so does the gateway (registered, leniently, with that warning). The
    gateway's load is the run's one of devclaw installed alone (tests/_opened_alone.py,
    shared with the audit's truth module)."""
    gw = opened_alone(NPM_FIXTURES / DEVCLAW, tmp_path_factory, request)
    assert gw.messages("openclaw.load_failed") == []
    assert gw.messages("openclaw.entry_failed_in_host") == []
    owned = gw.owned("tool")
    assert len(owned) == 23 and "task_create" in owned
    assert len(gw.messages("openclaw.tool_contract")) == 23


ROOT_BARREL_ENTRY = """\
import { emptyPluginConfigSchema } from "openclaw/plugin-sdk";
export default { id: "shim", configSchema: emptyPluginConfigSchema(), register() {} };
"""


@pytest.mark.anyio
@pytest.mark.parametrize(("peer", "served"), [("^2026.9.0", False), ("^2026.3.2", True)])
async def test_the_root_barrel_is_there_only_if_the_declared_openclaw_had_it(
    tmp_path: Path, peer: str, served: bool
) -> None:
    home = tmp_path / "user" / ".gateway"
    install_ready(home, _plugin(tmp_path / "src", peer, ROOT_BARREL_ENTRY))
    async with open_gateway(home.parent, trust=True, config=config_for(home, home.parent)) as gw:
        refused = messages(gw, "openclaw.sdk_unavailable")
        assert messages(gw, "openclaw.entry_failed_in_host") == []
        if served:
            assert refused == []
        else:
            (said,) = refused
            assert "openclaw/plugin-sdk (OpenClaw 2026.8 removed it" in said
