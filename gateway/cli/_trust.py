"""``gateway trust ID|DIR`` and ``gateway untrust ID|DIR``: an installed package's content,
or a workspace folder (docs/cli.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gateway.base import GatewayConfig
from gateway.cli._errors import Usage
from gateway.cli._output import fail, print_diagnostics, print_json
from gateway.packages import installed_instructions
from gateway.packages.trust import set_workspace_trust
from gateway.store import STATE_FILE, StateStore

__all__ = ["installed_ids", "run_trust", "trust_package"]


def installed_ids(config: GatewayConfig) -> set[str]:
    if not (config.home / STATE_FILE).exists():
        return set()
    with StateStore.open(config.home) as store:
        return {package.id for package in store.list_packages()}


def run_trust(args: argparse.Namespace, config: GatewayConfig) -> int:
    """An installed package id trusts the package; otherwise a folder is a workspace."""
    trusted = args.verb == "trust"
    if args.target in installed_ids(config):
        return trust_package(args, config, args.target, trusted)
    target = Path(args.target)
    if not target.is_dir():
        if args.target.startswith(("/", "./", "../", "~")) or args.target in (".", ".."):
            raise Usage(f"{args.target} is not a folder")
        fail(f"{args.target} is neither an installed package id nor a folder")
        return 1
    set_workspace_trust(config.home, target, trusted)
    resolved = str(target.resolve())
    if getattr(args, "json", False):
        print_json({"changed": "workspace", "workspace": resolved, "trusted": trusted})
    else:
        state = "trusted" if trusted else "no longer trusted"
        print(f"workspace {resolved} is {state}")
    return 0


def trust_package(
    args: argparse.Namespace, config: GatewayConfig, package_id: str, trusted: bool
) -> int:
    with StateStore.open(config.home) as store:
        store.set_trusted(package_id, trusted)
        package = store.get_package(package_id)
    # Trusting lets its text reach the model: what looks like instructions is said again.
    flagged = installed_instructions(config.home, package_id) if trusted else []
    if args.json:
        print_json(
            {"changed": "package", "id": package.id, "trusted": trusted,
             "content_hash": package.record.content_hash,
             "diagnostics": [d.to_dict() for d in flagged]}
        )  # fmt: skip
    else:
        state = "trusted" if trusted else "no longer trusted"
        print(f"package {package.id} is {state} (content {package.record.content_hash[:19]}…)")
        print_diagnostics(flagged, sys.stdout)
    return 0
