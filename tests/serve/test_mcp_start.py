"""``gateway serve --mcp`` answers before its runtimes are up: ``initialize`` at once, and
``tools/list`` from the registration cache while the package's runtime is still starting
(it then starts in the background, once, and answers the calls)."""

from __future__ import annotations

import dataclasses
import json
import sys
import textwrap
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from gateway import GatewayConfig, open_gateway
from gateway.sandbox import package_dirs
from tests.serve._helpers import Served, install_ready
from tests.serve._here import serve_here

pytestmark = pytest.mark.anyio

# Registers only once a file named "open" is in its data folder, logging each step there:
# a runtime whose start the test holds back.
GATED = textwrap.dedent(
    """\
    import json, os, sys, time

    data = os.environ["GATEWAY_DATA_DIR"]

    def log(text):
        with open(os.path.join(data, "log"), "a") as handle:
            handle.write(text + "\\n")

    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n")
        sys.stdout.flush()

    log("started")
    while not os.path.exists(os.path.join(data, "open")):
        time.sleep(0.02)
    send({"type": "register", "commands": [], "tools": [{
        "name": "gated_echo", "description": "echo", "capabilities": ["read"],
        "input_schema": {"type": "object", "properties": {"text": {"type": "string"}}}}]})
    log("registered")
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("type") == "tool":
            send({"type": "response", "id": message["id"],
                  "content": message["arguments"].get("text", "")})
        elif message.get("type") == "event":
            send({"type": "response", "id": message["id"]})
        elif message.get("type") == "shutdown":
            break
    """
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # serve_here's client and server; the Nu host runs on asyncio too


@pytest.fixture
def gated(tmp_path: Path) -> tuple[Served, Path]:
    """A home with the gated package installed and its registration cached; returns it and
    the package's data folder (where "open" and "log" are)."""
    source = tmp_path / "sources" / "gated"
    source.mkdir(parents=True)
    script = source / "extension.py"
    script.write_text(f"#!{sys.executable}\n{GATED}")
    script.chmod(0o755)
    manifest = {"name": "gated", "command": ["./extension.py"]}
    (source / "extension.json").write_text(json.dumps(manifest))
    home = tmp_path / "gateway-home"
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    package_id = install_ready(home, source)
    data = package_dirs(home, package_id)[0]
    (data / "open").write_text("")

    async def fill_cache() -> None:
        config = GatewayConfig(home=home, user_home=tmp_path)
        async with open_gateway(workspace, config=config) as gateway:
            assert gateway.registry.tool("gated_echo") is not None

    anyio.run(fill_cache)
    (data / "open").unlink()
    (data / "log").unlink()
    return Served(home, workspace, data / "unused"), data


def steps(data: Path) -> list[str]:
    log = data / "log"
    return log.read_text().split() if log.exists() else []


async def test_tools_are_listed_from_the_cache_before_the_runtime_registers(gated):
    # Served in this process (tests/serve/_here): what is listed when is the server's; the
    # held-back runtime is its child process as in a served one.
    served, data = gated
    with anyio.fail_after(120):  # a guard against a hang, not a measure
        async with serve_here(
            ["--workspace", str(served.workspace)], env=served.env(), cwd=served.workspace,
            errlog=served.home.parent / "server-stderr.log",
        ) as connection:  # fmt: skip
            listed = await connection.list_tools()
            # The runtime is held back: what was listed came from the cache.
            assert "registered" not in steps(data)
            (data / "open").write_text("")
            result = await connection.call_tool("gated_echo", {"text": "hi"})
    assert [tool.name for tool in listed.tools] == ["gated_echo"]
    assert [b.text for b in result.content if isinstance(b, types.TextContent)] == ["hi"]
    # Started once, in the background; the call waited for that start.
    assert steps(data) == ["started", "registered"]


async def test_a_runtime_that_starts_with_the_gateway_is_held_for_the_server(tmp_path):
    """Nu's extensions start with a gateway (their watchers run between requests), even when
    cached; a server lists them from the cache too (``hold_eager``) and warms them next."""
    from tests.nu._packages import _problem

    if _problem is not None:
        pytest.skip(f"Nu runtime not available: {_problem}")
    home, workspace = tmp_path / "gateway-home", tmp_path / "workspace"
    workspace.mkdir()
    install_ready(home, Path(__file__).parents[2] / "examples" / "packages" / "nu-changelog")
    config = GatewayConfig(home=home, user_home=tmp_path)
    async with open_gateway(workspace, config=config):
        pass  # fills the registration cache
    async with open_gateway(workspace, config=config) as gateway:
        assert [p.plan.name for p in gateway.processes] == ["nu-changelog"]
    held = dataclasses.replace(config, hold_eager=True)
    async with open_gateway(workspace, config=held) as gateway:
        assert gateway.processes == []
        assert gateway.registry.command("release-notes") is not None
        await gateway.warm()
        assert [p.plan.name for p in gateway.processes] == ["nu-changelog"]
