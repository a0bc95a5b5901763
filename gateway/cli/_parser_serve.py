"""The arguments of ``gateway serve`` (docs/cli.md), apart from ``_parser`` so that each
verb's arguments stay small."""

from __future__ import annotations

import argparse

from gateway.cli._parser_http import serve_http_arguments
from gateway.cli._parser_search import serve_search_arguments

__all__ = ["serve_arguments"]


def serve_arguments(sub: argparse.ArgumentParser) -> None:
    mode = sub.add_mutually_exclusive_group(required=True)
    mode.add_argument("--mcp", action="store_true", help="an MCP server over stdio")
    mode.add_argument("--nimlet", action="store_true", help="one nimlet extension over stdio")
    sub.add_argument(
        "--package",
        action="append",
        default=[],
        metavar="ID",
        help="serve only this installed package (repeatable); default: everything the "
        "workspace loads",
    )
    sub.add_argument(
        "--workspace",
        dest="serve_workspace",
        metavar="WORKSPACE",
        help="workspace folder (default: the current one; for --nimlet the host's)",
    )
    sub.add_argument("--trust", action="store_true", help="trust the workspace for this run")
    sub.add_argument("--plan", action="store_true", help="plan mode: read/user tools only")
    sub.add_argument(
        "--strict",
        action="store_true",
        help="--mcp: withhold descriptions whose text looks like instructions to the model",
    )
    sub.add_argument(
        "--home", metavar="DIR", help="the gateway home holding the packages (GATEWAY_HOME)"
    )
    sub.add_argument(
        "--protocol",
        choices=("current", "older"),
        default="current",
        help="--nimlet: the host's protocol generation (default: current nimlet)",
    )
    loudness = sub.add_mutually_exclusive_group()
    loudness.add_argument(
        "-q", "--quiet", action="store_true", help="only errors on stderr, not warnings"
    )
    loudness.add_argument(
        "-v", "--verbose", action="store_true",
        help="each warning of the start in full, not one line per package",
    )  # fmt: skip
    serve_http_arguments(sub)
    serve_search_arguments(sub)
