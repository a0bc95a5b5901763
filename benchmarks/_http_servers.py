"""``bench_http.py``'s servers and client: the gateway (``gateway serve --mcp --http`` on the
echo extension, a private home, one token) and the MCP SDK's own streamable-HTTP server,
each a process on a free port of 127.0.0.1, driven by the SDK's client in the benchmark's
process; and the measures every section uses (percentiles, /proc CPU time and RSS)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

HERE = Path(__file__).resolve().parent
ECHO = HERE / "echo_extension.py"
SDK_SERVER = HERE / "mcp_http_echo_server.py"
GATEWAY = [sys.executable, "-m", "gateway"]
TICK = os.sysconf("SC_CLK_TCK")


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.3f} ms"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of one process (not its children), from /proc/PID/stat."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


# ------------------------------------------------------------------ the two servers


class Server:
    def __init__(self, name: str, url: str, process: subprocess.Popen[bytes],
                 headers: dict[str, str]) -> None:  # fmt: skip
        self.name, self.url, self.process, self.headers = name, url, process, headers

    @property
    def pid(self) -> int:
        return self.process.pid


def wait_ready(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited {process.returncode}:\n{log.read_text()}")
        try:
            if httpx2.get(url, timeout=2).status_code < 500:
                return
        except httpx2.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"server not ready after {timeout}s:\n{log.read_text()}")


def prepare(root: Path) -> tuple[Path, dict[str, str], str]:
    """A workspace with the echo extension, a private home and a token: (workspace, the
    environment of a server on that home, the token)."""
    workspace = root / "ws"
    folder = workspace / ".nimlet" / "extensions" / "echo"
    folder.mkdir(parents=True)
    manifest = {"name": "echo", "command": [sys.executable, str(ECHO)]}
    (folder / "extension.json").write_text(json.dumps(manifest))
    env = {**os.environ, "GATEWAY_HOME": str(root / "home")}
    for name in [name for name in env if name.startswith("OTEL_")]:
        del env[name]  # the baseline is untraced, whatever this shell says
    made = subprocess.run([*GATEWAY, "token", "create", "bench", "--json"], env=env,
                          check=True, capture_output=True, timeout=60)  # fmt: skip
    return workspace, env, json.loads(made.stdout)["token"]


def start_gateway(name: str, root: Path, workspace: Path, env: dict[str, str], token: str,
                  max_calls: int, extra: tuple[str, ...] = ()) -> Server:  # fmt: skip
    port = free_port()
    log = root / f"gateway-{free_port()}.log"
    command = [*GATEWAY, "serve", "--mcp", "--http", f"127.0.0.1:{port}", "--trust",
               "--workspace", str(workspace), "--max-calls", str(max_calls), *extra]  # fmt: skip
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=workspace, env=env, stdout=out, stderr=out)
    try:
        wait_ready(f"http://127.0.0.1:{port}/readyz", process, log)
    except RuntimeError:
        process.kill()
        raise
    return Server(name, f"http://127.0.0.1:{port}/mcp", process,
                  {"Authorization": f"Bearer {token}"})  # fmt: skip


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def started(root: Path, max_calls: int) -> Iterator[tuple[Server, Server]]:
    workspace, env, token = prepare(root)
    processes: list[subprocess.Popen[bytes]] = []
    try:
        gateway = start_gateway("gateway serve --mcp --http", root, workspace, env, token,
                                max_calls)  # fmt: skip
        processes.append(gateway.process)
        port = free_port()
        log = root / "sdk.log"
        with log.open("wb") as out:
            processes.append(subprocess.Popen([sys.executable, str(SDK_SERVER), str(port)],
                                              stdout=out, stderr=out))  # fmt: skip
        # any answer (the SDK app has no health route: 404 there) means it listens
        wait_ready(f"http://127.0.0.1:{port}/ready", processes[-1], log)
        sdk = Server("MCP SDK echo server (HTTP)", f"http://127.0.0.1:{port}/mcp",
                     processes[-1], {})  # fmt: skip
        yield gateway, sdk
    finally:
        stop(processes)


@contextlib.asynccontextmanager
async def session(server: Server) -> AsyncIterator[ClientSession]:
    async with (
        create_mcp_http_client(headers=server.headers) as http,
        streamable_http_client(server.url, http_client=http) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        yield client


async def call(client: ClientSession) -> None:
    result = await client.call_tool("echo", {"text": "hi"})
    if result.is_error:
        raise RuntimeError(f"echo failed: {result}")


async def timed(one: Callable[[], Awaitable[None]], rounds: int) -> list[float]:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        await one()
        samples.append(time.perf_counter() - start)
    return samples
