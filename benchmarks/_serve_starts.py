"""``bench_serve.py --starts N``: the CPU of one ``gateway serve`` start, from its spawn to
its first reply (``--mcp``: the ``initialize`` result; ``--nimlet``: ``register``), read
from /proc then (the served process's own, user + system), on a workspace of the echo
extension. ``--baseline-tree DIR`` alternates each start with the same command run from
another checkout's tree (``PYTHONPATH=DIR``: a same-run before/after). Byte code as an
installation has it (``PYTHONDONTWRITEBYTECODE`` dropped)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = ["serve_starts"]

HERE = Path(__file__).resolve().parent
ECHO = HERE / "echo_extension.py"
INITIALIZE = {
    "mcp": {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}},
    "nimlet": {"type": "initialize", "version": 1, "session_id": "bench"},
}  # fmt: skip


def _cpu_of(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _start(mode: str, workspace: Path, home: Path, tree: Path | None) -> float:
    dropped = ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env["GATEWAY_HOME"] = str(home)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    command = [sys.executable, "-m", "gateway", "serve", f"--{mode}", "--trust"]
    server = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=env, cwd=workspace,
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None
    message = dict(INITIALIZE[mode], **({"workspace": str(workspace)} if mode == "nimlet" else {}))
    server.stdin.write(json.dumps(message).encode() + b"\n")
    server.stdin.flush()
    reply = json.loads(server.stdout.readline())
    cpu = _cpu_of(server.pid)
    assert "result" in reply or reply.get("type") == "register", reply
    server.kill()
    server.communicate()
    return cpu


def serve_starts(starts: int, baseline: Path | None) -> None:
    print(f"3. one gateway serve start to its first reply, CPU (load {os.getloadavg()})")
    trees: dict[str, Path | None] = {"this tree": None}
    if baseline is not None:
        trees = {f"baseline {baseline}": baseline, **trees}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        workspace = root / "ws"
        extension = workspace / ".nimlet" / "extensions" / "echo"
        extension.mkdir(parents=True)
        manifest = {"name": "echo", "command": [sys.executable, str(ECHO)]}
        (extension / "extension.json").write_text(json.dumps(manifest))
        for mode in ("mcp", "nimlet"):
            samples: dict[str, list[float]] = {name: [] for name in trees}
            for tree in trees.values():  # one warm-up each
                _start(mode, workspace, root / "home", tree)
            for _ in range(starts):
                for name, tree in trees.items():
                    samples[name].append(_start(mode, workspace, root / "home", tree))
            for name, cpu in samples.items():
                print(f"  serve --{mode:6} {name}: CPU p50 {statistics.median(cpu) * 1e3:.0f} ms, "
                      f"min {min(cpu) * 1e3:.0f} ms ({starts} starts)")  # fmt: skip
    print(f"  load average at the end {os.getloadavg()}")
