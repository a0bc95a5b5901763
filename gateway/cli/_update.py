"""``gateway outdated`` and ``gateway update``: what has something newer at its source, and
reinstalling it (``gateway.packages._update``)."""

from __future__ import annotations

import argparse
import sys

from gateway.base import GatewayConfig, terminal_progress
from gateway.cli import _codes
from gateway.cli._output import print_diagnostics, print_json, short, table
from gateway.cli._refusal import refuse, refuse_unknown
from gateway.packages import InstallError, Outdated, check_outdated, update_package
from gateway.store import InstalledPackage, StateStore

__all__ = ["run_outdated", "run_update"]


def _packages(config: GatewayConfig) -> list[InstalledPackage]:
    with StateStore.open(config.home) as store:
        return store.list_packages()


def _row(check: Outdated) -> tuple[str, str, str, str]:
    newer = short(check.available) if check.available else None
    shown = newer or (f"? {check.note}" if check.note else "up to date")
    return check.id, check.kind, short(check.current), shown


def run_outdated(args: argparse.Namespace, config: GatewayConfig) -> int:
    checks = [check_outdated(config.home, p, latest=args.latest) for p in _packages(config)]
    if args.json:
        print_json({"packages": [c.to_dict() for c in checks]})
        return 0
    rows = [_row(c) for c in checks]
    table("Packages", ("id", "source", "installed", "newer"), rows, sys.stdout)
    return 0


def run_update(args: argparse.Namespace, config: GatewayConfig) -> int:
    installed = {p.id: p for p in _packages(config)}
    ids = list(dict.fromkeys(args.ids)) or list(installed)
    unknown = [i for i in ids if i not in installed]
    if unknown:
        return refuse_unknown(args, unknown, given=len(ids))
    results = []
    for package_id in ids:
        try:
            with terminal_progress(quiet=args.json) as progress:
                results.append(
                    update_package(
                        config.home, installed[package_id], latest=args.latest, progress=progress
                    )
                )
        except InstallError as error:
            refusal = _codes.INSTALL_REFUSED(str(error))
            return refuse(args, str(error), [refusal, *error.diagnostics], shown=error.diagnostics,
                          subject=error.subject)  # fmt: skip
    if args.json:
        print_json({"packages": [r.to_dict() for r in results]})
        return 0
    for result in results:
        check = result.check
        if result.report is None:
            # What `outdated` shows as `?`: nothing said newer, nothing known either.
            print(f"{check.id}: not checked ({check.note})" if check.note else
                  f"{check.id}: up to date")  # fmt: skip
            continue
        print(f"{check.id}: updated {short(check.current)} → {short(check.available or '')}")
        if result.trust_kept:
            print("  the permissions it requests did not grow: trust kept")
        print_diagnostics(result.report.diagnostics)
    return 0
