"""``gateway secret set|unset|list ID [NAME]``: a package's secrets (docs/cli.md).

Only the names the package declares (Nu's ``secrets``). A value is read from stdin, or
asked for without echo on a terminal — never taken from the command line, where other
users' ``ps`` and the shell's history would see it. Values are never printed: ``list``
and ``gateway status`` say set or unset.
"""

from __future__ import annotations

import argparse
import getpass
import sys

from gateway.base import GatewayConfig
from gateway.cli._config import installed_entry
from gateway.cli._output import print_json
from gateway.packages.secrets import SecretsError, secret_status, set_secret, unset_secret

__all__ = ["run_secret"]


def _declared(config: GatewayConfig, package_id: str) -> list[str] | None:
    entry = installed_entry(config, package_id)
    return None if entry is None else list(entry.secrets)


def _read_value(name: str, package_id: str) -> str:
    if sys.stdin.isatty():
        return getpass.getpass(f"{name} for {package_id} (not shown): ")
    value = sys.stdin.read()
    # One trailing line break is how `echo` and files end; it is not part of a secret.
    return value[:-2] if value.endswith("\r\n") else value.removesuffix("\n")


def run_secret(args: argparse.Namespace, config: GatewayConfig) -> int:
    declared = _declared(config, args.id)
    if declared is None:
        return _refuse(args, f"no installed package {args.id!r} (see `gateway status`)")
    name = getattr(args, "name", None)
    if name is not None and name not in declared:
        listed = ", ".join(declared) or "none"
        return _refuse(
            args, f"{args.id} does not declare a secret {name!r} (it declares: {listed})"
        )
    try:
        if args.action == "set":
            assert name is not None
            set_secret(config.home, args.id, name, _read_value(name, args.id))
        elif args.action == "unset":
            assert name is not None
            unset_secret(config.home, args.id, name)
        status = secret_status(config.home, args.id, declared)
    except (SecretsError, OSError) as error:
        return _refuse(args, str(error))
    except (EOFError, KeyboardInterrupt):
        return _refuse(args, "no value given; nothing changed")
    shown = {key: "set" if is_set else "unset" for key, is_set in status.items()}
    if args.json:
        print_json({"id": args.id, "secrets": shown})
    elif args.action == "list":
        for key, state in shown.items():
            print(f"  {state:6} {key}")
        if not shown:
            print(f"{args.id} declares no secrets")
    else:
        print(f"secret {name} of {args.id} is {shown[str(name)]}")
    return 0


def _refuse(args: argparse.Namespace, message: str) -> int:
    if args.json:
        print_json({"error": message})
    else:
        print(f"gateway: error: {message}", file=sys.stderr)
    return 1
