"""JSON-RPC over a child's stdin and stdout, one message a line: what a benchmark needs to
drive ``gateway serve --mcp`` by hand (no MCP SDK in the measured path)."""

from __future__ import annotations

import json
import subprocess

__all__ = ["reply", "send"]


def send(process: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message).encode() + b"\n")
    process.stdin.flush()


def reply(process: subprocess.Popen[bytes], wanted: int) -> dict[str, object]:
    """The answer to request ``wanted``; what comes before it (notifications) is skipped."""
    assert process.stdout is not None
    while True:
        line = process.stdout.readline()
        if not line:
            raise SystemExit("gateway serve --mcp closed its output")
        message = json.loads(line)
        if message.get("id") == wanted:
            return dict(message)
