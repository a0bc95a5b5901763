"""``gateway migrate --to nimlet``: a folder a nimlet host runs. Every migrated example is
run by the gateway's own host in strict plain-v1 mode (no negotiated addition offered, no
announcement), as a real nimlet host would run it.

On asyncio only: a migrated package is a ``gateway serve --nimlet`` child with an event loop
of its own; the host's side of the wire runs on both backends in tests/gateway and
tests/sidecars."""

from __future__ import annotations

import dataclasses
import json

import pytest

from gateway import open_gateway
from tests._backends import asyncio_only  # noqa: F401  (see the module's docstring)
from tests.migrate._helpers import SOURCES, config_for, into_workspace, pass_gates, run
from tests.serve._helpers import need_sidecar

pytestmark = pytest.mark.anyio

CALLS = {
    "pi": ("open_ticket", {"title": "bug"}, "ticket opened: bug"),
    "nanobot": ("review_code", {"path": "a.py"}, "Review requested for a.py"),
    "nimlet": ("save_note", {"text": "hi"}, "saved: hi"),
    "nu": ("changelog__entry", {"kind": "add", "text": "Nu tools."}, "- **add**: Nu tools"),
}


@pytest.mark.parametrize("kind", ["pi", "nanobot", "nimlet", "nu"])
async def test_a_migrated_package_runs_under_a_strict_plain_v1_host(kind, tmp_path):
    need_sidecar()
    home, out = tmp_path / "home", tmp_path / "out"
    migration = run(SOURCES[kind], "nimlet", out, home)
    assert migration.ok, [d.message for d in migration.notes]
    pass_gates(migration, home)
    workspace = tmp_path / "workspace"
    into_workspace(out, workspace)
    # A nimlet host runs its extensions unconfined; a confining one (this gateway) would
    # keep the served gateway from its own home.
    host = dataclasses.replace(config_for(tmp_path / "host-home"), plain_v1=True, sandbox=False)
    async with open_gateway(workspace, trust=True, config=host) as gateway:
        assert [p.plan.features for p in gateway.processes] == [frozenset()]
        name, arguments, expected = CALLS[kind]
        result = await gateway.call_tool(name, arguments)
    assert result.content.startswith(expected) and not result.is_error


async def test_skills_and_prompt_templates_land_where_nimlet_finds_them(tmp_path):
    need_sidecar()
    home, out = tmp_path / "home", tmp_path / "out"
    migration = run(SOURCES["pi"], "nimlet", out, home)
    pass_gates(migration, home)
    manifest = json.loads((out / ".nimlet/extensions/pi-tickets/extension.json").read_text())
    assert manifest["command"][-5:] == ["--nimlet", "--package", "pi-tickets", "--home", str(home)]
    workspace = tmp_path / "workspace"
    into_workspace(out, workspace)
    async with open_gateway(workspace, trust=True, config=config_for(tmp_path / "h2")) as gateway:
        skills = {s.name: s.path for s in gateway.discovery.skills}
        standup = await gateway.run_command("standup", "the release")
    assert skills == {"triage": workspace / ".agents/skills/triage/SKILL.md"}
    assert standup.prompt == "Draft a three-line stand-up note about the release."


def test_migration_md_says_what_carries_over_and_what_does_not(tmp_path):
    need_sidecar()
    out = tmp_path / "out"
    run(SOURCES["pi"], "nimlet", out, tmp_path / "home", load=True)
    text = (out / "MIGRATION.md").read_text()
    assert text.startswith("# pi-tickets 1.2.0 (pi) → nimlet")
    assert "| tool | `open_ticket` | served by `gateway serve --nimlet` |" in text
    assert "| hook | `tool_call` | sent by the host |" in text
    assert "| skill | `triage` | copied to .agents/skills |" in text
    # Installed, not yet trusted or enabled: the steps are listed, with the code.
    assert "`migrate.gates_pending`" in text
    assert "gateway trust pi-tickets" in text and "gateway enable pi-tickets" in text
    assert "cp -r" in text
