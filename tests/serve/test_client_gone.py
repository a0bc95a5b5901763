"""A client that closes the server's stdout has gone, as one that closes its stdin has:
``gateway serve --mcp`` ends without a traceback (a client piped through ``head`` closed it
mid-answer, and the server printed a Python traceback of a broken pipe). About the process:
its stdio pipes, its stderr and its exit."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests._cli import gateway_env
from tests.serve._helpers import GATEWAY, reap

INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "gone", "version": "1"}},
}  # fmt: skip


def test_a_client_that_closes_stdout_ends_the_server_without_a_traceback(tmp_path: Path) -> None:
    env = gateway_env(tmp_path / "home" / ".gateway", tmp_path / "home")
    server = subprocess.Popen(
        [*GATEWAY, "serve", "--mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    server.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    server.stdin.flush()
    assert json.loads(server.stdout.readline())["id"] == 1
    server.stdout.close()  # the reader goes: the next answer meets a broken pipe
    for number in range(2, 6):
        request = {"jsonrpc": "2.0", "id": number, "method": "tools/list"}
        server.stdin.write(json.dumps(request).encode() + b"\n")
        server.stdin.flush()
    server.stdin.close()
    code = reap(server)
    with server.stderr:
        errors = server.stderr.read().decode()
    assert "Traceback" not in errors and "BrokenPipeError" not in errors, errors
    assert code == 0, errors
