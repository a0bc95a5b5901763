"""The issue's remote-server story through the ``gateway`` command line (its ``main`` in this
process, ``tests/_cli_runner``; ``gateway auth`` in a thread of its own, the test its
person's browser while it waits; the plugin host and the loopback OAuth MCP server real
processes, the default sandbox, a private GATEWAY_HOME): a plugin naming a loopback MCP server with OAuth
installs; its server waits for the network grant, then for a sign-in (each said with its
code and the command that fixes it); ``gateway auth`` signs in through a loopback redirect;
the tool runs; ``--status`` never shows a token; ``--sign-out`` forgets it."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path

import pytest

from tests._cli import gateway_env, run_here
from tests._cli_runner import cli, cli_json
from tests.agent_plugins._helpers import write_plugin

from ._remote import kept
from ._server import OAuthServer, browse

pytestmark = pytest.mark.slow(2)  # measured long: scheduled first (tests/conftest.py)

PACKAGE = "remote-demo"
ADD = f"mcp_{PACKAGE}_add"


def gateway_auth(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``gateway auth PACKAGE --no-browser``, with ``browse`` as the person's browser: its
    ``main`` in a thread of this process (``run_here``), whose stderr this thread reads as
    it is written until the URL to open, as a person reads a terminal."""
    user = home.parent / "user"
    env = gateway_env(home, user)
    said: queue.Queue[str | None] = queue.Queue()
    done: list[subprocess.CompletedProcess[str]] = []

    def run() -> None:
        try:
            argv = ["auth", PACKAGE, "--no-browser", *args]
            done.append(run_here(argv, env=env, cwd=user, on_stderr=said.put))
        finally:
            said.put(None)  # ended: no more lines

    waiting = threading.Thread(target=run, name="gateway auth")
    waiting.start()
    try:
        text = ""
        while (written := said.get(timeout=120)) is not None:
            text += written
            *lines, text = text.split("\n")
            url = next((line for line in lines if line.startswith("  http://")), None)
            if url is not None:
                browse(url.strip())
                break
    finally:
        waiting.join(timeout=120)
    assert not waiting.is_alive(), "gateway auth did not end"
    [result] = done
    return result


def test_install_grant_sign_in_and_call_a_remote_tool(tmp_path: Path, server: OAuthServer) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    (tmp_path / "user").mkdir()
    root = write_plugin(tmp_path / "src" / PACKAGE,
                        servers={"calc": {"type": "streamable-http", "url": server.url}})  # fmt: skip
    installed = cli_json(home, "install", str(root))
    assert installed["requested_permissions"] == [server.grant]
    cli_json(home, "trust", PACKAGE)
    cli_json(home, "enable", PACKAGE)
    ws = ("--workspace", str(project))

    def diagnostics() -> str:
        return json.dumps(cli_json(home, "list", *ws))

    assert "remote_mcp.not_granted" in diagnostics()
    assert cli(home, "permissions", PACKAGE, server.grant).returncode == 0
    [package] = cli_json(home, "status")["packages"]
    assert f"network to 127.0.0.1:{server.port} only" in package["sandbox"]
    waiting = diagnostics()
    assert "remote_mcp.sign_in_required" in waiting and f"gateway auth {PACKAGE}" in waiting

    signed = gateway_auth(home)
    assert signed.returncode == 0, signed.stderr
    assert "signed in to calc" in signed.stdout and "/authorize?" in signed.stderr
    tokens = kept(home).tokens
    assert tokens is not None

    done = cli(home, "call", ADD, '{"a": 2, "b": 40}', *ws)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("42")

    status = cli_json(home, "auth", PACKAGE, "--status")
    [shown] = status["servers"]
    assert shown["state"] == "signed-in" and shown["refreshable"] is True
    logs = cli(home, "logs", PACKAGE).stdout
    for text in (json.dumps(status), signed.stdout, signed.stderr, logs, done.stderr):
        assert tokens.access_token not in text and str(tokens.refresh_token) not in text

    out = cli_json(home, "auth", PACKAGE, "--sign-out")
    assert out["signed_out"] == ["calc"]
    [gone] = cli_json(home, "auth", PACKAGE, "--status")["servers"]
    assert gone["state"] == "signed-out"


def test_a_refused_sign_in_says_why_with_its_code(tmp_path: Path, server: OAuthServer) -> None:
    home = tmp_path / "home"
    (tmp_path / "user").mkdir()
    root = write_plugin(tmp_path / "src" / PACKAGE,
                        servers={"calc": {"type": "streamable-http", "url": server.url}})  # fmt: skip
    cli_json(home, "install", str(root))
    server.post("/test/refuse")
    refused = gateway_auth(home)
    assert refused.returncode == 1
    assert "invalid_scope" in refused.stderr and "[remote_mcp.sign_in_failed]" in refused.stderr
    assert "Traceback" not in refused.stderr
