"""The plugin host's lean stdio client seen from the gateway's side (the plugin host as a
real process, over its stdio): a server that lists items of the wrong shape is a
diagnostic, not a traceback; a server that cannot do the classic handshake is reached
through the MCP SDK's client instead, and works."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agent_plugins._helpers import Host, host_config

SCRIPTED = Path(__file__).parent / "fixtures" / "scripted_mcp_server.py"


def _config(tmp_path: Path, scenario: str) -> Path:
    args = [str(SCRIPTED), scenario, str(tmp_path / "received.jsonl")]
    return host_config(tmp_path / "h.json", tmp_path / "d", {"s": {"args": args}}, package="p")


def test_listed_items_of_the_wrong_shape_are_diagnostics_and_the_rest_offered(tmp_path: Path):
    with Host(_config(tmp_path, "bad-items")) as running:
        register = running.read()
        tools = {tool["name"] for tool in register["tools"]}
        assert "mcp_p_fine" in tools and not any("schema" in t or "hint" in t for t in tools)
        problems = [d for d in register["gateway"]["diagnostics"]
                    if d["code"] == "agent_plugins.item_invalid"]  # fmt: skip
        assert len(problems) == 4 and {d["contribution"] for d in problems} == {"s"}
        assert "'schema'" in json.dumps(problems)
    assert "Traceback" not in running.log


def test_a_listing_of_the_wrong_shape_fails_that_server_with_a_diagnostic(tmp_path: Path):
    with Host(_config(tmp_path, "bad-page")) as running:
        register = running.read()
        # its only server: the plugin's start failed, said once with the server's reason
        [whole] = register["gateway"]["diagnostics"]
        assert whole["code"] == "agent_plugins.no_server_started"
        assert "(1 of 1 failed); 's'" in whole["message"]
        assert "InvalidResult: the tools/list result has no list of tools" in whole["message"]
    assert "Traceback" not in running.log


def test_a_server_without_the_classic_handshake_is_reached_through_the_sdk(tmp_path: Path):
    with Host(_config(tmp_path, "modern")) as running:
        register = running.read()
        assert "mcp_p_echo" in {tool["name"] for tool in register["tools"]}, running.log
        reply = running.tool("1", "mcp_p_echo", word="hi")
        assert reply["content"] == '{"word": "hi"}' and reply["is_error"] is False
    assert "no classic MCP handshake (initialize answered -32022" in running.log
    methods = [json.loads(line).get("method") for line in
               (tmp_path / "received.jsonl").read_text().splitlines()]  # fmt: skip
    # the lean client's initialize, then (a second start) the SDK's discover
    assert methods[0] == "initialize" and "server/discover" in methods[1:]


def test_a_servers_log_messages_reach_the_packages_log_escaped(tmp_path: Path) -> None:
    with Host(_config(tmp_path, "paged")) as running:
        running.read()
        assert running.tool("1", "mcp_p_echo")["is_error"] is False
    assert "s: [info] calls: called echo\\x1b[31m" in running.log


def test_a_shutdown_while_a_server_starts_ends_the_host_without_registering(tmp_path: Path):
    # The gateway gives up a start (a shell left with Ctrl-C, a server closing) while a
    # server has not answered its handshake: the host stops it and exits at once, instead of
    # waiting out the start timeout, registering, and only then reading the shutdown.
    silent = {"args": ["-c", "import time; time.sleep(3600)"]}  # never answers
    config = host_config(tmp_path / "h.json", tmp_path / "d", {"s": silent}, package="p")
    running = Host(config)
    assert running.close(timeout=60) == 0, running.log
    said = []
    while not running.lines.empty():
        line = running.lines.get()
        if line is not None:
            said.append(json.loads(line)["type"])
    assert "register" not in said, running.log
    assert "Traceback" not in running.log
