"""``gateway setup`` and ``gateway --version``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gateway.base import GatewayConfig, gateway_version, terminal_progress
from gateway.cli._output import fail, print_json
from gateway.runtime import SetupError, run_setup

__all__ = ["add_setup_verb", "gateway_version", "run_setup_verb"]


def add_setup_verb(commands: Any) -> None:
    sub = commands.add_parser(
        "setup",
        help="after pip install: the private Node environment and the Node sidecar's modules",
        description=(
            "Make the private Node environment under GATEWAY_HOME/node (from the bundled "
            "Node, offline, unless --node asks for another version) and install the Node "
            "sidecar's modules (npm ci --ignore-scripts). Safe to run again."
        ),
    )
    sub.add_argument(
        "--node", metavar="VERSION", help="download this Node version (e.g. 22.20.0 or 22)"
    )
    sub.add_argument(
        "--mirror",
        metavar="URL",
        help="where --node downloads from (a mirror of https://nodejs.org/download/release)",
    )
    sub.add_argument("--json", action="store_true")


def run_setup_verb(args: argparse.Namespace, config: GatewayConfig) -> int:
    if args.mirror and not args.node:
        fail("--mirror needs --node VERSION (the bundled Node is used without a download)")
        return 2
    with terminal_progress(quiet=args.json) as progress:
        try:
            report = run_setup(
                config.home, node_version=args.node, mirror=args.mirror, progress=progress
            )
        except SetupError as error:
            if args.json:
                print_json({"ok": False, "error": str(error), "done": error.done})
            else:
                for line in error.done:
                    print(f"  {line}")
                fail(f"setup did not finish: {error}")
            return 1
    if args.json:
        print_json({"ok": True, "done": report.steps})
        return 0
    for line in report.steps:
        print(f"  {line}")
    print("gateway is set up", file=sys.stdout)
    return 0
