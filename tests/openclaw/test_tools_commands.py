"""Tools and commands of the OpenClaw host: schemas on the wire, structured results and
progress, errors, cancel → AbortSignal, factories per session, optional tools behind the
plugin's gateway config, contracts.tools, malformed registrations; command name rules,
reserved names, acceptsArgs, continueAgent, the transcript file, runtime.system."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from gateway import Gateway, open_gateway
from gateway.packages import write_package_config

from .conftest import FIXTURES, config_for, install_ready, messages

pytestmark = pytest.mark.anyio

PKG = "oc-conformance"


@pytest.fixture
def ready(workspace: Any) -> Any:
    install_ready(workspace.config.home, FIXTURES / "conformance", grant=("conversation_access",))
    return workspace


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def gateway(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Gateway]:
    """One gateway (one sidecar start), with the plugin's default configuration, for the
    tests that read what it registered or make calls whose outcome depends only on their own
    input. A test that changes the configuration, cancels (the plugin records what its tools
    saw), reads the transcript or sets the exec policy opens its own (``ready``)."""
    base = tmp_path_factory.mktemp("oc-tools")
    home = base / "user" / ".gateway"
    install_ready(home, FIXTURES / "conformance", grant=("conversation_access",))
    (base / "project").mkdir()
    config = config_for(home, base / "user")
    async with open_gateway(base / "project", trust=True, config=config) as opened:
        yield opened


def opened(ready: Any, **kwargs: Any) -> Any:
    return open_gateway(ready.root, trust=True, config=ready.config, **kwargs)


async def test_tools_register_with_plain_json_schemas(gateway: Gateway) -> None:
    schemas = {s["name"]: s for s in gateway.tool_schemas()}
    typed = schemas["typebox_tool"]["input_schema"]
    assert typed == {
        "type": "object",
        "properties": {"n": {"type": "number"}},
        "required": ["n"],
    }
    assert (await gateway.call_tool("typebox_tool", {"n": 21})).content == "42"
    greeted = await gateway.call_tool("greet", {"text": "ada"})
    assert greeted.content == "hello ada"  # the configSchema default
    assert greeted.details == {"id": greeted.details["id"]} and greeted.details["id"].startswith(
        "call_"
    )


async def test_config_comes_from_gateway_config_validated_with_defaults(ready: Any) -> None:
    write_package_config(ready.config.home, PKG, {"greeting": "hi"})
    async with opened(ready) as gateway:
        assert (await gateway.call_tool("greet", {"text": "x"})).content == "hi x"
        api = json.loads((await gateway.run_command("oc-api")).message)
        assert api["config"] == {"greeting": "hi"}
    write_package_config(ready.config.home, PKG, {"greeting": 5})
    async with opened(ready) as gateway:
        assert "greet" not in {t.name for t in gateway.tools()}
        (message,) = messages(gateway, "openclaw.config_invalid")
        assert "greeting" in message and "register is not called" in message


async def test_structured_results_progress_and_thrown_errors(gateway: Gateway) -> None:
    result = await gateway.call_tool("parts", {})
    assert result.content == "done\n[image image/png]"
    assert result.parts == [
        {"type": "text", "text": "done"},
        {"type": "image", "data": "iVBORw0KGgo=", "mime_type": "image/png"},
    ]
    assert result.details == {"pct": 100}
    assert [(p["text"], p["details"]) for p in result.progress] == [("half", {"pct": 50})]
    failed = await gateway.call_tool("fails", {})
    assert failed.is_error and failed.content == "tool exploded"


async def test_cancel_aborts_the_tools_signal(ready: Any) -> None:
    async def seen(gateway: Any, what: str) -> None:
        with anyio.fail_after(60):  # caps a hang; each look is a command round trip
            while what not in (await gateway.run_command("tools-seen")).message:
                await anyio.sleep(0.05)

    async with opened(ready) as gateway:
        async with anyio.create_task_group() as group:
            group.start_soon(gateway.call_tool, "slow", {"ms": 600_000})
            await seen(gateway, "slow:started")  # cancelled while it runs
            group.cancel_scope.cancel()
        await seen(gateway, "aborted:cancelled by the host")
        assert (await gateway.call_tool("slow", {"ms": 1})).content == "slept 1"


async def test_a_tool_factory_is_called_with_the_session_context(gateway: Gateway) -> None:
    out = (await gateway.call_tool("session_tool", {})).content
    assert out == f"session {gateway.session.id} workspace {gateway.workspace}"


async def test_optional_tools_wait_for_the_allow_list(ready: Any) -> None:
    async with opened(ready) as gateway:
        assert "opt_tool" not in {t.name for t in gateway.tools()}
        (message,) = messages(gateway, "openclaw.tool_optional")
        assert "'$gateway.tools.allow'" in message
    write_package_config(ready.config.home, PKG, {"$gateway": {"tools": {"allow": ["opt_tool"]}}})
    async with opened(ready) as gateway:
        assert (await gateway.call_tool("opt_tool", {})).content == "opt ran"


async def test_contracts_and_malformed_tools(gateway: Gateway) -> None:
    # It declares no OpenClaw: loaded as the pinned 2026.9.6, which refuses the tool.
    assert "uncontracted" not in {t.name for t in gateway.tools()}
    (refused,) = messages(gateway, "openclaw.tool_undeclared")
    assert "uncontracted is not in its contracts.tools" in refused
    assert 'add "uncontracted" to contracts.tools' in refused
    assert messages(gateway, "openclaw.tool_contract") == []
    invalid = messages(gateway, "openclaw.registration_invalid")
    assert any("tool has no name" in m for m in invalid)
    assert any("no_execute: execute is not a function" in m for m in invalid)


async def test_command_name_rules_and_reserved_names(gateway: Gateway) -> None:
    commands = {c.name for c in gateway.registry.commands()}
    assert {"oc-echo", "oc-noargs", "oc-continue", "oc-exec"} <= commands
    assert "help" not in commands and "bad name" not in commands
    assert any("/help is a reserved" in m for m in messages(gateway, "openclaw.command_reserved"))
    invalid = messages(gateway, "openclaw.registration_invalid")
    assert any('"Bad Name"' in m for m in invalid)
    assert any("description must be a non-empty string" in m for m in invalid)
    conflicts = messages(gateway, "openclaw.command_conflict")
    assert any("/oc-echo is already registered" in m for m in conflicts)
    alias = messages(gateway, "openclaw.command_alias")
    assert any("conformance-cli" in m and "openclaw conformance" in m for m in alias)


async def test_arguments_reach_only_commands_that_accept_them(gateway: Gateway) -> None:
    echoed = await gateway.run_command("oc-echo", "a b")
    assert echoed.message == "args=a b body=/oc-echo a b owner=true"
    assert (await gateway.run_command("oc-noargs")).message == "noargs ran"
    through = await gateway.run_command("oc-noargs", "extra")
    assert through.message is None and through.prompt == "/oc-noargs extra"
    cont = await gateway.run_command("oc-continue")
    assert cont.message == "continuing" and cont.prompt == "/oc-continue"
    failed = await gateway.run_command("oc-fail")
    assert failed.message == "/oc-fail failed: command exploded"


async def test_commands_read_the_transcript_file(ready: Any) -> None:
    async with opened(ready) as gateway:
        gateway.session.append({"type": "user", "content": "hi"})
        gateway.session.append({"type": "assistant", "content": "hello"})
        out = await gateway.run_command("oc-session")
        assert out.message == "session file lines=2"


async def test_runtime_system_runs_commands_through_the_hosts_exec_policy(ready: Any) -> None:
    asked: list[tuple[str, str, list[str]]] = []
    async with opened(ready) as gateway:
        ran = await gateway.run_command("oc-exec", "echo out; exit 3")
        assert ran.message == "code=3 out=out termination=exit"

        def policy(owner: str, command: str, args: list[str]) -> bool:
            asked.append((owner, command, args))
            return False

        gateway.exec_policy = policy
        refused = await gateway.run_command("oc-exec", "echo no")
        assert refused.message.startswith("error=exec sh: refused")
        assert asked == [(PKG, "sh", ["-c", "echo no"])]
