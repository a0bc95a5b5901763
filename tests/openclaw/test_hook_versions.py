"""A typed hook the declared OpenClaw does not have is ignored, as that OpenClaw ignores it:
a plugin declaring OpenClaw before 2026.5 is loaded with 2026.4.29's hook names, one
declaring 2026.5-2026.7 with 2026.7.35's, any other with the pinned 2026.9.6's (the 42).
OpenClaw 2026.4.29 and 2026.7.35 warn `unknown typed hook "<name>" ignored` and register
nothing (their `registerTypedHook`); the gateway says `openclaw.hook_not_in_version`.
Real sidecars, one small plugin declaring each version."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.openclaw._lines import hook_catalog_for
from gateway import open_gateway

from .conftest import config_for, install_ready, messages

ENTRY = """\
import fs from "node:fs";
import path from "node:path";
export default {
  id: "hooked",
  register(api) {
    const mark = (name) => () => fs.writeFileSync(path.join(api.runtime.state.resolveStateDir(), name), "ran");
    // 2026.4.29 lacks it (added by 2026.7.35); runs at the canonical message_sending.
    api.on("reply_payload_sending", (event) => ({ payload: { ...event.payload, text: `${event.payload.text} +rps` } }));
    // 2026.4.29 lacks the legacy name; 2026.7.35 runs it as gateway_stop; 2026.8 removed it.
    api.on("deactivate", mark("deactivated"));
    // 2026.7.35 and 2026.4.29 lack it; 2026.9.6 keeps it, and no subagent ever runs here.
    api.on("subagent_progress", mark("progress"));
  },
};
"""


def _plugin(root: Path, peer: str) -> Path:
    root.mkdir(parents=True)
    package = {
        "name": "hooked",
        "version": "1.0.0",
        "type": "module",
        "openclaw": {"extensions": ["./index.js"]},
        "peerDependencies": {"openclaw": peer},
    }
    (root / "package.json").write_text(json.dumps(package))
    (root / "openclaw.plugin.json").write_text(
        json.dumps({"id": "hooked", "configSchema": {"type": "object"}})
    )
    (root / "index.js").write_text(ENTRY)
    return root


async def _run(tmp_path: Path, peer: str) -> tuple[Any, str, Path]:
    """Load the plugin declaring ``peer``, send one message; (gateway, its text, state dir)."""
    home = tmp_path / "user" / ".gateway"
    install_ready(home, _plugin(tmp_path / "src", peer))
    async with open_gateway(home.parent, trust=True, config=config_for(home, home.parent)) as gw:
        sent = await gw.emit("message_sending", {"text": "hello"})
        text = sent.payload["text"]
    (state,) = (home / "openclaw").glob("*/state")
    return gw, text, state


@pytest.mark.parametrize(
    ("declared", "release"),
    [
        ({"openclaw_peer": "^2026.3.2"}, "2026.4.29"),
        ({"openclaw_peer": ">=2026.4.0"}, "2026.4.29"),
        ({"openclaw_peer": ">=2026.5.0"}, "2026.7.35"),
        ({"plugin_api": ">=2026.7.35"}, "2026.7.35"),
        ({"openclaw_peer": ">=2026.8.0"}, "2026.9.6"),
        ({"openclaw_peer": "^2026.3.2", "plugin_api": ">=2026.9.0"}, "2026.9.6"),
        ({"openclaw_peer": ">=2026.11.0"}, "2026.9.6"),
        ({}, "2026.9.6"),
    ],
)
def test_the_declared_floor_picks_the_hook_names_of_that_band(
    declared: dict[str, str], release: str
) -> None:
    assert hook_catalog_for(declared) == release


@pytest.mark.anyio
async def test_declaring_2026_4_hooks_it_lacks_are_not_run_and_named(tmp_path: Path) -> None:
    gw, text, state = await _run(tmp_path, ">=2026.4.0")
    assert text == "hello"  # reply_payload_sending did not run
    assert not (state / "deactivated").exists()
    said = {
        d.contribution: d.message
        for d in gw.diagnostics
        if d.code == "openclaw.hook_not_in_version"
    }
    assert set(said) == {"reply_payload_sending", "deactivate", "subagent_progress"}
    rps = said["reply_payload_sending"]
    assert 'hook "reply_payload_sending" is not a typed hook of OpenClaw 2026.4.29' in rps
    assert "it declares OpenClaw 2026.4.0" in rps and "OpenClaw 2026.7.35 has it" in rps
    assert "OpenClaw 2026.9.6 has it" in said["subagent_progress"]
    assert messages(gw, "openclaw.hook_never_emitted") == []
    assert messages(gw, "openclaw.legacy_api") == []


@pytest.mark.anyio
async def test_declaring_2026_7_only_the_hooks_added_after_it_are_not_run(tmp_path: Path) -> None:
    gw, text, state = await _run(tmp_path, ">=2026.6.0")
    assert text == "hello +rps"
    assert (state / "deactivated").read_text() == "ran"  # the alias, as 2026.7.35 runs it
    (said,) = [d for d in gw.diagnostics if d.code == "openclaw.hook_not_in_version"]
    assert said.contribution == "subagent_progress"
    assert "OpenClaw 2026.7.35 (it declares OpenClaw 2026.6.0" in said.message
    assert messages(gw, "openclaw.hook_never_emitted") == []


@pytest.mark.anyio
async def test_the_same_plugin_declaring_2026_9_runs_them(tmp_path: Path) -> None:
    gw, text, state = await _run(tmp_path, ">=2026.9.0")
    assert text == "hello +rps"
    assert messages(gw, "openclaw.hook_not_in_version") == []
    # kept as 2026.9.6 keeps it (no subagent runs here); deactivate is gone since 2026.8
    never = [d.contribution for d in gw.diagnostics if d.code == "openclaw.hook_never_emitted"]
    assert never == ["subagent_progress"]
    assert [d.contribution for d in gw.diagnostics if d.code == "openclaw.legacy_hook_removed"] == [
        "deactivate"
    ]
    assert not (state / "deactivated").exists()
