"""``gateway serve --mcp | --nimlet``: the packages behind this gateway for another host."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

import anyio

from gateway.base import GatewayConfig

__all__ = ["add_serve_verb", "run_serve"]


def add_serve_verb(commands: Any) -> None:
    sub = commands.add_parser(
        "serve", help="serve the packages to another host: an MCP server or a nimlet extension"
    )
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
        "--home", metavar="DIR", help="the gateway home holding the packages (GATEWAY_HOME)"
    )
    sub.add_argument(
        "--protocol",
        choices=("current", "older"),
        default="current",
        help="--nimlet: the host's protocol generation (default: current nimlet)",
    )


def run_serve(args: argparse.Namespace, config: GatewayConfig) -> int:
    from gateway.serve import ServeOptions, serve_mcp, serve_nimlet

    if args.home:
        config = dataclasses.replace(config, home=Path(args.home).expanduser().resolve())
    given = args.serve_workspace
    if given is not None and not given.strip():
        raise ValueError("--workspace is empty; use `.` for the current folder")
    options = ServeOptions(
        workspace=Path(given) if given else Path.cwd(),
        packages=tuple(dict.fromkeys(args.package)),
        trust=True if args.trust else None,
        plan=args.plan,
        config=config,
        workspace_given=given is not None,
    )
    if args.mcp:
        return anyio.run(serve_mcp, options)
    return anyio.run(serve_nimlet, options, args.protocol)
