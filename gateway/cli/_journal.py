"""``gateway journal [--all]`` and ``gateway journal resolve CALL ran|not_run``: calls that
must run at most once (Nu's ``at_most_once`` tools) which a gateway crash interrupted. The
gateway never runs such a call again by itself, and refuses the same call until the user
says whether it happened (docs/cli.md)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from gateway.base import GatewayConfig
from gateway.cli._output import print_json, table
from gateway.store import STATE_FILE, CallJournal, StateStore, StoreError

__all__ = ["run_journal"]


def run_journal(args: argparse.Namespace, config: GatewayConfig) -> int:
    if not (config.home / STATE_FILE).exists():
        entries: list[Any] = []
        if getattr(args, "action", None) == "resolve":
            return _refuse(args, f"no journaled call with id {args.call!r}")
    else:
        try:
            with StateStore.open(config.home) as store:
                journal = CallJournal(store)
                if getattr(args, "action", None) == "resolve":
                    entry = journal.resolve(args.call, args.resolution)
                    if args.json:
                        print_json(entry.to_dict())
                    else:
                        happened = "ran" if args.resolution == "ran" else "did not run"
                        print(f"call {entry.id} ({entry.tool}) resolved: it {happened}; "
                              "the same call may run again when asked for")  # fmt: skip
                    return 0
                open_calls = journal.sweep()
                entries = journal.entries() if args.all else open_calls
        except StoreError as error:
            return _refuse(args, str(error))
    if args.json:
        print_json({"calls": [entry.to_dict() for entry in entries]})
        return 0
    rows = [
        (e.id, e.state + (f" ({e.outcome})" if e.outcome else ""),
         f"{e.started_at:%Y-%m-%d %H:%M:%S}", f"{e.package_id} {e.tool} {e.arguments}")
        for e in entries
    ]  # fmt: skip
    title = "Journaled calls" if args.all else "Interrupted calls waiting for you"
    table(title, ("call", "state", "started (UTC)", "call"), rows, sys.stdout)
    if entries and not args.all:
        print("  check whether each happened, then: gateway journal resolve CALL ran|not_run")
    return 0


def _refuse(args: argparse.Namespace, message: str) -> int:
    if getattr(args, "json", False):
        print_json({"error": message})
    else:
        print(f"gateway: error: {message}", file=sys.stderr)
    return 1
