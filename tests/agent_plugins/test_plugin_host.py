"""The plugin host over its stdio, without the gateway: a real MCP server (the official
SDK's) started as its child, its tools, resource and prompt offered under nanobot's names,
errors, cancellation, progress, a server that fails at start or dies later, shutdown."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ._helpers import BROKEN, CALC, Host, host_config, lite_calc

ADD, ECHO = "mcp_demo-plugin--calc_add", "mcp_demo-plugin--calc_echo"
RESOURCE = "mcp_demo-plugin--calc_resource_constants"
PROMPT = "mcp_demo-plugin--calc_prompt_review"

DYING = """
import base64
import os

from mcp.server.mcpserver import Image, MCPServer

server = MCPServer("dying")

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@server.tool(description="Exit the server process.")
def die() -> str:
    os._exit(7)


@server.tool(name="a.b", description="Maps to mcp_demo-plugin--dying_a_b.")
def dotted() -> str:
    return "dotted"


@server.tool(name="a_b", description="Maps to the same name: refused.")
def underscored() -> str:
    return "underscored"


@server.tool(description="A picture.")
def picture() -> Image:
    return Image(data=PNG, format="png")


@server.resource("notes://{note_id}", description="A note by id (a template).")
def note(note_id: str) -> str:
    return note_id


