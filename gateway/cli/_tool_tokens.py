"""``gateway list --tokens``: how many tokens the tool definitions an MCP client of
``gateway serve --mcp`` receives would cost a model, per package, in full and with tool
search (docs/serve.md).

An estimate: a compact JSON text of the definitions, at ``CHARS_PER_TOKEN`` characters a
token (measured against OpenAI's cl100k_base on a home of 30 packages by
``benchmarks/bench_tool_search.py``, which counts with the real tokenizer). No tokenizer
ships with the gateway: models' tokenizers differ, and an estimate is what a person
deciding on ``--tool-search`` needs.
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict
from typing import Any

from gateway.cli._output import print_json, table
from gateway.host import Gateway
from gateway.serve import listed_tools

__all__ = ["CHARS_PER_TOKEN", "estimate_tokens", "print_tool_tokens", "tool_tokens"]

CHARS_PER_TOKEN = 4.5


def estimate_tokens(definitions: list[dict[str, Any]]) -> int:
    """The estimated tokens of tool definitions sent as compact JSON."""
    if not definitions:
        return 0
    text = json.dumps(definitions, ensure_ascii=False, separators=(",", ":"))
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def tool_tokens(gateway: Gateway) -> dict[str, Any]:
    """Tokens of the full ``tools/list`` per package and in all, and of the list with tool
    search on (the meta-tools and the pinned tools)."""
    full = listed_tools(gateway, deferred=False)
    by_owner: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for definition in full:
        owner = (definition.get("_meta") or {}).get("extension-gateway/owner", "")
        by_owner[str(owner)].append(definition)
    packages = [
        {"owner": owner, "tools": len(tools), "tokens": estimate_tokens(tools)}
        for owner, tools in sorted(by_owner.items())
    ]
    deferred = listed_tools(gateway, deferred=True)
    return {
        "estimate": f"JSON characters / {CHARS_PER_TOKEN}",
        "packages": packages,
        "tools": len(full),
        "tokens": estimate_tokens(full),
        "with_tool_search": {"tools": len(deferred), "tokens": estimate_tokens(deferred)},
    }


def print_tool_tokens(gateway: Gateway, as_json: bool) -> None:
    report = tool_tokens(gateway)
    if as_json:
        print_json(report)
        return
    rows = [(p["owner"], str(p["tools"]), str(p["tokens"])) for p in report["packages"]]
    rows.append(("all", str(report["tools"]), str(report["tokens"])))
    searched = report["with_tool_search"]
    rows.append(("with --tool-search", str(searched["tools"]), str(searched["tokens"])))
    table("Tool definitions (estimated tokens)", ("owner", "tools", "tokens"), rows, sys.stdout)
