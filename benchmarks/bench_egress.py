"""What the namespaces of issue 31 cost: a private ``/tmp`` (a mount namespace and a bind)
and a network grant by destination (a network namespace, its loopback and the egress
listener, served by the gateway's proxy) per spawn; and per request, a plain HTTP request
through the egress proxy against the same request made directly (plain ``network``).

    python benchmarks/bench_egress.py [--spawns N] [--requests N]

Spawns alternate between the variants and the figures are ratios of medians of the same
run. The "host" is a local HTTP server on a non-loopback address of this machine; the
proxy's resolver maps the granted name to it (nothing leaves the machine).
"""

from __future__ import annotations

import argparse
import dataclasses
import http.server
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gateway.sandbox import grants_from, package_sandbox, python_runtime_paths, spawn_confined
from gateway.sandbox.egress import UpstreamConfig, egress_service
from tests.sandbox.test_egress import ADDRESS

CLIENT = """
import sys, time, urllib.request
url, count = sys.argv[1], int(sys.argv[2])
times = []
for _ in range(count):
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=20) as response:
        response.read()
    times.append(time.perf_counter() - start)
times.sort()
print(times[len(times) // 2])
"""


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        pass


def _policy(home: Path, granted: list[str], private_tmp: bool = True):  # type: ignore[no-untyped-def]
    sandbox = package_sandbox(
        home=home, package_id="bench", package_root=None, workspace=None,
        grants=grants_from(granted), runtime=python_runtime_paths(), limits=None,
    )  # fmt: skip
    policy = sandbox.policy
    if not private_tmp:
        policy = dataclasses.replace(policy, private_tmp=None)
    return policy, {**os.environ, **sandbox.environment}


def _spawn(policy, env, argv: list[str]) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    spawn_confined(argv, policy=policy, env=env, stdin=subprocess.DEVNULL).wait()
    return time.perf_counter() - start


def spawns(home: Path, count: int) -> None:
    variants = {
        "no namespace": _policy(home, [], private_tmp=False),
        "private /tmp": _policy(home, []),
        "network:HOST": _policy(home, ["network:api.example.com"]),
    }
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(3):
        for policy, env in variants.values():
            _spawn(policy, env, ["/bin/true"])
    for _ in range(count):
        for name, (policy, env) in variants.items():
            samples[name].append(_spawn(policy, env, ["/bin/true"]))
    base = statistics.median(samples["no namespace"])
    for name, values in samples.items():
        median = statistics.median(values)
        print(f"spawn /bin/true  {name:<13} {median * 1000:7.2f} ms  {median / base:5.2f}x")


def requests(home: Path, count: int) -> None:
    server = http.server.ThreadingHTTPServer((ADDRESS, 0), _Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    service = egress_service()

    async def resolve(host: str, port: int) -> list[str]:
        return [ADDRESS] if host == "api.example.com" else []

    service._resolve = resolve  # type: ignore[method-assign]
    service.upstream = UpstreamConfig()
    modes = {
        "direct (network)": (["network"], f"http://{ADDRESS}:{port}/"),
        "proxy (network:HOST)": (["network:api.example.com"], f"http://api.example.com:{port}/"),
    }
    medians: dict[str, list[float]] = {name: [] for name in modes}
    for _ in range(3):
        for name, (granted, url) in modes.items():
            policy, env = _policy(home, granted)
            if granted == ["network"]:  # direct: no proxy of the user's either
                env = {k: v for k, v in env.items() if "proxy" not in k.lower()}
            child = spawn_confined(
                [sys.executable, "-c", CLIENT, url, str(count)], policy=policy, env=env,
                stdout=subprocess.PIPE,
            )  # fmt: skip
            out, _ = child.communicate(timeout=300)
            medians[name].append(float(out))
    server.shutdown()
    base = statistics.median(medians["direct (network)"])
    for name, values in medians.items():
        median = statistics.median(values)
        print(f"request          {name:<21} {median * 1000:7.3f} ms  {median / base:5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spawns", type=int, default=200)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    if ADDRESS is None:
        sys.exit("needs a non-loopback address of this machine")
    # Outside /tmp: a gateway home under /tmp keeps the real /tmp (docs/security.md).
    home = Path(tempfile.mkdtemp(prefix="gw-bench-", dir="/dev/shm"))
    try:
        spawns(home, args.spawns)
        requests(home, args.requests)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(json.dumps({"load": os.getloadavg()}))


if __name__ == "__main__":
    main()
