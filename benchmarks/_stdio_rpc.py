"""JSON-RPC over a child's stdin and stdout, one message a line: what a benchmark needs to
drive ``gateway serve --mcp`` by hand (no MCP SDK in the measured path), and the CPU its
children used."""

from __future__ import annotations

import json
import resource
import subprocess
import time
from pathlib import Path

__all__ = ["children_cpu", "first_listing", "reply", "send"]


def children_cpu() -> float:
    """CPU seconds of this process's reaped children and theirs (``getrusage``)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


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


def stop(process: subprocess.Popen[bytes], timeout: float) -> None:
    """End of input for ``process``, then ``timeout`` seconds to exit before it is killed."""
    if process.stdin is not None:
        process.stdin.close()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def first_listing(
    command: list[str], env: dict[str, str], cwd: Path, client: str
) -> tuple[float, int]:
    """Seconds from spawning ``command`` (a ``gateway serve --mcp``) to its ``tools/list``
    answer, after ``initialize``, and how many tools it listed. Then its stdin is closed
    and it is waited for (its packages stop first: slow on a loaded machine)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        send(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": client, "version": "1"}}})  # fmt: skip
        reply(process, 1)
        send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(process, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
        listed = reply(process, 2)
        elapsed = time.perf_counter() - start
    finally:
        stop(process, 120)
    result = listed.get("result")
    tools = result.get("tools", []) if isinstance(result, dict) else []
    return elapsed, len(tools)
