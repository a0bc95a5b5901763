"""Package verbs: install, inspect, permissions, trust/untrust ID, enable, disable,
uninstall, status. Each prints a readable summary, or JSON with ``--json``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .. import _codes
from ..config import GatewayConfig
from ..packages import (
    InstallError,
    collect_garbage,
    evaluate_packages,
    install,
    load_inspector,
    runtime_planner,
    uninstall,
)
from ..store import STATE_FILE, StateStore, UnknownPackage
from ._output import print_diagnostics, print_json, table

__all__ = ["add_package_verbs", "installed_ids", "run_package_verb", "trust_package"]

VERBS = ("install", "inspect", "permissions", "enable", "disable", "uninstall", "status")


def add_package_verbs(commands: Any) -> None:
    sub = commands.add_parser("install", help="install a package (local folder, git, npm)")
    sub.add_argument("source", metavar="SRC", help="folder, git URL[#ref] or npm spec / tarball")
    sub.add_argument("--kind", choices=("local", "git", "npm"), help="force the source kind")
    sub = commands.add_parser("inspect", help="a package's metadata (runs nothing)")
    sub.add_argument("target", metavar="ID|PATH")
    sub = commands.add_parser("permissions", help="show, grant or revoke permissions")
    sub.add_argument("id", metavar="ID")
    sub.add_argument("permissions", nargs="*", metavar="PERM")
    sub.add_argument("--revoke", action="store_true")
    for verb, text in (("enable", "enable a package"), ("disable", "disable a package"),
                       ("uninstall", "remove a package")):  # fmt: skip
        commands.add_parser(verb, help=text).add_argument("id", metavar="ID")
    commands.add_parser("status", help="every installed package: gates, active or not and why")
    for name in VERBS:
        commands.choices[name].add_argument("--json", action="store_true")


def installed_ids(config: GatewayConfig) -> set[str]:
    if not (config.home / STATE_FILE).exists():
        return set()
    with StateStore.open(config.home) as store:
        return {package.id for package in store.list_packages()}


def run_package_verb(args: argparse.Namespace, config: GatewayConfig) -> int:
    handler = {
        "install": _install,
        "inspect": _inspect,
        "permissions": _permissions,
        "enable": _enable,
        "disable": _enable,
        "uninstall": _uninstall,
        "status": _status,
    }[args.verb]
    try:
        return handler(args, config)
    except UnknownPackage as error:
        return _refuse(args, f"{error} (see `gateway status`)")


def _refuse(args: argparse.Namespace, message: str, diagnostics: list[Any] | None = None) -> int:
    if args.json:
        print_json({"error": message, "diagnostics": [d.to_dict() for d in diagnostics or []]})
    else:
        print(f"gateway: error: {message}", file=sys.stderr)
        print_diagnostics(diagnostics or [])
    return 1


def _install(args: argparse.Namespace, config: GatewayConfig) -> int:
    if (config.home / STATE_FILE).exists():
        collect_garbage(config.home)
    try:
        report = install(config.home, args.source, kind=args.kind, inspector=load_inspector())
    except InstallError as error:
        refusal = _codes.INSTALL_REFUSED(str(error))
        return _refuse(args, str(error), [refusal, *error.diagnostics])
    if args.json:
        print_json(report.to_dict())
        return 0
    data = report.to_dict()
    verb = "installed" if report.result.created else "reinstalled"
    print(f"{verb} {data['id']} {data['version']} ({data['ecosystem']}) from {data['source']}")
    print(f"  at {data['path']} ({data['files']} files)")
    if report.result.created or report.result.trust_revoked:
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
    print_diagnostics(report.diagnostics)
    return 0


def _inspect(args: argparse.Namespace, config: GatewayConfig) -> int:
    target = args.target
    inspector = load_inspector()
    if target in installed_ids(config):
        with StateStore.open(config.home) as store:
            root = store.get_package(target).record.path
    elif Path(target).is_dir():
        root = Path(target).resolve()
    else:
        return _refuse(args, f"{target} is neither an installed package id nor a folder")
    entry = inspector(root)
    data = entry.to_dict()
    if args.json:
        print_json(data)
        return 0
    print(
        f"{data['id']} {data['version']} — {data['ecosystem']} package, runtime {data['runtime']}"
    )
    if data.get("description"):
        print(f"  {data['description']}")
    print(f"  at {data['root']}")
    rows = [(c["kind"], c["name"], c.get("description", "")) for c in data["contributions"]]
    table("Contributions", ("kind", "name", "description"), rows, sys.stdout)
    rows = [(p["name"], p.get("reason", "")) for p in data["permissions"]]
    table("Permissions requested", ("permission", "reason"), rows, sys.stdout)
    rows = [
        (d["kind"], d["name"], d.get("specifier", ""), "optional" if d["optional"] else "")
        for d in data["dependencies"]
    ]
    table("Dependencies", ("kind", "name", "specifier", ""), rows, sys.stdout)
    print_diagnostics(entry.diagnostics, sys.stdout)
    return 0


def _permissions(args: argparse.Namespace, config: GatewayConfig) -> int:
    with StateStore.open(config.home) as store:
        package = store.get_package(args.id)
        permissions = load_inspector()(package.record.path).permissions
        requested = [p.name for p in permissions]
        optional = {p.name for p in permissions if getattr(p, "optional", False)}
        if args.permissions and args.revoke:
            store.revoke(args.id, args.permissions)
        elif args.permissions:
            unknown = sorted(set(args.permissions) - set(requested))
            if unknown:
                return _refuse(
                    args,
                    f"{args.id} does not request {', '.join(unknown)}; "
                    f"it requests: {', '.join(requested) or 'nothing'}",
                )
            store.grant(args.id, args.permissions, requested)
        granted = sorted(store.granted(args.id))
    if args.json:
        print_json({"id": args.id, "requested": requested, "granted": granted})
        return 0
    for name in requested:
        state = "granted" if name in granted else "not granted"
        print(f"  {state:12} {name}{' (optional)' if name in optional else ''}")
    if not requested:
        print(f"{args.id} requests no permissions")
    return 0


def _enable(args: argparse.Namespace, config: GatewayConfig) -> int:
    enabled = args.verb == "enable"
    with StateStore.open(config.home) as store:
        store.set_enabled(args.id, enabled)
    if args.json:
        print_json({"changed": "package", "id": args.id, "enabled": enabled})
    else:
        print(f"package {args.id} is {'enabled' if enabled else 'disabled'}")
    return 0


def _uninstall(args: argparse.Namespace, config: GatewayConfig) -> int:
    package = uninstall(config.home, args.id)
    if args.json:
        print_json({"uninstalled": package.id, "path": str(package.record.path)})
    else:
        print(f"uninstalled {package.id} (removed {package.record.path})")
    return 0


def trust_package(args: argparse.Namespace, config: GatewayConfig, trusted: bool) -> int:
    with StateStore.open(config.home) as store:
        store.set_trusted(args.target_id, trusted)
        package = store.get_package(args.target_id)
    if args.json:
        print_json(
            {"changed": "package", "id": package.id, "trusted": trusted,
             "content_hash": package.record.content_hash}
        )  # fmt: skip
    else:
        state = "trusted" if trusted else "no longer trusted"
        print(f"package {package.id} is {state} (content {package.record.content_hash[:19]}…)")
    return 0


def _status(args: argparse.Namespace, config: GatewayConfig) -> int:
    statuses = (
        evaluate_packages(config.home, load_inspector(), runtime_planner(config.home))
        if (config.home / STATE_FILE).exists()
        else []
    )
    if args.json:
        print_json({"packages": [status.to_dict() for status in statuses]})
        return 0
    rows = []
    for status in statuses:
        data = status.to_dict()
        gates = data["gates"]
        marks = " ".join(
            f"{name}:{'yes' if gates[name] else 'NO'}"
            for name in ("trusted", "permissions", "dependencies", "enabled")
        )
        state = "active" if status.active else "inactive: " + "; ".join(status.reasons)
        rows.append((data["id"], data["version"], data["ecosystem"], marks, state))
    table("Packages", ("id", "version", "ecosystem", "gates", "state"), rows, sys.stdout)
    print_diagnostics([d for status in statuses for d in status.diagnostics], sys.stdout)
    return 0
