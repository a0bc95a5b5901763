"""``gateway setup``: the private Node environment and the Node sidecar's modules."""

from __future__ import annotations

import argparse
import sys

from gateway.base import GatewayConfig, terminal_progress
from gateway.cli._output import fail, print_json
from gateway.runtime import SetupError, run_setup

__all__ = ["run_setup_verb"]


def run_setup_verb(args: argparse.Namespace, config: GatewayConfig) -> int:
    if args.mirror and not args.node:
        fail("--mirror needs --node VERSION (the bundled Node is used without a download)")
        return 2
    with terminal_progress(quiet=args.json) as progress:
        try:
            extras = frozenset(name for name in ("openclaw", "all") if getattr(args, name))
            report = run_setup(
                config.home,
                node_version=args.node,
                mirror=args.mirror,
                progress=progress,
                extras=extras,
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
