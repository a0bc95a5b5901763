"""``gateway serve --mcp --http`` benchmark: each figure against a baseline measured in the
same run, the MCP Python SDK's own streamable-HTTP server with the same echo tool.

    python benchmarks/bench_http.py [--calls N] [--clients C] [--per-client N] [--quick]
                                    [--soak SECONDS]

Two servers run side by side on 127.0.0.1 (free ports): ``gateway serve --mcp --http`` with
the echo extension (``echo_extension.py``) in a workspace, a private ``GATEWAY_HOME`` and one
token from ``gateway token create``; and ``mcp_http_echo_server.py``, the SDK's ``MCPServer``
and its streamable-HTTP app on uvicorn. Both are driven by the SDK's streamable-HTTP client
(``streamable_http_client`` + ``ClientSession``) in this process.

1. One tool call, one client: calls alternate between the two servers in batches of 50
   (after 20 warm-up calls each); p50 and p99 per call and the ratio. Target: ≤ 1.2x.
2. C concurrent clients (default 50), each its own MCP session making N calls one after
   another (default 1,000; ``--quick``: 50): throughput, p50/p99, and the server process's
   CPU time per call (from /proc), the two servers one after the other, twice (ABAB).
3. ``--soak SECONDS`` (off by default): 10 clients keep calling each server (both at once,
   the SDK's server as the baseline), each opening a new session every 200 calls, while
   each server process's resident memory (VmRSS from /proc/PID/status) is sampled every
   second: start, end, max, and whether it stays flat after warm-up.

4. Tracing and metrics: four ``gateway serve --mcp --http`` on one home — both off,
   ``--metrics`` (Prometheus), ``OTEL_EXPORTER_OTLP_ENDPOINT`` (every call traced,
   exported over OTLP/HTTP to a stand-in collector in this process) with ``--metrics``,
   and the same with one trace in ten sampled —
   one client each, calls alternating in batches as in 1 (the order rotating from round
   to round): p50 and p99 per call, the server process's CPU time per call, and the ratio
   of each against both off; and, once the servers exit, each server's main-thread CPU from
   a call's request to its reply's write (``_reply_cpu/sitecustomize.py`` in each server:
   what delays the client, apart from the machine's load). Target: p50 <= 1.05x.
   ``--observability-only`` runs only it.

Load only on 127.0.0.1, bounded in count and time. Linux only (/proc). The servers and the
client are ``_http_servers.py``; sections 1-2 ``_http_compare.py``, 3 ``_http_soak.py``, 4
``_http_observe.py``, beside this script.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import anyio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))  # the sections' modules, beside this script

from _http_compare import crowd, report_crowd, report_single, single  # noqa: E402
from _http_observe import (  # noqa: E402
    observed_gateways,
    overhead,
    report_overhead,
    report_reply_cpu,
)
from _http_servers import rss_kib, started  # noqa: E402
from _http_soak import soak_both  # noqa: E402

from gateway.testing import otlp_receiver  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="1: calls per server")
    parser.add_argument("--clients", type=int, default=50, help="2: concurrent clients")
    parser.add_argument("--per-client", type=int, default=1000, help="2: calls per client")
    parser.add_argument("--quick", action="store_true", help="1: 300 calls; 2: 50 per client")
    parser.add_argument("--soak", type=float, default=0, metavar="SECONDS", help="3: off (0)")
    parser.add_argument("--observability-only", action="store_true", help="only section 4")
    args = parser.parse_args()
    if args.quick:
        args.calls, args.per_client = 300, 50
    load = os.getloadavg()
    print(f"{os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f};"
          f" Python {sys.version.split()[0]}")  # fmt: skip
    if not args.observability_only:
        compared(args)
    with tempfile.TemporaryDirectory() as folder, otlp_receiver(keep=False) as sink:
        with observed_gateways(Path(folder), 10, sink.url) as servers:
            found, cpu = anyio.run(overhead, servers, args.calls)
            report_overhead(found, cpu, servers[0].name, sink)
        report_reply_cpu(Path(folder), [server.name for server in servers])  # once they exit
    load = os.getloadavg()
    print(f"\nload average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")


def compared(args: argparse.Namespace) -> None:
    """Sections 1-3: the gateway against the MCP SDK's own server."""
    with (
        tempfile.TemporaryDirectory() as folder,
        started(Path(folder), max(args.clients, 10)) as pair,
    ):
        gateway, sdk = pair
        print(f"RSS after start: gateway {rss_kib(gateway.pid) / 1024:.1f} MiB,"
              f" SDK server {rss_kib(sdk.pid) / 1024:.1f} MiB")  # fmt: skip
        found = anyio.run(single, (sdk, gateway), args.calls)
        report_single(found, sdk.name, gateway.name)
        runs: dict[str, list[dict[str, float]]] = {sdk.name: [], gateway.name: []}
        for _ in range(2):
            for server in (sdk, gateway):
                runs[server.name].append(anyio.run(crowd, server, args.clients, args.per_client))
        report_crowd(runs, args.clients, args.per_client, sdk.name, gateway.name)
        print(f"RSS now: gateway {rss_kib(gateway.pid) / 1024:.1f} MiB,"
              f" SDK server {rss_kib(sdk.pid) / 1024:.1f} MiB")  # fmt: skip
        if args.soak > 0:
            anyio.run(soak_both, (sdk, gateway), args.soak)


if __name__ == "__main__":
    main()
