"""Grant changes under a running ``gateway serve --mcp``: ``gateway permissions ID PERM``
(and ``--revoke``) from another process restarts the package with its new grants, the
served tools follow what the new process registers, the connected client is told
(``notifications/tools/list_changed``), and the process that held the old grant is gone.
The server and the CLI are real processes; nothing waits on a clock but a bound."""

from __future__ import annotations

import fcntl
import json
import sys
import textwrap
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from gateway.sandbox import package_dirs
from tests.adapters._helpers import write_tree
from tests.serve._helpers import install_ready
from tests.serve.test_reload import Connected, serve_environment, serving

pytestmark = pytest.mark.anyio

# alpha_who says which process answers (a name it drew at start) and whether it was given
# ALPHA_TOKEN; alpha_token exists only in a process that was. Each process holds a lock on
# a file named after it until it ends, so a test can tell that a process is gone.
EXTENSION = textwrap.dedent(
    """\
    #!@PYTHON@
    import fcntl, json, os, sys, uuid
    me = uuid.uuid4().hex
    alive = open(os.path.join(os.environ["GATEWAY_DATA_DIR"], "alive-" + me), "w")
    fcntl.flock(alive, fcntl.LOCK_EX)
    given = "ALPHA_TOKEN" in os.environ
    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n")
        sys.stdout.flush()
    schema = {"type": "object"}
    tools = [{"name": "alpha_who", "description": "who answers", "input_schema": schema}]
    if given:
        tools.append({"name": "alpha_token", "description": "needs the token",
                      "input_schema": schema})
    send({"type": "register", "commands": [], "events": [], "tools": tools})
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("type") == "shutdown":
            break
        if message.get("type") == "tool":
            text = json.dumps({"me": me, "given": given})
            send({"type": "response", "id": message["id"], "content": text})
    """
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def connected(tmp_path: Path) -> AsyncIterator[Connected]:
    home, workspace, source = tmp_path / "home", tmp_path / "ws", tmp_path / "alpha"
    workspace.mkdir()
    write_tree(source, {"extension.json": {"name": "alpha", "command": ["./ext.py"]},
                        "ext.py": EXTENSION.replace("@PYTHON@", sys.executable)})  # fmt: skip
    (source / "ext.py").chmod(0o755)
    install_ready(home, source)
    # The user's variable: it reaches the package only while env:ALPHA_TOKEN is granted.
    env = serve_environment(home, ALPHA_TOKEN="s3cret")
    async with serving(tmp_path, home, workspace, env) as client:
        yield client


async def who(client: Connected) -> dict[str, Any]:
    result = await client.session.call_tool("alpha_who", {})
    return dict(json.loads(result.content[0].text))


async def tools_become(client: Connected, expected: set[str]) -> None:
    """Each announcement, until the served tools are ``expected`` (a restart may be told
    as the package leaving and coming back)."""
    with anyio.fail_after(60):
        while await client.tool_names() != expected:
            await client.next_change()


def gone(client: Connected, process: str) -> bool:
    """The process that drew ``process`` has ended: its lock is free."""
    alive = package_dirs(client.home, "alpha")[0] / f"alive-{process}"
    with alive.open("a") as held:
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
    return True


async def test_a_grant_and_its_revocation_restart_the_package_and_the_tools_follow(
    tmp_path: Path,
) -> None:
    async with connected(tmp_path) as client:
        assert await client.tool_names() == {"alpha_who"}
        first = await who(client)
        assert first["given"] is False

        await client.gateway("permissions", "alpha", "env:ALPHA_TOKEN")
        await client.next_change()
        await tools_become(client, {"alpha_who", "alpha_token"})
        second = await who(client)
        assert second["given"] is True and second["me"] != first["me"]
        assert gone(client, first["me"])

        await client.gateway("permissions", "alpha", "--revoke", "env:ALPHA_TOKEN")
        await client.next_change()
        await tools_become(client, {"alpha_who"})
        third = await who(client)
        # A new process without the variable; the one that held it has ended.
        assert third["given"] is False and third["me"] != second["me"]
        assert gone(client, second["me"])
        with pytest.raises(Exception, match="Unknown tool: alpha_token"):
            await client.session.call_tool("alpha_token", {})
    log = (tmp_path / "stderr.log").read_text()
    assert log.count("gateway serve: packages changed: restarted alpha") == 2