server.run()
"""


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("plugin-data")


@pytest.fixture(scope="module")
def host(data: Path) -> Iterator[tuple[Host, dict]]:
    servers = {
        "calc": {"args": [str(CALC)], "env": {"PLUGIN_ROOT": "/r", "PLUGIN_DATA": str(data),
                                              "CALC_GREETING": "hi"}},
        "broken": {"args": [str(BROKEN)]},
        "dying": {"args": [str(data / "dying.py")]},
    }  # fmt: skip
    (data / "dying.py").write_text(DYING)
    config = host_config(data.parent / "host.json", data, servers)
    with Host(config) as running:
        register = running.read()
        yield running, register


def test_register_lists_tools_and_resources_as_tools_and_prompts_as_commands(host) -> None:
    _, register = host
    assert register["type"] == "register"
    tools = {t["name"]: t for t in register["tools"]}
    assert set(tools) == {
        ADD,
        ECHO,
        RESOURCE,
        "mcp_demo-plugin--dying_die",
        "mcp_demo-plugin--dying_a_b",
        "mcp_demo-plugin--dying_picture",
    }
    assert tools[ADD]["description"] == "Add two integers."
    assert tools[ADD]["input_schema"]["required"] == ["a", "b"]
    assert tools[RESOURCE]["capabilities"] == ["read"]
    assert [c["name"] for c in register["commands"]] == [PROMPT]
    assert "topic [tone]" in register["commands"][0]["description"]


def test_a_server_that_fails_at_start_is_a_diagnostic_and_the_others_work(host) -> None:
    running, register = host
    [failed] = [d for d in register["gateway"]["diagnostics"] if d.get("contribution") == "broken"]
    assert failed["code"] == "agent_plugins.server_failed"
    assert "'broken'" in failed["message"]
    # Why it ended, in its own last words on stderr, not only the closed connection:
    assert failed["message"].endswith("; it said: broken server: giving up at start")
    assert running.tool("ok-1", ADD, a=2, b=40)["content"] == "42"
    assert "broken server: giving up at start" in running.log  # its stderr: the log


def test_a_tool_call_maps_text_to_content_and_structured_parts(host) -> None:
    running, _ = host
    reply = running.tool("add-1", ADD, a=1, b=2)
    assert reply["content"] == "3" and reply["is_error"] is False
    assert reply["gateway"]["parts"] == [{"type": "text", "text": "3"}]
    assert reply["gateway"]["details"] == {"result": "3"}


def test_the_server_gets_plugin_root_data_and_its_env(host, data: Path) -> None:
    running, _ = host
    content = running.tool("env-1", ECHO, text="x")["content"]
    assert content.startswith("x (hi; root=/r data=")
    assert f"data={data};" in content and f"cwd={data}" in content


def test_an_mcp_tool_error_is_an_error_result(host) -> None:
    running, _ = host
    reply = running.tool("err-1", ECHO, text="no", fail=True)
    assert reply["is_error"] is True
    assert "echo refused 'no'" in reply["content"]


def test_an_unknown_tool_is_an_error_result(host) -> None:
    running, _ = host
    reply = running.tool("unknown-1", "mcp_demo-plugin--calc_nope")
    assert reply == {"type": "response", "id": "unknown-1",
                     "content": "unknown tool 'mcp_demo-plugin--calc_nope'", "is_error": True}  # fmt: skip


def test_a_resource_tool_returns_the_resource_text(host) -> None:
    running, _ = host
    assert running.tool("res-1", RESOURCE)["content"] == "pi=3.14159"


def test_a_prompt_command_fills_arguments_and_replies_with_the_prompt(host) -> None:
    running, _ = host
    reply = running.command("prompt-1", PROMPT, "the parser tone=strict")
    assert reply["prompt"] == "Please review the parser in a strict tone."
    missing = running.command("prompt-2", PROMPT, "")
    assert "missing topic" in missing["message"] and "prompt" not in missing


def test_cancel_cancels_the_mcp_request_in_the_server(host, data: Path) -> None:
    running, _ = host
    marker = data / "cancelled"
    running.send({"type": "tool", "id": "slow-1", "name": ECHO,
                  "arguments": {"text": "slow", "sleep": 600}})  # fmt: skip
    progress = running.read()  # the server reports progress before it sleeps
    assert progress["gateway"]["progress"]["id"] == "slow-1"
    assert progress["gateway"]["progress"]["text"] == "halfway"
    running.send({"type": "cancel", "id": "slow-1"})
    # The server writes the marker only when its sleep is interrupted, never at its end.
    deadline = time.monotonic() + 120  # caps a hang, far below the 600 s sleep
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), running.log
    # No reply for a cancelled request; the next one is answered.
    assert running.tool("after-cancel", ADD, a=1, b=1)["content"] == "2"


def test_two_mcp_names_mapping_to_one_gateway_name_keep_the_first(host) -> None:
    running, register = host
    [collision] = [d for d in register["gateway"]["diagnostics"]
                   if d["code"] == "agent_plugins.name_collision"]  # fmt: skip
    assert "'a_b'" in collision["message"] and "'a.b'" in collision["message"]
    assert running.tool("dotted", "mcp_demo-plugin--dying_a_b")["content"] == "dotted"


def test_resource_templates_are_reported_not_offered(host) -> None:
    _, register = host
    [templates] = [d for d in register["gateway"]["diagnostics"]
                   if d["code"] == "agent_plugins.resource_templates_unsupported"]  # fmt: skip
    assert templates["contribution"] == "dying"


def test_an_image_result_is_an_image_part(host) -> None:
    running, _ = host
    reply = running.tool("picture", "mcp_demo-plugin--dying_picture")
    [part] = reply["gateway"]["parts"]
    assert part["type"] == "image" and part["mime_type"] == "image/png" and part["data"]
    assert reply["is_error"] is False


def _exited(running: Host) -> list[dict]:
    return [
        d
        for update in running.updates
        for d in update.get("gateway", {}).get("diagnostics", [])
        if d["code"] == "agent_plugins.server_exited"
    ]


def test_a_server_that_dies_fails_its_calls_and_is_reported_once(host) -> None:
    running, _ = host
    first = running.tool("die-1", "mcp_demo-plugin--dying_die")
    assert first["is_error"] is True and "'dying'" in first["content"]
    second = running.tool("die-2", "mcp_demo-plugin--dying_die")
    assert second["is_error"] is True and "not running" in second["content"]
    [exited] = _exited(running)
    assert exited["contribution"] == "dying"
    assert running.tool("alive", ADD, a=5, b=5)["content"] == "10"


def test_shutdown_closes_every_server_within_bounds(tmp_path: Path) -> None:
    """The demo's own ``calc.py``: the SDK's server is what must end in bounds."""
    config = host_config(tmp_path / "h.json", tmp_path / "d", {"calc": {"args": [str(CALC)]}})
    with Host(config) as running:
        assert running.read()["type"] == "register"
        # 0: it ended by itself, servers closed, inside the wait (a hang would raise there,
        # a kill would be -9); no clock is read, so a loaded machine gives the same result.
        assert running.close() == 0
    assert "Traceback" not in running.log


def test_a_plain_v1_host_sees_no_gateway_fields(tmp_path: Path) -> None:
    """The host's side of the wire: the demo's calc as a standard-library twin."""
    calc = lite_calc(tmp_path)
    config = host_config(
        tmp_path / "h.json", tmp_path / "d",
        {"calc": {"args": [str(calc)]}, "broken": {"args": [str(BROKEN)]}},
    )  # fmt: skip
    with Host(config, features=None) as running:
        register = running.read()
        assert "gateway" not in register
        reply = running.tool("1", "mcp_demo-plugin--calc_add", a=1, b=1)
        assert reply == {"type": "response", "id": "1", "content": "2", "is_error": False}


def test_claude_code_plugins_get_claude_codes_tool_names(tmp_path: Path) -> None:
    """``tool_names: claude`` (the Claude Code plugins adapter's config); the demo's calc as
    a standard-library twin (the names are the host's)."""
    calc = lite_calc(tmp_path)
    config = host_config(tmp_path / "h.json", tmp_path / "d", {"calc": {"args": [str(calc)]}},
                         package="demo", tool_names="claude")  # fmt: skip
    with Host(config) as running:
        register = running.read()
        assert {t["name"] for t in register["tools"]} == {
            "mcp__plugin_demo_calc__add", "mcp__plugin_demo_calc__echo",
            "mcp__plugin_demo_calc__resource_constants",
        }  # fmt: skip
        assert [c["name"] for c in register["commands"]] == ["mcp__plugin_demo_calc__review"]
        assert running.tool("1", "mcp__plugin_demo_calc__add", a=1, b=1)["content"] == "2"
