"""``gateway serve --nimlet`` on the wire, driven line by line as a nimlet host would: the
handshake, bad lines, unknown names, cancel, and a clean ``shutdown``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.serve._helpers import GATEWAY, REPO

ECHO = REPO / "benchmarks" / "echo_extension.py"


def echo_workspace(root: Path) -> Path:
    folder = root / ".nimlet" / "extensions" / "echo"
    folder.mkdir(parents=True)
    manifest = {"name": "echo", "command": [sys.executable, str(ECHO)]}
    (folder / "extension.json").write_text(json.dumps(manifest))
    return root


def drive(
    tmp_path: Path, lines: list[str], replies: int, *args: str
) -> tuple[list[dict], str, int]:
    """Send ``initialize`` and ``lines``, read the register and ``replies`` answers, then
    ``shutdown``: what came back, stderr, the exit status."""
    workspace = echo_workspace(tmp_path / "ws")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GATEWAY_HOME": str(tmp_path / "h")}
    initialize = {"type": "initialize", "version": 1, "workspace": str(workspace),
                  "session_id": "1789233281025102"}  # fmt: skip
    server = subprocess.Popen(
        [*GATEWAY, "serve", "--nimlet", "--trust", *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=env, cwd=workspace,
    )  # fmt: skip
    try:
        server.stdin.write("\n".join([json.dumps(initialize), *lines]) + "\n")
        server.stdin.flush()
        received = [json.loads(server.stdout.readline()) for _ in range(1 + replies)]
        _, err = server.communicate(json.dumps({"type": "shutdown"}) + "\n", timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    return received, err, server.returncode


def test_register_first_then_replies_by_id_and_a_clean_shutdown(tmp_path):
    replies, err, code = drive(
        tmp_path,
        [
            "this is not json",
            json.dumps({"type": "tool", "id": "7", "name": "echo", "arguments": {"text": "hi"}}),
            json.dumps({"type": "tool", "id": "8", "name": "nope", "arguments": {}}),
            json.dumps(
                {
                    "type": "event",
                    "id": "9",
                    "event": "turn_start",
                    "payload": {"session_id": "s", "workspace": "/"},
                }
            ),
        ],
        3,
    )
    assert code == 0
    register = replies[0]
    assert register["type"] == "register" and register["commands"] == []
    assert [t["name"] for t in register["tools"]] == ["echo"]
    by_id = {r["id"]: r for r in replies[1:]}
    assert by_id["7"]["content"] == [{"type": "text", "text": "hi"}]
    assert by_id["8"] == {"type": "response", "id": "8", "is_error": True,
                          "content": [{"type": "text", "text": "unknown tool 'nope'"}]}  # fmt: skip
    assert by_id["9"] == {"type": "response", "id": "9"}
    assert "serve.client_failed" in err and "not JSON" in err


def test_the_older_generation_gets_string_content(tmp_path):
    replies, _, code = drive(
        tmp_path,
        [
            json.dumps({"type": "tool", "id": "1", "name": "echo", "arguments": {"text": "old"}}),
        ],
        1,
        "--protocol",
        "older",
    )
    assert code == 0
    assert replies[1] == {"type": "response", "id": "1", "content": "old", "is_error": False}


def test_a_first_line_that_is_not_initialize_stops_the_server(tmp_path):
    server = subprocess.run(
        [*GATEWAY, "serve", "--nimlet"], input='{"type":"tool","id":"1"}\n',
        capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GATEWAY_HOME": str(tmp_path / "h")},
    )  # fmt: skip
    assert server.returncode == 1 and server.stdout == ""
    assert "expected initialize first" in server.stderr


# `gateway serve --nimlet` as its console script runs it, then (on stderr, after the wire's
# last line) the MCP SDK's modules it had imported by the end.
SERVED_ALONE = """\
import json, sys
from gateway.cli import main
status = main(sys.argv[1:])
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("mcp", "mcp_types"))
print(json.dumps(loaded), file=sys.stderr)
sys.exit(status)
"""


def test_a_served_nimlet_extension_imports_nothing_of_mcp(tmp_path):
    # A nimlet host starts this server as one of its extensions; MCP's types (pydantic
    # models of three protocol revisions, ~0.1 s of CPU) are the MCP server's alone.
    workspace = echo_workspace(tmp_path / "ws")
    lines = [
        {"type": "initialize", "version": 1, "workspace": str(workspace), "session_id": "1"},
        {"type": "shutdown"},
    ]
    done = subprocess.run(
        [sys.executable, "-c", SERVED_ALONE, "serve", "--nimlet", "--trust"],
        input="".join(json.dumps(line) + "\n" for line in lines), capture_output=True,
        text=True, timeout=60, cwd=workspace,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "GATEWAY_HOME": str(tmp_path / "h")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["type"] for line in done.stdout.splitlines()] == ["register"]
    assert json.loads(done.stderr.splitlines()[-1]) == []
