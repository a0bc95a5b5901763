"""``gateway trust ID|DIR…`` and ``gateway untrust ID|DIR…``: installed packages' content,
or workspace folders (docs/cli.md). Every target is checked before any is changed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gateway.base import GatewayConfig
from gateway.cli._errors import Usage
from gateway.cli._output import print_diagnostics
from gateway.cli._refusal import print_each, refuse_unknown
from gateway.packages import installed_notices
from gateway.packages.trust import set_workspace_trust
from gateway.store import STATE_FILE, StateStore

__all__ = ["installed_ids", "run_trust"]


def installed_ids(config: GatewayConfig) -> set[str]:
    if not (config.home / STATE_FILE).exists():
        return set()
    with StateStore.open(config.home) as store:
        return {package.id for package in store.list_packages()}


def run_trust(args: argparse.Namespace, config: GatewayConfig) -> int:
    """An installed package id trusts the package; otherwise a folder is a workspace."""
    trusted = args.verb == "trust"
    targets = list(dict.fromkeys(args.targets))
    installed = installed_ids(config)
    folders = [target for target in targets if target not in installed]
    for target in folders:
        if not Path(target).is_dir() and _looks_like_a_path(target):
            raise Usage(f"{target} is not a folder")
    unknown = [target for target in folders if not Path(target).is_dir()]
    if unknown:
        what = (
            "are neither installed package ids nor folders"
            if len(unknown) > 1
            else "is neither an installed package id nor a folder"
        )
        return refuse_unknown(args, unknown, given=len(targets), what=what)
    results = [
        _workspace(config, Path(target), trusted)
        if target in folders
        else _package(config, target, trusted)
        for target in targets
    ]
    if args.json:
        print_each(args, [{k: v for k, v in r.items() if k != "flagged"} for r in results])
        return 0
    state = "trusted" if trusted else "no longer trusted"
    for result in results:
        if result["changed"] == "workspace":
            print(f"workspace {result['workspace']} is {state}")
        else:
            print(f"package {result['id']} is {state} (content {result['content_hash'][:19]}…)")
    flagged = [d for result in results for d in result.get("flagged", [])]
    print_diagnostics(flagged, sys.stdout)
    return 0


def _looks_like_a_path(target: str) -> bool:
    return target.startswith(("/", "./", "../", "~")) or target in (".", "..")


def _workspace(config: GatewayConfig, target: Path, trusted: bool) -> dict[str, Any]:
    set_workspace_trust(config.home, target, trusted)
    return {"changed": "workspace", "workspace": str(target.resolve()), "trusted": trusted}


def _package(config: GatewayConfig, package_id: str, trusted: bool) -> dict[str, Any]:
    with StateStore.open(config.home) as store:
        store.set_trusted(package_id, trusted)
        package = store.get_package(package_id)
    # Trusting lets its text reach the model: what looks like instructions is said again.
    flagged = installed_notices(config.home, package_id) if trusted else []
    return {
        "changed": "package",
        "id": package.id,
        "trusted": trusted,
        "content_hash": package.record.content_hash,
        "diagnostics": [d.to_dict() for d in flagged],
        "flagged": flagged,
    }
