"""A Claude Code skill's ``!`` lines run when it is invoked as ``/NAME`` (Claude Code's skills
documentation, "dynamic context injection"), in the plugin host, by its ``allowed-tools``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gateway import open_gateway
from gateway.packages import install, load_adapters
from gateway.store import StateStore

pytestmark = pytest.mark.anyio


async def test_a_skill_with_lines_runs_them_when_invoked_as_its_command(workspace: Any) -> None:
    """Claude Code's skills run their `!` lines when invoked: `/NAME` does so here, in the
    plugin host (its sandbox), by the skill's own allowed-tools."""
    root = workspace.home / "src" / "skilled"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "skilled"}))
    (root / "skills" / "where").mkdir(parents=True)
    (root / "skills" / "where" / "SKILL.md").write_text(
        "---\nname: where\ndescription: Where we are\nallowed-tools: Bash(pwd)\n---\n"
        "In !`pwd` (not !`id`), asked: $ARGUMENTS\n"
    )
    home = workspace.config.home
    install(home, str(root), kind="local", inspector=load_adapters().inspect)
    with StateStore.open(home) as store:
        store.set_trusted("skilled", True)
        store.set_enabled("skilled", True)
    async with open_gateway(workspace.root, trust=True, config=workspace.config) as gateway:
        assert "where" in {s.name for s in gateway.discovery.skills}
        outcome = await gateway.run_command("where", "why")
    assert outcome.prompt == (
        f"In {workspace.root} (not [not run: `id` is not allowed by allowed-tools]), asked: why"
    )
