"""``gateway install`` and ``gateway uninstall``: the installer's verbs."""

from __future__ import annotations

import argparse
import functools
import sys

from gateway.base import GatewayConfig, terminal_progress
from gateway.cli import _codes
from gateway.cli._names import known_names
from gateway.cli._output import print_diagnostics, print_json
from gateway.cli._policy import print_suggested, suggested_policy
from gateway.cli._refusal import print_each, refuse, refuse_unknown
from gateway.packages import (
    InstallError,
    RequirementsReport,
    collect_garbage,
    describe_installed,
    install,
    install_requirements,
    load_adapters,
    prepare_install,
)
from gateway.packages import uninstall as uninstall_package

__all__ = ["run_install", "run_uninstall"]


def run_install(args: argparse.Namespace, config: GatewayConfig) -> int:
    # What installs that died left behind (their locks are free) goes first.
    collect_garbage(config.home)
    adapters = load_adapters()
    named_before = known_names(config.home)
    try:
        with terminal_progress(quiet=args.json) as progress:
            prepare = functools.partial(prepare_install, adapters, config.home, progress=progress)
            report = install(
                config.home,
                args.source,
                kind=args.kind,
                inspector=adapters.inspect,
                progress=progress,
                prepare=prepare,
                other_source="replace" if args.replace else "refuse",
            )
            # MARKETPLACE#PLUGIN: the plugins it depends on, from the same marketplace.
            needed = install_requirements(
                config.home, args.source, args.kind, report, adapters,
                progress=progress, prepare=prepare,
            )  # fmt: skip
    except InstallError as error:
        refusal = _codes.INSTALL_REFUSED(str(error))
        return refuse(
            args,
            str(error),
            [refusal, *error.diagnostics],
            shown=error.diagnostics,
            subject=error.subject,
        )
    suggested = suggested_policy(report.entry)
    report.diagnostics.extend(needed.diagnostics)
    package_id = report.package.record.id
    owner = named_before.get(package_id, package_id)
    if owner != package_id:
        report.diagnostics.append(
            _codes.INSTALL_NAME_SHADOWED(
                f"{package_id} was also a name of {owner}: it now names this package; "
                f"{owner} is still reached by its id",
                package=package_id,
            )
        )
    if args.json:
        print_json(
            {**report.to_dict(), "suggested_policy": suggested, "dependencies": needed.to_dict()}
        )
        return 0
    data = report.to_dict()
    verb = "installed" if report.result.created else "reinstalled"
    name = " ".join(part for part in (data["id"], data["version"]) if part)
    print(f"{verb} {name} ({data['ecosystem']}) from {data['source']}")
    print(f"  at {data['path']} ({data['files']} files)")
    if report.replaced is not None:
        print(f"  replaced {describe_installed(report.replaced)}; nothing of it was kept")
    if data["aliases"]:
        print(f"  also named {', '.join(data['aliases'])} (as its id, wherever an id is taken)")
    if report.result.created or report.result.hash_changed:
        # Changed content that was not trusted: not "the same as before" either.
        print("  nothing of it runs until you pass each gate:")
        optional = {p.name for p in report.entry.permissions if getattr(p, "optional", False)}
        required = [p for p in data["requested_permissions"] if p not in optional]
        if required:
            print(f"    gateway permissions {data['id']} {' '.join(required)}")
        print(f"    gateway trust {data['id']}")
        print(f"    gateway enable {data['id']}")
        if optional:
            perms = " ".join(sorted(optional))
            print(f"  optional (the rest runs without): gateway permissions {data['id']} {perms}")
    else:
        print("  same content as before: trust, grants and enabled are kept")
    for name in report.entry.secrets:
        print(f"  secret {name}: gateway secret set {data['id']} {name}")
    for name, grant in data["environment"].items():
        print(f"  your environment's {name} reaches it only once passed: {grant}")
    if suggested is not None:
        print_suggested(data["id"], suggested, sys.stdout)
        print(f"  not applied until you adopt them: gateway policy accept {data['id']}")
    _print_dependencies(needed)
    print_diagnostics(report.diagnostics)
    return 0


def _print_dependencies(needed: RequirementsReport) -> None:
    """Which dependencies were added (as Claude Code lists them at the end of an install);
    each is its own package, passing its own gates."""
    for added in needed.added:
        entry = added.entry
        version = f" {entry.version}" if entry.version else ""
        print(f"  added dependency {entry.id}{version}; it passes its own gates:")
        print(f"    gateway trust {entry.id}")
        print(f"    gateway enable {entry.id}")
    if needed.kept:
        print(f"  dependencies already installed (kept): {', '.join(needed.kept)}")


def run_uninstall(args: argparse.Namespace, config: GatewayConfig) -> int:
    """``uninstall ID…``: every id is checked before any package is removed."""
    from gateway.cli._trust import installed_ids

    ids = list(dict.fromkeys(args.ids))
    installed = installed_ids(config)
    unknown = [package_id for package_id in ids if package_id not in installed]
    if unknown:
        return refuse_unknown(args, unknown, given=len(ids))
    packages = [uninstall_package(config.home, package_id) for package_id in ids]
    if args.json:
        print_each(args, [{"uninstalled": p.id, "path": str(p.record.path)} for p in packages])
        return 0
    for package in packages:
        print(f"uninstalled {package.id} (removed {package.record.path})")
    return 0
