"""``gateway migrate PKG --to TARGET --out DIR``: a package made runnable by another host."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

from gateway.base import GatewayConfig, Severity
from gateway.cli._output import fail, print_diagnostics, print_json

__all__ = ["add_migrate_verb", "run_migrate"]

TARGET_NAMES = ("nimlet", "nanobot", "mcp", "agent-plugin")


def add_migrate_verb(commands: Any) -> None:
    sub = commands.add_parser("migrate", help="make a package runnable by another host")
    sub.add_argument("source", metavar="PKG", help="folder, tarball, npm spec, git URL or id")
    sub.add_argument("--to", required=True, choices=TARGET_NAMES, dest="target")
    sub.add_argument("--out", required=True, metavar="DIR", help="where to write (empty)")
    sub.add_argument(
        "--load",
        action="store_true",
        help="load the package once in a throwaway sandbox to see its tools, commands, hooks",
    )
    sub.add_argument("--force", action="store_true", help="replace what DIR holds")
    sub.add_argument(
        "--gateway-command",
        metavar="CMD",
        help="how the output starts the gateway (default: this installation's `gateway`)",
    )
    sub.add_argument("--json", action="store_true")


def run_migrate(args: argparse.Namespace, config: GatewayConfig) -> int:
    from gateway.migrate import MigrationError, migrate

    if not args.out.strip():
        raise ValueError("--out is empty")
    command = shlex.split(args.gateway_command) if args.gateway_command else None
    try:
        result = migrate(
            args.source, args.target, Path(args.out), config=config, load=args.load,
            force=args.force, gateway_command=command,
        )  # fmt: skip
    except MigrationError as error:
        if args.json:
            found = [error.diagnostic, *error.details]
            print_json(
                {"error": error.diagnostic.message, "diagnostics": [d.to_dict() for d in found]}
            )
        else:
            fail(error.diagnostic.message)
            print_diagnostics(error.details, least=Severity.WARNING)
        return 1
    if args.json:
        print_json(result.to_dict())
        return 0 if result.ok else 1
    print(f"migrated {result.package.id} ({result.package.entry.ecosystem}) to {args.target}:")
    for path in result.files:
        print(f"  {path}")
    carried = len(result.carried)
    print(f"{carried} item(s) carried over; see {result.out / 'MIGRATION.md'}")
    print_diagnostics(result.notes, least=Severity.WARNING)
    return 0 if result.ok else 1
