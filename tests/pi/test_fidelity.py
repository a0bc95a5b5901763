"""What Pi's non-interactive modes give a package, through the real gateway and sidecar:
``ctx.ui.theme``, a handler's exception as a diagnostic the user sees, the skills and prompt
templates a package ships (served by the gateway with Pi's argument rules) and those an
extension returns from ``resources_discover``, and the host versions a package declares."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gateway import open_gateway
from gateway.packages import load_adapters
from tests._cli_inprocess import run_gateway

from .conftest import FIXTURES, install_ready

pytestmark = pytest.mark.anyio

PKG = "pi-fidelity"


@pytest.fixture
def ready(workspace: Any) -> Any:
    install_ready(workspace.config.home, FIXTURES / "fidelity")
    return workspace


async def test_ctx_ui_theme_is_pis_theme_as_in_its_print_and_rpc_modes(ready: Any) -> None:
    async with open_gateway(ready.root, trust=True, config=ready.config) as gateway:
        await gateway.start_session()  # its session_start handler formats with the theme
        message = (await gateway.run_command("themed")).message or ""
        assert not [d for d in gateway.diagnostics if d.code == "pi.handler_failed"]
    # Colours are the theme's ANSI codes; bold goes through chalk, which styles nothing
    # without a terminal, as in pi's print mode.
    assert message.startswith("\x1b[") and message.endswith("red\x1b[39m")
    assert "ready\x1b[39m bold \x1b[" in message


async def test_a_handler_that_throws_is_a_diagnostic_once(ready: Any) -> None:
    async with open_gateway(ready.root, trust=True, config=ready.config) as gateway:
        for _ in range(2):
            await gateway.start_turn()
            await gateway.end_turn()
        failed = [d for d in gateway.diagnostics if d.code == "pi.handler_failed"]
    assert len(failed) == 1
    (diagnostic,) = failed
    assert diagnostic.package == PKG and diagnostic.contribution == "turn_end"
    assert "extensions/index.ts: turn_end handler failed: turn_end boom" in diagnostic.message


def test_call_json_shows_a_handler_failure(ready: Any) -> None:
    done = run_gateway(
        ready.config.home, "call", "ping", "{}", "--json", "--workspace", str(ready.root),
        "--trust", user=ready.home,
    )  # fmt: skip
    out = json.loads(done.stdout)
    assert out["content"] == "pong", out
    failed = [d for d in out["diagnostics"] if d["code"] == "pi.handler_failed"]
    assert [(d["package"], d["contribution"]) for d in failed] == [(PKG, "turn_end")]


async def test_shipped_skills_and_prompt_templates_are_listed_and_prompts_run(ready: Any) -> None:
    async with open_gateway(ready.root, trust=True, config=ready.config) as gateway:
        skills = {s.name: s for s in gateway.discovery.skills}
        assert skills["review"].description == "Review a change the way this package likes it"
        assert skills["review"].path.name == "SKILL.md"
        greet = gateway.registry.command("greet")
        assert greet is not None and greet.owner == PKG and greet.description == "Greet someone"
        outcome = await gateway.run_command("greet", 'Ada "big world" now')
        # Pi's rules: quoted arguments, $1, ${@:2} and ${N:-default}.
        assert outcome.prompt == "Hello Ada, and big world now! (now)"
        assert (await gateway.run_command("greet", "Bo")).prompt == "Hello Bo, and ! (nobody)"


async def test_a_package_of_skills_and_prompts_only_runs_no_process(workspace: Any) -> None:
    package_id = install_ready(workspace.config.home, FIXTURES / "declarative")
    async with open_gateway(
        workspace.root, trust=True, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert gateway.processes == []
        assert [s.name for s in gateway.discovery.skills] == ["lint"]
        outcome = await gateway.run_command("fix", "typo README.md docs/")
        assert outcome.prompt == "Fix typo in README.md docs/\n"  # no front matter: as written
        assert gateway.registry.command("fix").owner == package_id  # type: ignore[union-attr]
        assert [p.id for p in gateway.packages if p.active] == [package_id]


async def test_skills_and_prompts_from_resources_discover_reach_the_session(ready: Any) -> None:
    async with open_gateway(ready.root, trust=True, config=ready.config) as gateway:
        assert gateway.registry.command("later") is None
        await gateway.start_session()
        assert "later-skill" in {s.name for s in gateway.discovery.skills}
        later = gateway.registry.command("later")
        assert later is not None and later.owner == PKG
        assert (
            await gateway.run_command("later", "a 'b c'")
        ).prompt == "Later: a b c\n"  # as pi loads it
        assert gateway.registry.command("themed") is not None  # its other commands stay


def test_host_version_ranges_are_checked_against_the_pinned_hosts() -> None:
    entry = load_adapters().inspect(FIXTURES / "fidelity")
    found = {d.code: d.message for d in entry.diagnostics if "host_version" in d.code}
    assert (
        "@mariozechner/pi-tui '^0.50.0' excludes @earendil-works/pi-tui 1.6.0"
        in (found["pi.host_version_mismatch"])
    )
    assert "typebox 'workspace:*' cannot be read" in found["pi.host_version_unchecked"]
    assert "pi-coding-agent" not in " ".join(found.values())  # "*" takes any version
