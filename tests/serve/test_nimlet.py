"""``gateway serve --nimlet``: a gateway hosting another gateway. The outer gateway runs
``gateway serve --nimlet`` as a plain nimlet extension of its workspace; the packages behind
it must behave as if they were the outer gateway's own.

On asyncio only: what is checked is the served gateway, a child process with an event loop of
its own; the host's side of the wire runs on both backends in tests/gateway and
tests/sidecars, the served side is driven line by line in test_nimlet_wire.py."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gateway import GatewayConfig, ToolOutcome, UiAnswer, open_gateway
from gateway.store import StateStore
from tests.serve._helpers import GATEWAY, IDS, Served, need_sidecar, served_home

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

ECHO_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"  # see the module's docstring; for the module's outer gateway too


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Served:
    need_sidecar()
    return served_home(tmp_path_factory.mktemp("nimlet"))


def outer_workspace(tmp_path: Path, served: Served, *extra: str) -> tuple[Path, GatewayConfig]:
    """A workspace whose one nimlet extension is ``gateway serve --nimlet`` over the three
    packages, and an outer gateway with a home of its own."""
    workspace = tmp_path / "outer"
    folder = workspace / ".nimlet" / "extensions" / "gw"
    folder.mkdir(parents=True)
    command = [*GATEWAY, "serve", "--nimlet", "--home", str(served.home), *extra]
    for package in IDS.values():
        command += ["--package", package]
    (folder / "extension.json").write_text(json.dumps({"name": "gw", "command": command}))
    # The outer gateway stands for a nimlet host, which runs its extensions unconfined; a
    # confining one would keep the served gateway from its own home.
    config = GatewayConfig(
        home=tmp_path / "outer-home",
        user_home=tmp_path,
        passthrough_env=("DESK_LOG", "GATEWAY_PASSTHROUGH_ENV"),
        sandbox=False,
    )
    # The served packages' hooks change the outer host's own tools (its echo): that takes
    # hooks.rewrite, granted to the served gateway by its extension id.
    config.home.mkdir(parents=True, exist_ok=True)
    with StateStore.open(config.home) as store:
        store.grant_extension("nimlet:gw", ["hooks.rewrite"])
    return workspace, config


def passed_to_the_served(served: Served, patch: pytest.MonkeyPatch) -> None:
    """The variables the outer gateway passes through to ``gateway serve --nimlet``."""
    for key, value in served.env().items():
        if key in ("DESK_LOG", "GATEWAY_PASSTHROUGH_ENV"):
            patch.setenv(key, value)


@pytest.fixture
def inner_env(served: Served, monkeypatch: pytest.MonkeyPatch) -> None:
    passed_to_the_served(served, monkeypatch)


async def echo(arguments: dict[str, Any]) -> ToolOutcome:
    return ToolOutcome(f"echo: {arguments['text']}")


def described(gateway: Any) -> dict[str, tuple[str, Any, list[str]]]:
    return {
        t["name"]: (t["description"], t["input_schema"], t["capabilities"])
        for t in gateway.tool_schemas()
        if t["owner"] != "builtin"
    }


CALLS = [
    ("save_note", {"text": "key sk-live1234567"}),
    ("review_code", {"path": "src/app.py"}),
    ("open_ticket", {"title": "cache bug"}),
]


async def run_calls(gateway: Any) -> list[tuple[str, bool]]:
    gateway.register_builtin_tool("echo", "Echo", ECHO_SCHEMA, echo)
    await gateway.start_session()
    await gateway.start_turn()
    results = [await gateway.call_tool(name, arguments) for name, arguments in CALLS]
    results.append(await gateway.call_tool("echo", {"text": "token ghp_abcdefgh123"}))
    await gateway.end_turn()
    # The Pi sidecar names an image in its text ("[image image/png]") for hosts that take
    # text only; served to a current nimlet host the image travels as an image part instead.
    return [(r.content.replace("\n[image image/png]", ""), r.is_error) for r in results]


async def test_served_packages_behave_as_if_they_were_local(served, tmp_path, inner_env):
    local = GatewayConfig(home=served.home, user_home=tmp_path, packages=tuple(IDS.values()),
                          passthrough_env=("DESK_LOG",))  # fmt: skip
    async with open_gateway(served.workspace, config=local) as gateway:
        local_tools = described(gateway)
        local_commands = {c.name for c in gateway.registry.commands()}
        local_results = await run_calls(gateway)
    workspace, config = outer_workspace(tmp_path, served)
    async with open_gateway(workspace, trust=True, config=config) as gateway:
        unconfined = "sandbox.off"  # the outer host stands for an unconfining nimlet host
        problems = [d.code for d in gateway.diagnostics if d.severity.value != "info"]
        assert [code for code in problems if code != unconfined] == []
        served_tools = described(gateway)
        served_commands = {c.name for c in gateway.registry.commands()}
        owners = {t["owner"] for t in gateway.tool_schemas() if t["owner"] != "builtin"}
        served_results = await run_calls(gateway)
    assert served_tools == local_tools
    assert served_commands == local_commands
    assert owners == {"gw"}
    assert served_results == local_results
    # Hooks of every ecosystem acted, through the outer host's events: the Pi hook redacted
    # the nimlet tool's argument and the outer gateway's own echo tool's.
    assert local_results[0] == ("saved: key [redacted]", False)
    assert local_results[3] == ("echo: token [redacted]", False)
    assert local_results[2][0].endswith("(reviewer: acme.review)")


@dataclass
class Outer:
    """The module's outer gateway with the default configuration, for the tests whose calls'
    outcomes are their own (the served packages keep no state those calls change), and the
    questions its user was asked."""

    gateway: Any
    asked: list[tuple[str, str]] = field(default_factory=list)


@pytest.fixture(scope="module")
async def outer(served: Served, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Outer]:
    opened = Outer(None)

    async def ui(process: Any, request: Any) -> UiAnswer:
        opened.asked.append((request.method, request.prompt))
        return UiAnswer(confirmed=True)

    workspace, config = outer_workspace(tmp_path_factory.mktemp("outer"), served)
    with pytest.MonkeyPatch.context() as patch:  # inner_env, for the module
        passed_to_the_served(served, patch)
        async with open_gateway(workspace, trust=True, config=config, ui=ui) as gateway:
            opened.gateway = gateway
            yield opened


async def test_a_served_tool_call_runs_the_hooks_once(outer: Outer):
    result = await outer.gateway.call_tool("review_code", {"path": "x.py"})
    # The nimlet desk's tool_result hook appended once: the outer host dispatched it, and
    # the served gateway did not dispatch it a second time.
    assert result.content == "Review requested for x.py [seen by desk]"


async def test_questions_and_side_effects_pass_through(outer: Outer):
    gateway, before = outer.gateway, len(outer.asked)
    assert "gw:desk:notes" not in gateway.session.statuses  # no test before saved a note
    outcome = await gateway.run_command("ask", "deploy")
    await gateway.call_tool("save_note", {"text": "n"})
    statuses = dict(gateway.session.statuses)
    assert outer.asked[before:] == [("confirm", "Really deploy?")]
    assert outcome.message == "answer: yes"
    assert statuses["gw:desk:notes"] == "1 note"


async def test_under_a_strict_plain_v1_host(served, tmp_path, inner_env):
    workspace, config = outer_workspace(tmp_path, served)
    strict = dataclasses.replace(config, plain_v1=True)
    async with open_gateway(workspace, trust=True, config=strict) as gateway:
        assert gateway.processes[0].plan.features == frozenset()
        result = await gateway.call_tool("open_ticket", {"title": "v1"})
    assert result.content.startswith("ticket opened: v1")
    # Current nimlet's content parts carry the image through a plain host.
    assert [p["type"] for p in result.parts or []] == ["text", "image"]


async def test_the_older_protocol_gets_string_content(served, tmp_path, inner_env):
    workspace, config = outer_workspace(tmp_path, served, "--protocol", "older")
    async with open_gateway(workspace, trust=True, config=config) as gateway:
        result = await gateway.call_tool("save_note", {"text": "old"})
    assert (result.content, result.parts) == ("saved: old", None)


def test_a_workspace_serving_itself_stops_at_the_nesting_limit(tmp_path):
    import subprocess

    workspace = tmp_path / "loop"
    folder = workspace / ".nimlet" / "extensions" / "self"
    folder.mkdir(parents=True)
    command = [*GATEWAY, "serve", "--nimlet", "--trust"]
    (folder / "extension.json").write_text(json.dumps({"name": "self", "command": command}))
    # Unconfined: a confined `serve` could not reach the home it serves from.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GATEWAY_HOME": str(tmp_path / "h"),
           "GATEWAY_PASSTHROUGH_ENV": "GATEWAY_HOME,GATEWAY_SANDBOX,GATEWAY_PASSTHROUGH_ENV",
           "GATEWAY_SANDBOX": "off"}  # fmt: skip
    done = subprocess.run(
        [*GATEWAY, "list", "--workspace", str(workspace), "--trust", "--json"],
        env=env, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    listed = json.loads(done.stdout)
    # The chain ends: the deepest `serve` refused to start, each level above reports that
    # its extension failed, and the outermost gateway still answers.
    codes = [d["code"] for d in listed["diagnostics"] if d["code"] != "sandbox.off"]
    assert codes == ["extension.start_failed"]
    # What the deepest one said, asked directly:
    deepest = subprocess.run(
        [*GATEWAY, "serve", "--nimlet"], env={**env, "GATEWAY_SERVE_DEPTH": "4"},
        input='{"type":"initialize","version":1,"workspace":"/","session_id":"s"}\n',
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert deepest.returncode == 1 and deepest.stdout == ""
    assert "serve.nested_too_deep" in deepest.stderr
