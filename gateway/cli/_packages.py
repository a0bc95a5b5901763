"""Package verbs: install, inspect, permissions, trust/untrust ID, enable, disable,
uninstall, status. Each prints a readable summary, or JSON with ``--json``."""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import Any

from gateway.base import GatewayConfig, _codes, terminal_progress
from gateway.cli._output import print_diagnostics, print_json, table
from gateway.cli._policy import print_suggested, suggested_policy
from gateway.host import describe_sandbox
from gateway.packages import (
    InstallError,
    collect_garbage,
    evaluate_packages,
    install,
    load_adapters,
    prepare_install,
    uninstall,
)
from gateway.sandbox import SANDBOX_PERMISSIONS
from gateway.store import STATE_FILE, StateStore, UnknownPackage

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


def _refuse(
    args: argparse.Namespace,
    message: str,
    diagnostics: list[Any] | None = None,
    *,
    shown: list[Any] | None = None,
    subject: str = "",
) -> int:
    """JSON: the message and every diagnostic. Text: said once — the message, or, when the
    package's own ``shown`` diagnostics say why, ``subject`` with each of them under it."""
    if args.json:
        print_json({"error": message, "diagnostics": [d.to_dict() for d in diagnostics or []]})
        return 1
    code = f" [{diagnostics[0].code}]" if diagnostics else ""
    if shown:
        print(f"gateway: error: {subject or message}:", file=sys.stderr)
        print_diagnostics(shown, indent="  ")
    else:
        print(f"gateway: error: {message}{code}", file=sys.stderr)
    return 1


def _install(args: argparse.Namespace, config: GatewayConfig) -> int:
    # What installs that died left behind (their locks are free) goes first.
    collect_garbage(config.home)
    adapters = load_adapters()
    try:
        with terminal_progress(quiet=args.json) as progress:
            report = install(
                config.home,
                args.source,
                kind=args.kind,
                inspector=adapters.inspect,
                progress=progress,
                prepare=functools.partial(prepare_install, adapters, config.home),
            )
    except InstallError as error:
        refusal = _codes.INSTALL_REFUSED(str(error))
        return _refuse(
            args,
            str(error),
            [refusal, *error.diagnostics],
            shown=error.diagnostics,
            subject=error.subject,
        )
    suggested = suggested_policy(report.entry)
    if args.json:
        print_json({**report.to_dict(), "suggested_policy": suggested})
        return 0
    data = report.to_dict()
    verb = "installed" if report.result.created else "reinstalled"
    name = " ".join(part for part in (data["id"], data["version"]) if part)
    print(f"{verb} {name} ({data['ecosystem']}) from {data['source']}")
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
    for name in report.entry.secrets:
        print(f"  secret {name}: gateway secret set {data['id']} {name}")
    if suggested is not None:
        print_suggested(data["id"], suggested, sys.stdout)
        print(f"  not applied until you adopt them: gateway policy accept {data['id']}")
    print_diagnostics(report.diagnostics)
    return 0


def _inspect(args: argparse.Namespace, config: GatewayConfig) -> int:
    target = args.target
    inspector = load_adapters().inspect
    if target in installed_ids(config):
        with StateStore.open(config.home) as store:
            root = store.get_package(target).record.path
    elif Path(target).is_dir():
        root = Path(target).resolve()
    else:
        return _refuse(args, f"{target} is neither an installed package id nor a folder")
    entry = inspector(root)
    data = entry.to_dict()
    if target in installed_ids(config):
        with StateStore.open(config.home) as store:
            granted = store.granted(target)
        data["sandbox"] = describe_sandbox(entry, granted, config)
    if args.json:
        print_json(data)
        return 0
    print(
        f"{data['id']} {data['version']} — {data['ecosystem']} package, runtime {data['runtime']}"
    )
    if data.get("description"):
        print(f"  {data['description']}")
    print(f"  at {data['root']}")
    if "sandbox" in data:
        print(f"  sandbox: {data['sandbox']}")
    contributions = [
        (c["kind"], c["name"], c.get("description", "")) for c in data["contributions"]
    ]
    table("Contributions", ("kind", "name", "description"), contributions, sys.stdout)
    permissions = [(p["name"], p.get("reason", "")) for p in data["permissions"]]
    table("Permissions requested", ("permission", "reason"), permissions, sys.stdout)
    dependencies = [
        (d["kind"], d["name"], d.get("specifier", ""), "optional" if d["optional"] else "")
        for d in data["dependencies"]
    ]
    table("Dependencies", ("kind", "name", "specifier", ""), dependencies, sys.stdout)
    print_diagnostics(entry.diagnostics, sys.stdout)
    return 0


def _permissions(args: argparse.Namespace, config: GatewayConfig) -> int:
    """A package's own requested permissions, plus the sandbox's (SANDBOX_PERMISSIONS),
    which any package may be granted: a Pi or OpenClaw package declares nothing, and its
    user decides what its sandbox opens."""
    with StateStore.open(config.home) as store:
        package = store.get_package(args.id)
        permissions = load_adapters().inspect(package.record.path).permissions
        requested = [p.name for p in permissions]
        optional = {p.name for p in permissions if p.optional}
        grantable = [*requested, *(name for name in SANDBOX_PERMISSIONS if name not in requested)]
        if args.permissions and args.revoke:
            store.revoke(args.id, args.permissions)
        elif args.permissions:
            unknown = sorted(set(args.permissions) - set(grantable))
            if unknown:
                return _refuse(
                    args,
                    f"{args.id} does not request {', '.join(unknown)}; "
                    f"it requests: {', '.join(requested) or 'nothing'} "
                    f"(any package may be granted {', '.join(SANDBOX_PERMISSIONS)})",
                )
            store.grant(args.id, args.permissions, grantable)
        granted = sorted(store.granted(args.id))
    if args.json:
        print_json({"id": args.id, "requested": requested, "granted": granted})
        return 0
    for name in grantable:
        if name in requested or name in granted:
            state = "granted" if name in granted else "not granted"
            print(f"  {state:12} {name}{' (optional)' if name in optional else ''}")
    if not requested:
        print(f"{args.id} requests no permissions", end="")
        extra = [name for name in granted if name in SANDBOX_PERMISSIONS]
        print(f"; its sandbox is widened by: {', '.join(extra)}" if extra else "")
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
        evaluate_packages(config.home, load_adapters())
        if (config.home / STATE_FILE).exists()
        else []
    )
    sandboxes = {
        status.id: describe_sandbox(status.entry, status.package.granted, config)
        for status in statuses
    }
    if args.json:
        print_json({"packages": [{**s.to_dict(), "sandbox": sandboxes[s.id]} for s in statuses]})
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
        if data["secrets"]:
            shown = ", ".join(f"{name} {value}" for name, value in data["secrets"].items())
            state += f" (secrets: {shown})"
        rows.append((data["id"], data["version"], data["ecosystem"], marks, state))
    table("Packages", ("id", "version", "ecosystem", "gates", "state"), rows, sys.stdout)
    table("Sandbox", ("id", "what its processes may reach"), list(sandboxes.items()), sys.stdout)
    print_diagnostics([d for status in statuses for d in status.diagnostics], sys.stdout)
    return 0
