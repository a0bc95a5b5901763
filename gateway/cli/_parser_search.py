"""The tool search arguments of ``gateway serve --mcp`` and ``gateway list`` (docs/serve.md),
apart from ``_parser`` so that each verb's arguments stay small."""

from __future__ import annotations

import argparse

__all__ = ["list_token_arguments", "serve_search_arguments"]


def serve_search_arguments(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--tool-search",
        nargs="?",
        const="on",
        default="auto",
        choices=("auto", "on", "off"),
        help="--mcp: tools/list holds the pinned tools and the search_tools / call_tool "
        "meta-tools; auto (default): when a client may use more tools than "
        "--tool-search-above",
    )
    sub.add_argument(
        "--tool-search-above",
        type=int,
        default=None,
        metavar="N",
        help="--tool-search auto: the number of tools above which search is on (default: 40)",
    )
    sub.add_argument(
        "--pin",
        action="append",
        default=[],
        metavar="ID|TOOL",
        help="--tool-search: always list this package's tools, or this tool (repeatable; "
        "also gateway config ID '$gateway.pin' true)",
    )


def list_token_arguments(sub: argparse.ArgumentParser) -> None:
    sub.add_argument(
        "--tokens",
        action="store_true",
        help="the estimated tokens of the tool definitions an MCP client receives, per "
        "package, in full and with tool search",
    )
