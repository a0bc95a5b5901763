"""``gateway migrate PKG --to TARGET --out DIR``: a package made runnable by another host."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from gateway.base import GatewayConfig, Severity, counted
from gateway.cli._output import fail, print_diagnostics, print_json

__all__ = ["run_migrate"]

_FORMS = {
    "nanobot": "an Agent Plugin, for released nanobot's Agent Plugins support (nanobot 0.3.x)",
    "nanobot-manifest": "nanobot.extension.json, the unreleased nanobot extension-manifest "
    "format (released nanobot does not read it; --to nanobot does)",
}


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
    form = f" — {_FORMS[args.target]}" if args.target in _FORMS else ""
    print(
        f"migrated {result.package.id} ({result.package.entry.ecosystem}) to {args.target}{form}:"
    )
    for path in result.files:
        print(f"  {path}")
    carried = len(result.carried)
    print(f"{counted(carried, 'item')} carried over; see {result.out / 'MIGRATION.md'}")
    print_diagnostics(result.notes, least=Severity.WARNING)
    return 0 if result.ok else 1
