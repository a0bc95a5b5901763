"""Package verbs: install, inspect, permissions, enable, disable, uninstall, status
(``install`` and ``uninstall`` in ``gateway.cli._install``). Each prints a readable
summary, or JSON with ``--json``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gateway.base import GatewayConfig
from gateway.cli._output import print_diagnostics, print_json, table
from gateway.cli._refusal import refuse
from gateway.cli._trust import installed_ids
from gateway.host import describe_sandbox
from gateway.packages import evaluate_packages, load_adapters
from gateway.sandbox import SANDBOX_PERMISSIONS
from gateway.store import StateStore, UnknownPackage

__all__ = ["refuse", "run_package_verb"]


def run_package_verb(args: argparse.Namespace, config: GatewayConfig) -> int:
    if args.verb in ("install", "uninstall"):
        # The installer (sources, npm, extraction) is loaded only by the verbs that use it.
        from gateway.cli import _install

        handler = _install.run_install if args.verb == "install" else _install.run_uninstall
    else:
        handler = {
            "inspect": _inspect,
            "permissions": _permissions,
            "enable": _enable,
            "disable": _enable,
            "status": _status,
        }[args.verb]
    try:
        return handler(args, config)
    except UnknownPackage as error:
        return refuse(args, f"{error} (see `gateway status`)")


def _inspect(args: argparse.Namespace, config: GatewayConfig) -> int:
    target = args.target
    inspector = load_adapters().inspect
    if target in installed_ids(config):
        with StateStore.open(config.home) as store:
            root = store.get_package(target).record.path
    elif Path(target).is_dir():
        root = Path(target).resolve()
    else:
        return refuse(args, f"{target} is neither an installed package id nor a folder")
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
                return refuse(
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


def _status(args: argparse.Namespace, config: GatewayConfig) -> int:
    # The adapters load only to read packages that are there.
    statuses = evaluate_packages(config.home, load_adapters()) if installed_ids(config) else []
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
